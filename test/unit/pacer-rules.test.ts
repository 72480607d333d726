/* eslint-disable no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The pacer's four rules, highest first, as docs/pacer.md lists them (share,
 * retry, probe, speed), each held by a model test in simulated time (test/harness/rateModel.ts)
 * and each of their functions planted away once: the function replaced, the test that holds it
 * fails.
 */
import type { ModelResult } from '../harness/rateModel';
import { least, perWindow, runModel, shortfall } from '../harness/rateModel';
import { planted } from '../harness/planted';
import { prng } from '../harness/prng';
import { Pacer } from '../../nodes/MessagingCrm/transport/rateLimit';
import { Shares } from '../../nodes/MessagingCrm/transport/rateShares';

const API = { limit: 120, windowMs: 60_000, latencyMs: 1 };
const SHORT = { limit: 30, windowMs: 6000 };
type Options = NonNullable<Parameters<typeof runModel>[2]>;

/** The co-tenant (client -1): its first window with a request accepted, and what it lost after. */
function coTenant(result: ModelResult) {
	const its = result.log.filter((e) => e.client === -1);
	// Never accepted, it never showed itself: every refusal counts.
	const shown = its.find((e) => e.ok)?.window ?? -1;
	return {
		refused: its.filter((e) => !e.ok).length,
		refusedAfterShown: its.filter((e) => e.window > shown && !e.ok).length,
	};
}

const seconds = (r: ModelResult) => (r.clients[0].last - r.clients[0].first) / 1000;
const lost = (r: ModelResult) => r.clients.reduce((a, c) => a + c.lost, 0);

/**
 * The co-tenant of the benchmark's 60 s rows, in the model: 40 requests per window beside 300
 * upserts, spreading them or sending them at once each minute, there before the node or joining.
 */
const variants: Array<[string, Options, number]> = [
	['spreading, there 20 s before the node', { cotenantPerWindow: 40 }, 20_000],
	...[2, 30, 57].map((s): [string, Options, number] => [
		`sending its 40 at once ${s} s into each minute (one request at its start)`,
		{ cotenantPerWindow: 40, cotenantBurstAtMs: s * 1000, cotenantStartup: true },
		1000,
	]),
	['spreading, joining 30 s after the node', { cotenantPerWindow: 40, cotenantStartMs: 30_000 }, 0],
	// Its requests never fall on a reset: the node, alone, would spend each window before them.
	['spreading, joining 10 s after the node', { cotenantPerWindow: 40, cotenantStartMs: 10_000 }, 0],
];

describe('share: never take a slot another client will want in this window', () => {
	it.each(variants)(
		'a co-tenant at 120 per 60 s %s: none of its requests refused from the window after it showed itself, the node within 1.10× of 180 s',
		(_, options, nodeStartMs) => {
			const result = runModel(API, [{ items: 300, startMs: nodeStartMs }], options);
			const { refused, refusedAfterShown } = coTenant(result);
			console.log(
				`${_}: co-tenant ${refused} refused, ${refusedAfterShown} after it showed itself; node ${seconds(result).toFixed(1)} s`,
			);
			expect(refusedAfterShown).toBe(0);
			// There before the node: nothing refused at all.
			if (nodeStartMs > 0) expect(refused).toBe(0);
			expect(seconds(result)).toBeLessThanOrEqual(198);
			expect(lost(result)).toBe(0);
		},
	);

	it('planted: holding nothing for the look (Shares.held), a co-tenant that joins a node alone on the key is never seen and loses every request', () => {
		planted(
			'held',
			() => 0,
			() => {
				const result = runModel(API, [{ items: 300 }], variants[5][1]);
				expect(coTenant(result).refusedAfterShown).toBeGreaterThan(60);
			},
			Shares,
		);
	});

	// Its burst comes between one or two of the node's back-to-back answers, as another pacer's
	// requests do: the node counts it as a pacer. Answers that come late at random (20 ms) make one
	// of them an answer after a wait that met nobody, a second into the window.
	const bursts: Array<[number, number]> = [
		[2000, 1000],
		[2500, 1200],
		[3000, 1200],
	];
	const burstJittered = ([burstAtMs, nodeStartMs]: [number, number]) =>
		runModel({ ...API, jitterMs: 20 }, [{ items: 300, startMs: nodeStartMs }], {
			cotenantPerWindow: 40,
			cotenantBurstAtMs: burstAtMs,
			cotenantStartup: true,
		});

	it.each(bursts)(
		'a co-tenant sending its 40 at once %i ms into each minute, the node from %i ms, answers late at random: none refused, the node within 1.10× of 180 s',
		(burstAtMs, nodeStartMs) => {
			const result = burstJittered([burstAtMs, nodeStartMs]);
			expect(coTenant(result).refused).toBe(0);
			expect(seconds(result)).toBeLessThanOrEqual(198);
		},
	);

	it('a co-tenant that stops gives its part back within two windows', () => {
		const result = runModel(API, [{ items: 600, startMs: 20_000 }], {
			cotenantPerWindow: 40,
			cotenantStopMs: 100_000,
		});
		// Its last request falls in window 1 (60 to 120 s); window 3 is the node's whole.
		const node = perWindow(result.log, 0);
		console.log(`co-tenant stopping at 100 s: node ${node.join(', ')} per window`);
		expect(node[3]).toBeGreaterThanOrEqual(118);
	});

	// Shares.kept and Shares.slack are planted away over whole families of members
	// (test/unit/pacer-families.test.ts).
});

