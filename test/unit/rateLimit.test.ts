/* eslint-disable no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
import {
	parseRateLimitHeaders,
	parseReset,
	parseRetryAfter,
} from '../../nodes/MessagingCrm/transport/rateHeaders';
import { Pacer } from '../../nodes/MessagingCrm/transport/rateLimit';
import { backoffMs } from '../../nodes/MessagingCrm/transport/request';
import { probeStepMs, RESET_MARGIN_MS } from '../../nodes/MessagingCrm/transport/rateWindow';
import { Shares } from '../../nodes/MessagingCrm/transport/rateShares';
import { runModel } from '../harness/rateModel';

const NOW = 1_800_000_000_000;

describe('parseReset', () => {
	it('reads seconds until the reset, fractions included', () => {
		expect(parseReset('30', NOW)).toBe(NOW + 30_000);
		expect(parseReset('1.250', NOW)).toBe(NOW + 1250);
	});
	it('reads epoch seconds', () => {
		expect(parseReset('1800000042', NOW)).toBe(1_800_000_042_000);
	});
	it('reads epoch milliseconds (once taken for seconds: a reset 57,000 years away)', () => {
		expect(parseReset('1800000042250', NOW)).toBe(1_800_000_042_250);
		expect(parseRateLimitHeaders({ 'x-ratelimit-reset': '1800000042250' }, NOW)).toMatchObject({
			resetEpoch: true,
			resetWhole: false,
		});
	});
	it('ignores garbage', () => {
		expect(parseReset('soon', NOW)).toBeUndefined();
		expect(parseReset('-3', NOW)).toBeUndefined();
		expect(parseReset(undefined, NOW)).toBeUndefined();
	});
});

describe('parseRateLimitHeaders and parseRetryAfter', () => {
	it('reads the three headers in any case, arrays included', () => {
		expect(
			parseRateLimitHeaders(
				{ 'x-ratelimit-limit': '120', 'X-RateLimit-Remaining': ['7'], 'x-ratelimit-reset': '2' },
				NOW,
			),
		).toEqual({
			limit: 120,
			remaining: 7,
			resetAt: NOW + 2000,
			resetEpoch: false,
			resetWhole: true,
		});
	});
	it('reads Retry-After as seconds or as an HTTP date', () => {
		expect(parseRetryAfter({ 'retry-after': '3' }, NOW)).toBe(3000);
		expect(parseRetryAfter({ 'retry-after': new Date(NOW + 5000).toUTCString() }, NOW)).toBe(5000);
		expect(parseRetryAfter({}, NOW)).toBeUndefined();
	});
});

describe('Pacer', () => {
	it('sends freely until it knows the budget; alone, sends what the window has left at once (but for a run with more to send, the last slot at the look), then probes the reset', () => {
		const pacer = new Pacer();
		expect(pacer.reserve(NOW)).toBe(0);
		pacer.observe({ limit: 3, remaining: 2, resetAt: NOW + 1000 }, NOW);
		expect(pacer.reserve(NOW)).toBe(0);
		expect(pacer.reserve(NOW)).toBe(0);
		pacer.observe({ limit: 3, remaining: 1, resetAt: NOW + 1000 }, NOW);
		pacer.observe({ limit: 3, remaining: 0, resetAt: NOW + 1000 }, NOW);
		// Spent: nothing until the reset.
		expect(pacer.reserve(NOW + 10)).toBe(990 + RESET_MARGIN_MS);
		// At the reset one probe goes; the others wait for its answer.
		expect(pacer.reserve(NOW + 1000 + RESET_MARGIN_MS)).toBe(0);
		expect(pacer.reserve(NOW + 1000 + RESET_MARGIN_MS)).toBeGreaterThan(0);
		// The server confirms the new window: the rest go, all but the last slot, which waits for the
		// look just before the reset (a client that joined meanwhile takes it and shows itself); a
		// run with nothing more to send than what is free (one request) takes it at once.
		pacer.observe({ limit: 3, remaining: 2, resetAt: NOW + 2030 }, NOW + 1030);
		expect(pacer.reserve(NOW + 1030, 1, 10)).toBe(0);
		expect(pacer.reserve(NOW + 1030, 1, 10)).toBeGreaterThan(0);
		expect(pacer.reserve(NOW + 1030, 1, 1)).toBe(0);
	});

	it('alone, a last slot that missed its look goes once the reset is due: it never waits, asking every millisecond, on a window that has ended', () => {
		const pacer = new Pacer();
		pacer.reserve(NOW);
		pacer.observe({ limit: 3, remaining: 2, resetAt: NOW + 1000 }, NOW);
		pacer.reserve(NOW, 1, 10);
		pacer.observe({ limit: 3, remaining: 1, resetAt: NOW + 1000 }, NOW);
		// The last slot was due at the look (950 ms); this process asks again only at 976 ms, past the
		// first window's short look (Shares.lookEnded). It follows each wait it is told.
		let t = NOW + 976;
		const asked: number[] = [];
		for (let wait = -1; wait !== 0 && asked.length < 50; t += wait) {
			wait = pacer.reserve(t, 1, 10);
			asked.push(wait);
		}
		expect(asked[asked.length - 1]).toBe(0);
		expect(t).toBeLessThanOrEqual(NOW + 1000 + RESET_MARGIN_MS);
		expect(asked.length).toBeLessThanOrEqual(4);
	});

	it('does not trust a reset the server has not confirmed: a refused probe waits a growing step', () => {
		const pacer = new Pacer();
		pacer.reserve(NOW);
		pacer.observe({ limit: 1, remaining: 0, resetAt: NOW + 1000 }, NOW);
		const t = NOW + 1000 + RESET_MARGIN_MS;
		expect(pacer.reserve(t)).toBe(0);
		// Refused, and the reset it names is already past: a step of a twelfth of the window (not
		// yet seen: the API's 60 s, so 1 s), then twice that.
		pacer.observe({ limit: 1, remaining: 0, resetAt: t }, t, {});
		expect(pacer.reserve(t)).toBe(probeStepMs(0, 60_000));
		expect(probeStepMs(0, 60_000)).toBe(1000);
		expect(pacer.reserve(t + 1000)).toBe(0);
		pacer.observe({ limit: 1, remaining: 0, resetAt: t + 1000 }, t + 1000, {});
		expect(pacer.reserve(t + 1000)).toBe(probeStepMs(1, 60_000));
		expect(probeStepMs(1, 60_000)).toBe(2000);
		expect(probeStepMs(0, 6000)).toBe(500);
	});

	it('shared, before a whole window was seen: half of what is left at the first answer waits for the look, the rest goes at once; a run that fits goes whole', () => {
		const pacer = new Pacer();
		// Another client spent 19 of 120 before our first answer.
		pacer.reserve(NOW);
		pacer.observe({ limit: 120, remaining: 100, resetAt: NOW + 60_000 }, NOW);
		const later = NOW + 1000;
		const waits = Array.from({ length: 100 }, (_, i) => pacer.reserve(later, 1, 200 - i));
		const sent = waits.findIndex((w) => w > 0);
		// 100 left: 50 held for the look (ServerWindow.lookAt), 50 go at once.
		expect(sent).toBe(50);
		expect(waits[sent]).toBeGreaterThan(0);
		// A run with 40 requests to send fits what is not held: it goes whole.
		const whole = new Pacer();
		whole.reserve(NOW);
		whole.observe({ limit: 120, remaining: 100, resetAt: NOW + 60_000 }, NOW);
		const all = Array.from({ length: 40 }, (_, i) => whole.reserve(later, 1, 40 - i));
		expect(all.every((w) => w === 0)).toBe(true);
	});

	it('after a 429 from a server that sends no rate-limit headers, sends freely again once one answer got through', () => {
		const pacer = new Pacer();
		pacer.reserve(NOW);
		pacer.observe({}, NOW, { retryAfterMs: 1000 });
		expect(pacer.reserve(NOW + 1000)).toBe(0);
		pacer.observe({}, NOW + 1010);
		expect([1, 2, 3].map(() => pacer.reserve(NOW + 1010))).toEqual([0, 0, 0]);
	});

	it('counts requests in flight against what the server reports', () => {
		const pacer = new Pacer();
		// Nothing known yet: both go out at once.
		expect(pacer.reserve(NOW)).toBe(0);
		expect(pacer.reserve(NOW)).toBe(0);
		// The first answer says 2 left, but the second request is still out.
		pacer.observe({ limit: 10, remaining: 2, resetAt: NOW + 1000 }, NOW);
		expect(pacer.remaining).toBe(1);
	});

	it('holds everything back after a 429 until its Retry-After, and is patient for two windows', () => {
		const pacer = new Pacer();
		pacer.reserve(NOW);
		pacer.observe({}, NOW, { retryAfterMs: 2000 });
		expect(pacer.reserve(NOW)).toBe(2000);
		expect(pacer.mayRetry(NOW, NOW)).toBe(true);
		// With no window seen, the API's 60 s: 120 s of patience.
		expect(pacer.patienceMs()).toBe(120_000);
		expect(pacer.mayRetry(NOW - 119_000, NOW)).toBe(false);
	});

	it('a Retry-After shorter than its own step, with no reset named, is the step: doubling while refused, 20 ms at least, 2 s at most', () => {
		// What each probe waits after a run of 429s carrying this Retry-After (ms).
		const steps = (retryAfterMs: number) => {
			const pacer = new Pacer();
			let now = NOW;
			const waits: number[] = [];
			pacer.reserve(now);
			for (let i = 0; i < 5; i++) {
				pacer.observe({}, now, { retryAfterMs });
				const wait = pacer.reserve(now);
				waits.push(wait);
				now += wait;
				expect(pacer.reserve(now)).toBe(0);
			}
			return waits;
		};
		expect(steps(20)).toEqual([20, 40, 80, 160, 320]);
		// Retry-After: 0 is no licence to hammer.
		expect(steps(0)).toEqual([20, 40, 80, 160, 320]);
		expect(steps(300)).toEqual([300, 600, 1200, 2000, 2000]);
		// A longer one is honoured as it is (the pacer's own step is a twelfth of the window, at most 1 s, doubling).
		expect(steps(5000)).toEqual([5000, 5000, 5000, 5000, 5000]);
	});

	it('a window seen before keeps its reset: a later 429 with Retry-After: 0 and no reset sends nothing until that reset is due', () => {
		const pacer = new Pacer();
		pacer.reserve(NOW);
		// In whole seconds, as the API may write it: the reset lies up to a second after 30 s.
		pacer.observe({ limit: 10, remaining: 5, resetAt: NOW + 30_000, resetWhole: true }, NOW);
		pacer.reserve(NOW + 10);
		pacer.observe({}, NOW + 20, { retryAfterMs: 0 });
		expect(pacer.reserve(NOW + 20)).toBeGreaterThanOrEqual(1000);
		let now = NOW + 20;
		let sent = 0;
		while (now < NOW + 29_000) {
			const wait = pacer.reserve(now);
			if (wait === 0) {
				sent++;
				pacer.observe({}, now + 5, { retryAfterMs: 0 });
			}
			now += Math.max(wait, 5);
		}
		// Nothing: the reset it saw is still ahead, and a 429 that names none does not move it.
		expect(sent).toBe(0);
	});

	it("reads an epoch reset on the server's clock, learned from Date", () => {
		const pacer = new Pacer();
		pacer.reserve(NOW);
		// The server's clock is 2 s behind ours: its epoch reset is 2 s behind too.
		pacer.observe(
			{ limit: 1, remaining: 0, resetAt: NOW + 8000, resetEpoch: true, serverDate: NOW - 2000 },
			NOW,
		);
		expect(pacer.probeDueAt).toBe(NOW + 10_000 + RESET_MARGIN_MS);
	});

	it('never takes more than its share of the limit in a window', () => {
		const pacer = new Pacer();
		pacer.observe({ limit: 100, remaining: 99, resetAt: NOW + 1000 }, NOW);
		let sent = 1;
		for (let t = NOW; t < NOW + 1000 + RESET_MARGIN_MS; t += 1) {
			if (pacer.reserve(t, 0.3) === 0) {
				sent++;
				pacer.observe({ limit: 100, remaining: 100 - sent, resetAt: NOW + 1000 }, t);
			}
		}
		expect(sent).toBe(30);
	});

	it('a probe answered by the old window (its reset announced early, slots left under Share) starts no window: the next probe goes a step later', () => {
		// 10 per 1.5 s in fixed windows, each starting at the first request after the last ended. The
		// server's clock is 500 ms slow and it sends no Date: every reset it announces (epoch ms)
		// comes 500 ms before its counter starts over. At Share 0.5 the pacer leaves 5 slots of each
		// window, so the probe of the announced reset is answered 200 by the old window, with less
		// Remaining than before and the same reset.
		const limit = 10;
		const windowMs = 1500;
		let start: number | undefined;
		let count = 0;
		const serve = (t: number) => {
			if (start === undefined || t >= start + windowMs) {
				start = t;
				count = 0;
			}
			const ok = count < limit;
			if (ok) count++;
			const reading = { limit, remaining: limit - count, resetAt: start + windowMs - 500 };
			return { ok, reading: { ...reading, resetEpoch: true }, started: start };
		};
		const pacer = new Pacer();
		const sent: Array<{ at: number; answeredAt: number; ok: boolean; window: number }> = [];
		for (let t = NOW; t < NOW + 2200;) {
			const wait = pacer.reserve(t, 0.5, 100);
			if (wait > 0) {
				t += wait;
				continue;
			}
			const { ok, reading, started } = serve(t + 5);
			pacer.observe(reading, t + 10, ok ? undefined : {});
			sent.push({ at: t, answeredAt: t + 10, ok, window: started });
			t += 10;
		}
		const firstWindow = sent.filter((s) => s.window === NOW + 5);
		// Its part (5) before the announced reset (NOW + 1000), then one probe, met by the old window.
		expect(firstWindow.filter((s) => s.at < NOW + 1000)).toHaveLength(5);
		expect(firstWindow).toHaveLength(6);
		const probe = firstWindow[5];
		expect(probe.at).toBeGreaterThanOrEqual(NOW + 1000 + RESET_MARGIN_MS);
		// Not a new window: nothing more until the next probe, a step after that answer
		// (ServerWindow.nextProbe; no window length seen yet: the API's 60 s, so 1 s), which finds the
		// real one and lets the rest of the part go (under Share, what it leaves is the others').
		expect(sent[6].at).toBe(probe.answeredAt + probeStepMs(0, 60_000));
		expect(sent.slice(6).map((s) => s.window)).toEqual(Array(5).fill(sent[6].at + 5));
		expect(sent.filter((s) => !s.ok)).toEqual([]);
	});
});

/**
 * Two pacers on one key (two queue-mode workers), each asking for slots as fast as it gets them;
 * the window is 6 s for the first 60 s, then 60 s (a limit changed under them).
 */
