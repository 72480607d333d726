/* eslint-disable no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The pacer against a limiter that frees its slots one at a time (a sliding log, a token bucket),
 * in the model (test/harness/rateModel.ts): simulated time, no wall clock. One promise of
 * docs/pacer.md (how it reads the server).
 */
import type { Limiter, ResetForm } from '../harness/rateModel';
import { items, lost, refused, runModel } from '../harness/rateModel';
import { planted } from '../harness/planted';
import { prng } from '../harness/prng';
import { ServerWindow } from '../../nodes/MessagingCrm/transport/rateWindow';

const SHORT = { limit: 30, windowMs: 6000 };

describe('a limiter that frees slots one at a time', () => {
	const forms: Array<[string, Limiter, ResetForm, number]> = [
		['a sliding log, reset in whole seconds rounded down', 'sliding', 'floor', 12],
		['a sliding log, reset to the millisecond', 'sliding', 'exact', 12],
		['a sliding log, reset in epoch milliseconds', 'sliding', 'epoch-ms', 12],
		['a token bucket, reset to the millisecond', 'bucket', 'exact', 9],
		['a token bucket, reset in epoch milliseconds', 'bucket', 'epoch-ms', 9],
	];
	it.each(forms)(
		'75 upserts at 30 per 6 s, %s, no Retry-After: at most 2 % answered 429, within 1.10× of the minimum',
		(label, limiter, reset, minimum) => {
			const result = runModel({ ...SHORT, limiter, reset, retryAfter: false }, items(75), {
				untilMs: 200_000,
			});
			const { first, last } = result.clients[0];
			console.log(
				`${label}: ${((last - first) / 1000).toFixed(2)} s, ${refused(result)} of ${result.log.length} answered 429`,
			);
			expect(lost(result)).toBe(0);
			expect(refused(result) / result.log.length).toBeLessThanOrEqual(0.02);
			expect(last - first).toBeLessThanOrEqual(1.1 * minimum * 1000);
		},
	);
	// However late each answer comes (a loaded machine), one burst per window as its slots free. The
	// probe at the reset may land after part of the last burst's slots freed: a reset named soon,
	// not how many slots are free, is what tells a limiter that refills from a new fixed window.
	it('a sliding log of 10 per 4 s, the reset exact, 500 random members (15 to 45 upserts, each way 2 to 6 ms and up to 60 ms more at random): none lost, at most one 429 per reset, one burst per window of the minimum (and the first window’s look a window later)', () => {
		const family = slidingFamily(500);
		const worst = worstOf(family);
		console.log(
			`sliding log, reset exact: the worst of 500 ${worst.ofMinimum.toFixed(3)}x its minimum (${worst.label}, bursts of ${worst.bursts.join(', ')}, ${worst.refused} refused)`,
		);
		expect(slidingMisses(family)).toEqual([]);
	});

	it('planted: a pacer that never takes the server for one that refills makes bursts of the wrong size, and the check says so', () => {
		const begin = ServerWindow.prototype.begin;
		planted(
			'begin',
			function (this: ServerWindow, ...args: Parameters<ServerWindow['begin']>) {
				const began = begin.apply(this, args);
				this.refills = false;
				return began;
			},
			() => expect(slidingMisses(slidingFamily(50)).length).toBeGreaterThan(0),
			ServerWindow,
		);
	});

	// Rounded down, a reset names the next slot to within a second, a quarter of this window: what
	// is held is that nothing is lost; the rest is measured (docs/pacer.md).
	it('a sliding log of 10 per 4 s, the reset in whole seconds rounded down, the same 500 members: none lost', () => {
		const family = slidingFamily(500, 'floor');
		const worst = worstOf(family);
		console.log(
			`sliding log, reset rounded down: ${family.filter((m) => m.refused > m.windows - 1).length} of 500 met more than one 429 per reset, ${family.filter((m) => m.bursts.length !== m.windows).length} sent a window in two bursts; the worst ${worst.ofMinimum.toFixed(2)}x its minimum (${worst.label})`,
		);
		expect(family.filter((m) => m.lost > 0)).toEqual([]);
	});

	it('a sliding log whose slots have all freed when the probe lands (10 per 4 s, 1 ms each way): taken for a fixed window, the last slot of each window held for the look, 37 upserts none lost, none refused, at most a window late (15.8 s against 12 s)', () => {
		const result = runModel(
			{ limit: 10, windowMs: 4000, limiter: 'sliding', retryAfter: false, latencyMs: 1 },
			items(37),
		);
		const { first, last } = result.clients[0];
		console.log(`sliding log, the probe after every slot freed: ${(last - first) / 1000} s`);
		expect(lost(result)).toBe(0);
		expect(refused(result)).toBe(0);
		expect(last - first).toBeLessThanOrEqual(4 * 4000);
	});
});

interface SlidingRun {
	label: string;
	lost: number;
	refused: number;
	/** Runs of accepted requests less than half a window apart. */
	bursts: number[];
	/** The windows the member needs at the least. */
	windows: number;
	/** Its first to last request over the minimum (whole windows apart). */
	ofMinimum: number;
}

/** Random members of the sliding-log family, 10 per 4 s (seeded), with resets written `reset`. */
function slidingFamily(members: number, reset: ResetForm = 'exact'): SlidingRun[] {
	const random = prng(56);
	return Array.from({ length: members }, () => {
		const n = 15 + Math.floor(random() * 31);
		const latencyMs = 2 + Math.floor(random() * 5);
		const jitterMs = Math.floor(random() * 61);
		const result = runModel(
			{
				limit: 10,
				windowMs: 4000,
				limiter: 'sliding',
				reset,
				retryAfter: false,
				latencyMs,
				jitterMs,
			},
			items(n),
			{ jitterSeed: Math.floor(random() * 2 ** 31), untilMs: 120_000 },
		);
		const times = result.log.filter((e) => e.ok).map((e) => e.at);
		const bursts: number[] = [];
		times.forEach((t, j) => {
			if (j > 0 && t - times[j - 1] <= 2000) bursts[bursts.length - 1]++;
			else bursts.push(1);
		});
		const windows = Math.ceil(n / 10);
		const { first, last } = result.clients[0];
		return {
			label: `${n} upserts, answers ${latencyMs} + up to ${jitterMs} ms late`,
			lost: lost(result),
			refused: refused(result),
			bursts,
			windows,
			ofMinimum: (last - first) / ((windows - 1) * 4000),
		};
	});
}

/** The run that took longest against its minimum. */
function worstOf(family: SlidingRun[]): SlidingRun {
	return family.reduce((a, m) => (m.ofMinimum > a.ofMinimum ? m : a));
}

/**
 * Members that lost an item, met more 429s than the resets they waited for, or took more bursts
 * than windows: one request more a window later is allowed, the first window's look (its last
 * slot, sent at the window's end, frees at the next one's end).
 */
function slidingMisses(family: SlidingRun[]): string[] {
	const extra = (m: SlidingRun) =>
		m.bursts.length === m.windows + 1 && m.bursts[m.bursts.length - 1] === 1;
	return family
		.filter(
			(m) =>
				m.lost > 0 || m.refused > m.windows - 1 || (m.bursts.length !== m.windows && !extra(m)),
		)
		.map((m) => `${m.label}: bursts of ${m.bursts.join(', ')}, ${m.refused} refused`);
}