describe('retry: never lose an item, never hang', () => {
	const refusing = { ...API, retryAfter: false, refuseForMs: 70_000 };
	it('a server refusing everything for 70 s (reset of 0 s) loses nothing', () => {
		expect(lost(runModel(refusing, [{ items: 10 }]))).toBe(0);
	});
	it('planted: a request that stops trying at its first 429 is lost', () => {
		planted(
			'mayRetry',
			() => false,
			() => expect(lost(runModel(refusing, [{ items: 10 }]))).toBeGreaterThan(0),
		);
	});
});

describe('probe: at most one request while refused per announced reset', () => {
	const spent = { limit: 5, windowMs: 4000, retryAfter: false, spentUntilMs: 4000 };
	/** Requests made while the key was still spent, before the reset it announced. */
	const whileSpent = (r: ModelResult) => r.log.filter((e) => e.window === 0).length;
	it('the key spent before the run: the refused first request, then the announced reset', () => {
		const result = runModel(spent, [{ items: 24 }]);
		expect(whileSpent(result)).toBe(1);
		expect(lost(result)).toBe(0);
	});
	it('planted: a 429 that holds nothing back is followed by more while the key is spent', () => {
		planted(
			'refusedAt',
			() => undefined,
			() => expect(whileSpent(runModel(spent, [{ items: 24 }]))).toBeGreaterThan(1),
		);
	});
});