function twoWorkers() {
	const limit = 120;
	let windowMs = 6000;
	const end = 360_000;
	let windowStart: number | undefined;
	let count = 0;
	const accepted: number[] = [];
	let refused = 0;
	const answer = (t: number) => {
		if (t >= 60_000 && windowMs === 6000) {
			windowMs = 60_000;
			windowStart = undefined;
		}
		if (windowStart === undefined || t >= windowStart + windowMs) {
			windowStart = t;
			count = 0;
		}
		const ok = count < limit;
		if (ok) {
			count++;
			accepted.push(t);
		} else refused++;
		return { ok, reading: { limit, remaining: limit - count, resetAt: windowStart + windowMs } };
	};
	const workers = [new Pacer(), new Pacer()].map((pacer) => ({ pacer, at: 0 }));
	for (;;) {
		const w = workers[0].at <= workers[1].at ? workers[0] : workers[1];
		if (w.at >= end) break;
		const wait = w.pacer.reserve(w.at);
		if (wait > 0) {
			w.at += wait;
			continue;
		}
		const { ok, reading } = answer(w.at);
		w.at += 5;
		w.pacer.observe(reading, w.at, ok ? undefined : {});
	}
	// The long windows after the change, full ones only: 60-120, 120-180 … 300-360 s (by the server's windows).
	const inLong = accepted.filter((t) => t >= 120_000 && t < 360_000).length / 4;
	return { refused, requests: accepted.length + refused, perLongWindow: inLong };
}

