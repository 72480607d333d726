/**
 * No run hangs, whatever the server and however late a busy machine's timers fire: properties over
 * servers, reset forms, clocks and late wake-ups in the model (test/harness/rateModel.ts, simulated
 * time), each planted away once.
 */
import fc from 'fast-check';
import { Pacer } from '../../nodes/MessagingCrm/transport/rateLimit';
import type { ResetForm, ServerModel } from '../harness/rateModel';
import { lost, runModel } from '../harness/rateModel';
import { planted } from '../harness/planted';

describe("a busy machine's timers fire late: no run hangs", () => {
	const forms: ResetForm[] = ['exact', 'floor', 'ceil', 'epoch', 'epoch-floor', 'epoch-ms'];
	/** One to three processes alone on the key, any server: every item ends; alone, every one is done. */
	const alone = () =>
		fc.assert(
			fc.property(
				fc.record({
					limit: fc.integer({ min: 2, max: 40 }),
					windowMs: fc.constantFrom(1000, 2000, 6000, 60_000),
					reset: fc.constantFrom(...forms),
					date: fc.constantFrom('server', 'host', 'none'),
					clockBehindS: fc.integer({ min: 0, max: 2 }),
					retryAfter: fc.boolean(),
					latencyMs: fc.integer({ min: 1, max: 30 }),
				}),
				fc.integer({ min: 1, max: 3 }),
				fc.integer({ min: 1, max: 90 }),
				fc.integer({ min: 0, max: 200 }),
				fc.integer({ min: 1, max: 1e6 }),
				(server, processes, each, wakeLateMs, jitterSeed) => {
					const needs = Math.ceil((processes * each) / server.limit) + 3;
					const result = runModel(
						server as ServerModel,
						Array.from({ length: processes }, () => ({ items: each })),
						{ wakeLateMs, jitterSeed, untilMs: needs * server.windowMs + 2000 * needs },
					);
					// Several processes on a tiny limit may refuse one of them two windows running: its
					// item then fails with rate_limited (Pacer.mayRetry), an error item, never a hang.
					const ended = result.clients.map((c) => c.done + c.lost);
					expect(ended).toEqual(result.clients.map(() => each));
					if (processes === 1) expect(lost(result)).toBe(0);
				},
			),
			{ numRuns: 150, seed: 20261207 },
		);
	/** Beside another client at up to half the limit: every item ends, one a window at least. */
	const beside = () =>
		fc.assert(
			fc.property(
				fc.integer({ min: 4, max: 120 }),
				fc.constantFrom(2000, 6000, 60_000),
				fc.constantFrom<ResetForm>('exact', 'floor', 'epoch'),
				fc.integer({ min: 1, max: 3 }),
				fc.integer({ min: 1, max: 150 }),
				fc.double({ min: 0.05, max: 0.5, noNaN: true }),
				fc.constantFrom('spreading', 'bursting', 'random'),
				fc.integer({ min: 0, max: 200 }),
				fc.integer({ min: 1, max: 1e6 }),
				(limit, windowMs, reset, processes, each, part, kind, wakeLateMs, seed) => {
					const cotenantPerWindow = Math.max(1, Math.floor(part * limit));
					// Not the time a run needs (a process of a tiny limit may be left one request a
					// window: docs/pacer.md), only that it moves on.
					const windows = processes * each + 4;
					const result = runModel(
						{ limit, windowMs, reset },
						Array.from({ length: processes }, () => ({ items: each })),
						{
							cotenantPerWindow,
							cotenantBurstAtMs: kind === 'bursting' ? (seed % 60) * (windowMs / 60) : undefined,
							cotenantRandomSeed: kind === 'random' ? seed : undefined,
							wakeLateMs,
							jitterSeed: seed,
							untilMs: windows * windowMs,
						},
					);
					const ended = result.clients.map((c) => c.done + c.lost);
					expect(ended).toEqual(result.clients.map(() => each));
				},
			),
			{ numRuns: 100, seed: 20261208 },
		);

	it(
		'whatever the server, the reset form, the clock and how late each wait ends (up to 200 ms), every item ends within the windows its run needs and three more; alone, every item is done',
		alone,
	);
	it(
		'beside another client of the key (spreading, all at once or at random, up to half the limit), with timers up to 200 ms late: every item of the node ends, one a window at least',
		beside,
	);
	it('planted: alone, a request that waits past the reset for what the share rules hold (Pacer.due away) hangs the run', () => {
		planted(
			'due',
			() => false,
			() => expect(alone).toThrow(),
		);
	});
	it('planted: a probe that never goes beside another client (Pacer.probing) hangs the run', () => {
		type Probing = (now: number, share: number) => number | undefined;
		const probing = (Pacer.prototype as unknown as { probing: Probing }).probing;
		planted(
			'probing',
			function (this: Pacer, now: number, share: number) {
				const wait = probing.call(this, now, share);
				return wait === 0 && !(this as unknown as { alone(): boolean }).alone() ? 20 : wait;
			},
			() => expect(beside).toThrow(),
		);
	});
});