describe('speed: only then, a run that fits what is free goes at once', () => {
	it('alone, 300 upserts at 120 per 60 s: first to last within 1.03× of 120 s', () => {
		const result = runModel(API, [{ items: 300 }]);
		expect(seconds(result)).toBeLessThanOrEqual(123.6);
	});
	it('beside a co-tenant spreading 10 of 30 per window, the node takes at least 18 of the 20 it leaves, at once', () => {
		const result = runModel(SHORT, [{ items: 100 }], { cotenantPerWindow: 10 });
		const node = perWindow(result.log, 0).slice(1);
		expect(least(node)).toBeGreaterThanOrEqual(18);
		expect(coTenant(result).refused).toBe(0);
	});
	// Eight processes started a second apart, 2 ms each way: the first two are alone for a moment
	// and send all their work at once; the others hold half of what is left for the look.
	const apart = Array.from({ length: 8 }, (_, i) => ({ items: 37, startMs: ((i * 5) % 8) * 125 }));
	const spread = (r: ModelResult) => {
		const ok = r.log.filter((e) => e.ok);
		return (ok[ok.length - 1].at - ok[0].at) / 1000;
	};
	it('eight processes started a second apart: 296 upserts at 120 per 60 s within one window of the 120 s minimum', () => {
		const result = runModel({ ...API, latencyMs: 2, jitterMs: 3 }, apart);
		expect(lost(result)).toBe(0);
		// The last window's 56 at a round trip each (10 ms at most), and a twentieth of a window.
		expect(spread(result)).toBeLessThanOrEqual(120 + 60 + 56 * 0.01 + 3);
	});
	// Eight processes of 12 started 200 ms apart, 2 ms each way: what the others spent in a window
	// seen whole is let go once they do not spend it again by the same moment.
	const twelveEach = () =>
		spread(
			runModel(
				{ ...SHORT, latencyMs: 2 },
				Array.from({ length: 8 }, (_, i) => ({ items: 12, startMs: ((i * 3) % 8) * 25 })),
			),
		);
	it('eight processes of 12 at 30 per 6 s started 200 ms apart: 96 upserts within two windows of the minimum', () => {
		expect(twelveEach()).toBeLessThanOrEqual(36.5);
	});
	// Eight processes of 12 at 30 per 6 s as they start (within 0 to 2 s), answers 1 to 10 ms late
	// each way and up to 30 ms more at random: 50 runs.
	const heldBackRuns = () => {
		const random = prng(56);
		return Array.from({ length: 50 }, (_, k) => {
			const within = [0, 50, 300, 1000, 2000][k % 5];
			const latencyMs = 1 + Math.floor(random() * 10);
			const jitterMs = Math.floor(random() * 30);
			const clients = Array.from({ length: 8 }, () => ({
				items: 12,
				startMs: Math.round(random() * within),
			}));
			return spread(runModel({ ...SHORT, latencyMs, jitterMs }, clients, { jitterSeed: k + 1 }));
		});
	};
	const twoLate = (spans: number[]) => spans.filter((s) => s > 27).length;
	it('eight processes of 12 at 30 per 6 s as they start, 50 runs: at most 2 runs end two windows late', () => {
		expect(twoLate(heldBackRuns())).toBeLessThanOrEqual(2);
	});
	// Queue mode: one worker runs three executions (three of its requests out at once), the other
	// one. To the first, the other's requests come between a third of its back-to-back answers.
	const threeAndOne = (latencyMs: number, starts: number[]) => () =>
		perWindow(
			runModel(
				{ limit: 120, windowMs: 6000, latencyMs },
				[0, 0, 0, 1].map((worker, i) => ({ items: 150, process: worker, startMs: starts[i] })),
			).log,
		).slice(0, -1);
	const unevenWorkers = [threeAndOne(3, [0, 0, 0, 0]), threeAndOne(5, [0, 100, 500, 900])];
	// The window where the one runs out: the three take no more than their own part of the last
	// window before the look (rule base), what it left at the look, and all of it from the next on.
	it('queue mode, a worker running three executions beside one running one, 120 per 6 s: what the one leaves when it runs out costs the three one window in all at most', () => {
		for (const windows of unevenWorkers.map((run) => run())) {
			console.log(`three and one executions: ${windows.join(', ')} per window`);
			expect(shortfall(windows, 120)).toBeLessThanOrEqual(120);
		}
	});
	it('planted: a pacer that never takes a slot (Shares.decide) does not finish', () => {
		planted(
			'decide',
			() => 1000,
			() => {
				const result = runModel(SHORT, [{ items: 100 }], {
					cotenantPerWindow: 10,
					untilMs: 120_000,
				});
				expect(result.clients[0].done).toBeLessThan(100);
			},
			Shares,
		);
	});

	// Two processes of 50 upserts at 120 per 60 s, started a second apart: their work fits the window.
	const fitting = () => {
		const result = runModel(API, [
			{ items: 50, startMs: 0 },
			{ items: 50, startMs: 1000 },
		]);
		return Math.max(...result.clients.map((c) => c.last)) / 1000;
	};
	it('two processes whose work fits the window take it at once: 100 upserts at 120 per 60 s done within 2 s', () => {
		expect(fitting()).toBeLessThanOrEqual(2);
	});
	it("planted: told nothing of how much a run has left (Pacer.reserve), the second process holds half for the look and ends at the window's end", () => {
		const reserve = Pacer.prototype.reserve;
		planted(
			'reserve',
			function (this: Pacer, now: number, share?: number) {
				return reserve.call(this, now, share, Infinity);
			},
			() => expect(fitting()).toBeGreaterThan(50),
		);
	});

	// Eight processes of 48 at 30 per 6 s, answers late at random: each request leaves room for
	// the others' requests on their way (Shares.guard).
	const eight = () => {
		const result = runModel(
			{ ...SHORT, jitterMs: 20 },
			Array.from({ length: 8 }, () => ({ items: 48 })),
		);
		return result.log.filter((e) => !e.ok).length / result.log.length;
	};
	it('eight processes of 48 at 30 per 6 s, answers up to 20 ms late each way: at most 2 % answered 429', () => {
		expect(eight()).toBeLessThanOrEqual(0.02);
	});
	it("planted: leaving no room for the others' requests on their way (Shares.guard), more are answered 429", () => {
		planted(
			'guard',
			() => 0,
			() => expect(eight()).toBeGreaterThan(0.03),
			Shares,
		);
	});
});