describe('what the pacer must not learn from (found by a read of the change)', () => {
	it('a pause of several windows between two runs is neither a late reset nor a long window', () => {
		const pacer = new Pacer();
		pacer.reserve(NOW);
		pacer.observe({ limit: 120, remaining: 0, resetAt: NOW + 60_000 }, NOW + 10);
		// Nothing to send for four minutes; then a run: the reset is long past, one probe goes.
		const later = NOW + 300_000;
		expect(pacer.reserve(later)).toBe(0);
		pacer.observe({ limit: 120, remaining: 0, resetAt: later + 60_000 }, later + 10);
		// The next reset is probed when it comes, not four minutes after it.
		expect(pacer.probeDueAt).toBeLessThanOrEqual(later + 60_000 + 1000);
		expect(pacer.reserve(later + 60_000 + 1000)).toBe(0);
	});

	it('after a 429 in the middle of a window, a late answer from before it is not a limiter that frees slots', () => {
		const pacer = new Pacer();
		const reset = NOW + 60_000;
		pacer.reserve(NOW);
		pacer.reserve(NOW);
		pacer.observe({ limit: 10, remaining: 8, resetAt: reset }, NOW + 10);
		pacer.reserve(NOW + 20);
		pacer.observe({ limit: 10, remaining: 0, resetAt: reset }, NOW + 30, {});
		// The answer to a request sent before the 429 comes after it, in the same window.
		pacer.observe({ limit: 10, remaining: 1, resetAt: reset }, NOW + 40);
		expect((pacer as unknown as { server: { refills: boolean } }).server.refills).toBe(false);
	});

	it('alone, a 429 in the middle of a window is not spending of others (a limiter that frees slots one at a time refuses with nobody else)', () => {
		const pacer = new Pacer();
		const reset = NOW + 6000;
		pacer.reserve(NOW);
		pacer.reserve(NOW);
		pacer.reserve(NOW);
		pacer.observe({ limit: 10, remaining: 9, resetAt: reset }, NOW + 10);
		pacer.observe({ limit: 10, remaining: 8, resetAt: reset }, NOW + 20);
		pacer.observe({ limit: 10, remaining: 0, resetAt: reset }, NOW + 30, {});
		const shares = (pacer as unknown as { shares: Shares }).shares;
		expect(shares.alone()).toBe(true);
		const current = (shares as unknown as { current: { refused?: unknown } }).current;
		expect(current.refused).toBeUndefined();
	});

	it("a 429 that names a reset already past (an old window's request, answered late) is not the new window's spending", () => {
		const pacer = new Pacer();
		const reset = NOW + 1000;
		// What the others had spent in the window at our last answer.
		const others = () => {
			const shares = (pacer as unknown as { shares: { current: { marks: { others: number }[] } } })
				.shares;
			const marks = shares.current.marks;
			return marks.length ? marks[marks.length - 1].others : 0;
		};
		pacer.reserve(NOW);
		pacer.reserve(NOW);
		pacer.observe({ limit: 10, remaining: 5, resetAt: reset }, NOW + 10);
		pacer.observe({ limit: 10, remaining: 4, resetAt: reset }, NOW + 12);
		expect(others()).toBeGreaterThan(0);
		// One more request goes out; the window is spent meanwhile and the reset is probed.
		pacer.reserve(NOW + 20);
		pacer.observe({ limit: 10, remaining: 0, resetAt: reset }, NOW + 30);
		pacer.reserve(NOW + 20);
		const probeAt = reset + 1000;
		expect(pacer.reserve(probeAt)).toBe(0);
		pacer.observe({ limit: 10, remaining: 9, resetAt: reset + 1000 }, probeAt + 10);
		expect(others()).toBe(0);
		// The request sent in the old window is answered now, refused, naming the old reset: nothing
		// is taken as the others wanting more in the new window.
		pacer.observe({ limit: 10, remaining: 0, resetAt: reset }, probeAt + 20, {});
		const current = (pacer as unknown as { shares: { current: { refused?: unknown } } }).shares
			.current;
		expect(current.refused).toBeUndefined();
		expect(others()).toBe(0);
	});

	it('what the others spent in the last window seen whole is kept, less what they spent since, and let go a 60th of the window after the moment they had spent it by', () => {
		const shares = new Shares();
		shares.begin(NOW, 60_000);
		shares.answer(NOW + 10, 0, 119, false, true);
		// Another client spends 40 by 20 s into the window; our answer at its end sees them.
		shares.answer(NOW + 20_000, 40, 70, false, false);
		shares.answer(NOW + 59_600, 40, 60, true, false);
		shares.begin(NOW + 60_000, 60_000);
		shares.answer(NOW + 60_010, 0, 119, false, false);
		expect(shares.kept(NOW + 60_020)).toBe(40);
		// 10 of them spent again: 30 kept.
		shares.answer(NOW + 65_000, 10, 100, false, false);
		expect(shares.kept(NOW + 65_010)).toBe(30);
		// 21 s into the window they have not spent the 40 they had by 20 s: let go.
		expect(shares.kept(NOW + 80_500)).toBe(30);
		expect(shares.kept(NOW + 81_100)).toBe(0);
	});

	it('a 429 before the reset beside another client: it wanted a quarter of the limit more, half of it at least, the limit at most', () => {
		const shares = new Shares();
		shares.begin(NOW, 60_000);
		shares.answer(NOW + 10, 0, 119, false, true);
		shares.answer(NOW + 30_000, 10, 100, false, false);
		shares.refused(NOW + 40_000, 110, 120);
		shares.begin(NOW + 60_000, 60_000);
		shares.answer(NOW + 60_010, 0, 119, false, false);
		// 110 spent, 30 more wanted: all 120.
		expect(shares.kept(NOW + 60_020)).toBe(120);
	});

	it('the guard: the median of the others counted between two of our answers back to back; after a wait, the most, twice the median and two at most', () => {
		const shares = new Shares();
		shares.begin(NOW, 60_000);
		const counts = [0, 1, 2, 3, 4, 40];
		counts.forEach((others, i) => shares.answer(NOW + 10 * i, others, 100, false, true));
		// Steps 1, 1, 1, 1, 36: the burst of 36 is not a process of ours.
		expect(shares.guard(false)).toBe(1);
		expect(shares.guard(true)).toBe(4);
	});
});

describe('the pacer shares the key (a model, simulated time)', () => {
	it('two workers on one key keep going, also when the window grows from 6 s to 60 s: at least 90 % of the limit, few 429s', () => {
		const { refused, requests, perLongWindow } = twoWorkers();
		console.log(
			`model, two workers: ${perLongWindow} per 60-s window together (of 120), ${refused}/${requests} refused`,
		);
		expect(perLongWindow).toBeGreaterThanOrEqual(0.9 * 120);
		expect(refused / requests).toBeLessThanOrEqual(0.01);
	});

	it('planted: a pacer that bursts the whole window at the reset starves a co-tenant', () => {
		// The model can fail: a greedy client (the behaviour before pacing) refuses most of the co-tenant's requests.
		const original = Pacer.prototype.reserve;
		try {
			Pacer.prototype.reserve = function (this: Pacer, now: number): number {
				const at = this.probeDueAt;
				if (at !== undefined && now < at && this.remaining === 0) return at - now;
				return 0;
			};
			const result = runModel({ limit: 120, windowMs: 60_000 }, [{ items: 1200 }], {
				cotenantPerWindow: 40,
				untilMs: 600_000,
			});
			expect(result.cotenant.refused / result.cotenant.sent).toBeGreaterThan(0.5);
		} finally {
			Pacer.prototype.reserve = original;
		}
	});
});

describe('backoffMs', () => {
	it('grows exponentially within jitter bounds and is capped', () => {
		expect(backoffMs(1, 0)).toBe(125);
		expect(backoffMs(1, 1)).toBe(250);
		expect(backoffMs(3, 1)).toBe(1000);
		expect(backoffMs(20, 1)).toBe(8000);
	});
});
