/**
 * Pacing under the API's rate limit: what the pacer decides (send now, wait, probe a reset) from
 * what it believes about the server (its window, its clock, where its resets really fall) and
 * about the key's other clients (rateOthers.ts). Pure bookkeeping: the caller passes the clock in
 * and does the sleeping, so the logic is tested without timers.
 */
import type { RateLimitReading } from './rateHeaders';
import { MAX_RESET_AHEAD_MS } from './rateHeaders';
import { Others } from './rateOthers';

export type { RateLimitReading } from './rateHeaders';

/** Margin added after the earliest moment a reset can have happened before the probe goes. */
export const RESET_MARGIN_MS = 25;

/**
 * The wait between probes of a reset that has not come yet: doubling from a twelfth of the window
 * (between 0.1 and 1 s: 0.5 s at a 6 s window, 1 s at 60 s), at most 2 s. Each refused probe is a
 * 429 on the wire: a reset a second late costs two, not ten 100 ms apart.
 */
export function probeStepMs(tries: number, windowMs: number): number {
	const first = Math.min(1000, Math.max(100, windowMs / 12));
	return Math.round(Math.min(2000, first * 2 ** tries));
}

/** While a probe is out, the other requests ask again after this long. */
const PROBE_POLL_MS = 20;

/** A probe with no answer after this long is taken as lost (a cancelled execution). */
const PROBE_LOST_MS = 35_000;

/** How many windows the learned position of the real reset looks back on. */
const LATENESS_MEMORY = 4;

/** The window's length when none was seen yet: the API's own (api-spec, Limits). */
const DEFAULT_WINDOW_MS = 60_000;

/** What a 429 may say beyond its headers. */
export interface Refusal {
	/** The server's Retry-After, in milliseconds. */
	retryAfterMs?: number;
}

interface Window {
	/** The earliest and latest reset the answers of this window announced (this host's clock). */
	lo: number;
	hi: number;
	/** Announced in whole seconds. */
	whole: boolean;
	/** When this process first saw it. */
	seenAt: number;
}

interface Probe {
	/** Probes answered so far without confirming a new window (refused, or still the old window). */
	tries: number;
	/** No probe before this. */
	nextAt: number;
	inFlight: boolean;
	sentAt: number;
	/** When the last probe that did not confirm was sent. */
	missAt?: number;
	/** The server's X-RateLimit-Remaining before the probe: a new window answers more. */
	before?: number;
	/** The old window's announced reset, and where the probing of it began (this host's clock). */
	announced?: number;
	base?: number;
}

/**
 * The budget of one key as this process sees it, shared fairly with the key's other clients (the
 * company's backend, another workflow, other queue-mode workers). `reserve` hands out a slot or
 * says how long to wait; `observe` corrects the picture with every response's headers.
 *
 * - Alone on the key (no other client seen in this window or the last), the pacer sends what the
 *   window has left as fast as the requests come, and waits for the reset.
 * - Shared, it sends at once what is left of the window (X-RateLimit-Remaining) once what the
 *   other clients are expected to spend until the reset is kept back (see Others), and never less
 *   than its fair part of the window (the limit over the clients it sees) while any is left: the
 *   tail of a run goes as early as the others leave room, not spread over the window.
 * - A reset is never trusted on its own: when it is due, one probe goes out, and only an answer
 *   showing the new window (Remaining back up, or a later reset) lets the rest go. A probe that is
 *   refused or still meets the old window waits a growing step and tries again; where the real
 *   reset fell is learned (the server's clock from its Date header, resets that came late) and
 *   the next probe goes there.
 */
export class Pacer {
	limit?: number;

	/** What this process may still send in the current window, as far as it knows. */
	remaining?: number;

	private inFlight = 0;

	/** The server's X-RateLimit-Remaining at the last answer. */
	private serverRemaining?: number;

	private window?: Window;

	/** The window's length, once two were seen. */
	private windowMs?: number;

	/**
	 * The server frees slots one at a time (a sliding window or a token bucket): what Remaining
	 * says goes at once, and each reset names when the next slot frees.
	 */
	private refills = false;

	/** The key's other clients, as the server's count shows them. */
	private others = new Others();

	/** A lower bound of the server's clock minus this host's (ms), from the Date header. */
	private clockOffset?: number;

	/** Where the real reset fell, relative to where probing began, in the last windows (ms). */
	private lateness: number[] = [];

	/** Set while the window's reset is due and not yet confirmed by the server. */
	private probe?: Probe;

	/** The server's clock minus this host's, as far as known (0 when it sends no Date). */
	get serverClockOffset(): number {
		return this.clockOffset ?? 0;
	}

	/** When the current window resets at the earliest (this host's clock), if known. */
	get resetAt(): number | undefined {
		return this.window === undefined ? undefined : this.probeStart(this.window);
	}

	/**
	 * 0: a slot is reserved, send now. Otherwise: milliseconds to wait before asking again.
	 * `share` (0 to 1) caps the part of the key's limit this process takes per window.
	 */
	reserve(now: number, share = 1): number {
		const window = this.window;
		// The reset is due: one probe finds out whether it came. Alone with slots left, the requests
		// themselves find out (a server that frees slots one at a time names the next free slot as
		// its reset, and has slots all the same).
		const spent = (this.remaining ?? 0) <= 0 || share < 1 || !this.alone();
		if (!this.probe && window && spent && now >= this.probeStart(window)) {
			this.probe = {
				tries: 0,
				nextAt: now,
				inFlight: false,
				sentAt: now,
				before: this.serverRemaining,
				announced: window.lo,
				base: this.probeStart(window),
			};
		}
		const probe = this.probe;
		if (probe) {
			if (probe.inFlight && now - probe.sentAt < PROBE_LOST_MS) return PROBE_POLL_MS;
			if (now < probe.nextAt) return probe.nextAt - now;
			probe.inFlight = true;
			probe.sentAt = now;
			return this.take();
		}
		if (this.remaining === undefined) return this.take();
		if (window === undefined) {
			if (this.remaining > 0) return this.take();
			// Spent, and no reset announced: probe with a growing step.
			const step = probeStepMs(0, this.windowLength());
			this.probe = { tries: 0, nextAt: now + step, inFlight: false, sentAt: now };
			return step;
		}
		const untilReset = Math.max(1, this.probeStart(window) - now);
		if (share >= 1 && this.alone()) return this.remaining > 0 ? this.take() : untilReset;
		const others = this.others;
		const limit = this.limit ?? 0;
		const mine = others.ours + this.inFlight;
		const left = (this.serverRemaining ?? 0) - this.inFlight;
		const resetAt = now + untilReset;
		const answered = others.answeredAt ?? now;
		// Never less than our fair part of the window while any is left.
		const fair = Math.min(this.remaining, others.fairPart(limit) - mine);
		let budget: number;
		let asked: number;
		if (others.pacers()) {
			// Beside clients that send as we do: beyond our part, what is left once they have sent
			// theirs and what clients that spread their requests spend until the reset is kept back.
			const pacers = others.keepPacers(limit, now);
			budget = Math.max(fair, left - pacers - others.keepSpread(answered, resetAt, limit));
			asked = left - pacers - others.keepSpread(now, resetAt, limit);
		} else {
			// Beside clients that spread their requests: what is left once what they are expected to
			// spend is kept back.
			budget = Math.max(fair, left - others.keep(now, resetAt, limit));
			asked = left - others.keep(now, resetAt, limit, true);
		}
		// Had the others spent nothing since our last answer, there would be room: a request tells.
		if (budget < 1 && asked >= 1 && others.mayAsk(now)) budget = 1;
		if (share < 1 && this.limit !== undefined) {
			budget = Math.min(budget, Math.floor(share * this.limit) - mine);
		}
		if (budget >= 1) return this.take();
		// Room opens as the others' expected rest shrinks: look again a little later.
		return Math.min(untilReset, Math.max(PROBE_POLL_MS, Math.round(this.windowLength() / 200)));
	}

	/**
	 * A reserved request got an answer carrying these headers; `refused` when it was a 429.
	 */
	observe(reading: RateLimitReading, now: number, refused?: Refusal): void {
		this.inFlight = Math.max(0, this.inFlight - 1);
		// Answers are not matched to requests: any answer while the probe is out is taken as its.
		const probe = this.probe;
		const probeOut = probe?.inFlight === true;
		if (probe) probe.inFlight = false;
		if (reading.serverDate !== undefined) {
			// Date is whole seconds and was written before we read it: each answer bounds the offset
			// from below. The bound sinks slowly so that a server whose clock is reset is followed.
			const sample = reading.serverDate - now;
			this.clockOffset =
				this.clockOffset === undefined ? sample : Math.max(sample, this.clockOffset - 10);
		}
		if (reading.limit !== undefined) this.limit = reading.limit;
		const resetAt = this.localReset(reading, now);
		if (refused) {
			const nonsense = reading.resetAt !== undefined && resetAt === undefined;
			return this.refusedAt(now, resetAt, refused, probeOut, reading.resetWhole === true, nonsense);
		}
		if (probe) {
			const newWindow =
				probe.before === undefined ||
				reading.remaining === undefined ||
				reading.remaining >= probe.before ||
				(resetAt !== undefined &&
					probe.announced !== undefined &&
					resetAt > probe.announced + this.jumpMs());
			if (!newWindow) {
				// Still the old window: the reset was announced early. The slot was used, nothing lost.
				this.missed(probe, now, probeOut);
				this.serverRemaining = reading.remaining;
				this.remaining = Math.max(0, (reading.remaining ?? 0) - this.inFlight);
				return;
			}
			this.learn(probe);
			this.probe = undefined;
			// A server that does not count in headers: back to sending freely.
			if (reading.remaining === undefined) this.remaining = this.serverRemaining = undefined;
			this.startWindow(reading, resetAt, now);
		} else if (
			resetAt !== undefined &&
			this.window !== undefined &&
			resetAt > this.window.lo + this.jumpMs()
		) {
			// The server moved on before the reset we expected: a new window all the same.
			this.startWindow(reading, resetAt, now);
		}
		if (reading.remaining !== undefined) {
			this.serverRemaining = reading.remaining;
			// Requests still in flight were counted locally but not yet by the server.
			this.remaining = Math.max(0, reading.remaining - this.inFlight);
		}
		if (resetAt === undefined) return;
		if (this.window === undefined) this.startWindow(reading, resetAt, now);
		this.track(resetAt);
		this.count(reading, now);
	}

	/** A reserved request ended without a usable response (the probe may have been it). */
	release(): void {
		this.inFlight = Math.max(0, this.inFlight - 1);
		if (this.probe?.inFlight) this.probe.inFlight = false;
	}

	/**
	 * Whether a request refused with 429 since `since` keeps trying: while the next probe is due
	 * within the patience (see `patienceMs`).
	 */
	mayRetry(since: number, now: number): boolean {
		return (this.probe?.nextAt ?? now) - since <= this.patienceMs();
	}

	/**
	 * How long a request keeps trying through 429s: two windows of the key (the API's 60 s when
	 * none was seen yet), at least 30 s.
	 */
	patienceMs(): number {
		return Math.max(30_000, 2 * this.windowLength());
	}

	private take(): 0 {
		if (this.remaining !== undefined) this.remaining--;
		this.inFlight++;
		return 0;
	}

	/**
	 * A reading's reset on this host's clock; undefined when it makes no sense (further than an
	 * hour ahead, or behind by more than a window): then the reset is unknown.
	 */
	private localReset(reading: RateLimitReading, now: number): number | undefined {
		if (reading.resetAt === undefined) return undefined;
		const local = reading.resetEpoch ? reading.resetAt - this.serverClockOffset : reading.resetAt;
		if (local - now > MAX_RESET_AHEAD_MS || now - local > this.windowLength()) return undefined;
		return local;
	}

	/** The window's length as seen, or the API's own before two were seen. */
	private windowLength(): number {
		return this.windowMs ?? DEFAULT_WINDOW_MS;
	}

	/** Resets less than this apart are the same window (whole seconds may differ by one). */
	private jumpMs(): number {
		return Math.max(1500, (this.windowMs ?? 0) / 2);
	}

	/**
	 * When to probe a window's reset: its announced reset (a whole-second one may be a second
	 * early: rounded up, so the real one can lie a second before the latest reading), moved by where
	 * the real reset fell in the last windows.
	 */
	private probeStart(window: Window): number {
		// Shared, a probe too early is a 429 and one too late still finds our part kept for us: no
		// earlier than where a reset in whole seconds can be, rounded either way.
		const floor = window.whole && this.alone() ? window.hi - 1000 - resetBase(window) : 0;
		const learned = this.lateness.length ? Math.min(...this.lateness) : floor;
		return resetBase(window) + Math.max(floor, learned) + RESET_MARGIN_MS;
	}

	/**
	 * A probe answered without a new window: the next one after a growing step; a reset announced
	 * in whole seconds is first probed at the latest reading (it may have been rounded down).
	 */
	private missed(probe: Probe, now: number, probeOut: boolean): void {
		if (probeOut) probe.missAt = probe.sentAt;
		// A reset in whole seconds may lie up to the latest reading (rounded down): that first.
		const window = this.window;
		const rounded = window?.whole ? [window.hi, window.lo + 1000] : [];
		const next = rounded.map((t) => t + RESET_MARGIN_MS).find((t) => t > now);
		if (next !== undefined && probe.tries < 2) {
			probe.nextAt = Math.max(probe.nextAt, next);
		} else {
			probe.nextAt = Math.max(probe.nextAt, now + probeStepMs(probe.tries, this.windowLength()));
		}
		probe.tries++;
	}

	/**
	 * A 429: nothing goes until a probe, after the server's wait, the announced reset (first contact
	 * or not), or a growing step; a reset that made no sense, after a window's length.
	 */
	private refusedAt(
		now: number,
		resetAt: number | undefined,
		refusal: Refusal,
		probeOut: boolean,
		whole: boolean,
		nonsense: boolean,
	): void {
		this.remaining = 0;
		this.serverRemaining = 0;
		let probe = this.probe;
		if (!probe) {
			// Refused in the middle of a window: any answer that is not a 429 shows a new one.
			probe = { tries: 0, nextAt: now, inFlight: false, sentAt: now, before: 0 };
			if (this.window) probe.announced = this.window.lo;
			this.probe = probe;
		}
		this.missed(probe, now, probeOut);
		const wait = refusal.retryAfterMs;
		if (wait !== undefined && wait <= MAX_RESET_AHEAD_MS) {
			probe.nextAt = Math.max(probe.nextAt, now + wait);
		}
		if (resetAt !== undefined && resetAt > now) {
			// A reset still ahead is waited for, also at first contact (a key spent before the run).
			const ahead = this.window
				? this.probeStart({ ...this.window, lo: resetAt, hi: resetAt })
				: resetAt + RESET_MARGIN_MS;
			probe.nextAt = Math.max(probe.nextAt, ahead);
		} else if (resetAt !== undefined && whole && !this.window && now - resetAt < 1000) {
			// Before any window was seen, a reset written as now in whole seconds (rounded down): the
			// real one lies within the next second. Once windows were seen, where resets really fall
			// is learned (probeStart).
			probe.nextAt = Math.max(probe.nextAt, resetAt + 1000 + RESET_MARGIN_MS);
		} else if (nonsense && wait === undefined) {
			probe.nextAt = Math.max(probe.nextAt, now + this.windowLength());
		}
	}

	/** A probe confirmed the new window: remember where the real reset fell. */
	private learn(probe: Probe): void {
		const window = this.window;
		if (probe.base === undefined || window === undefined) return;
		const base = resetBase(window);
		const late = probe.sentAt - RESET_MARGIN_MS - base;
		// Confirmed at once: the reset may have been earlier still; look a little earlier next time.
		// After a miss a long step before (a reset later than it said), the reset fell between the
		// two probes: next time, halfway.
		const missed = probe.missAt === undefined ? late : probe.missAt - RESET_MARGIN_MS - base;
		if (probe.missAt === undefined) this.lateness.push(late - 50);
		else this.lateness.push(missed >= 0 ? (missed + late) / 2 : late);
		if (this.lateness.length > LATENESS_MEMORY) this.lateness.shift();
	}

	private startWindow(reading: RateLimitReading, resetAt: number | undefined, now: number): void {
		const old = this.window;
		if (resetAt === undefined) {
			this.window = undefined;
			this.others.forget();
			return;
		}
		const length = old ? resetAt - old.lo : 0;
		// The next reset came far sooner than the last window lasted, with few slots back: the server
		// frees them one at a time (a sliding window, a token bucket), and a reset names the next.
		if (old && this.limit !== undefined && reading.remaining !== undefined) {
			const few = reading.remaining < this.limit / 2;
			const soon = length < (old.lo - old.seenAt) / 2;
			if ((few && soon) || (reading.remaining <= 1 && length < 1000)) this.refills = true;
		}
		if (old && !this.refills && length > 0 && length < MAX_RESET_AHEAD_MS) this.windowMs = length;
		this.window = { lo: resetAt, hi: resetAt, whole: reading.resetWhole === true, seenAt: now };
		const start = this.windowMs ? Math.min(now, resetAt - this.windowMs) : now;
		this.others.begin(start, Math.max(1, resetAt - start));
	}

	/** Our answer in this window: the rest of the server's count is the other clients'. */
	private track(resetAt: number): void {
		const window = this.window as Window;
		window.lo = Math.min(window.lo, resetAt);
		window.hi = Math.max(window.hi, resetAt);
	}

	/** Our answer: the server's count minus ours (this one and those still out) is the others'. */
	private count(reading: RateLimitReading, now: number): void {
		if (this.limit === undefined || reading.remaining === undefined) return;
		const others = this.limit - reading.remaining - this.others.ours - 1 - this.inFlight;
		this.others.answer(now, Math.max(0, others), reading.remaining);
	}

	/** No other client seen on the key, in this window or the last. */
	private alone(): boolean {
		return this.refills || this.others.alone();
	}
}

/**
 * Where a window's reset is taken to fall before anything is learned: the announced reset; in
 * whole seconds, a second after the earliest reading (rounded down, the real one lies before
 * that; rounded up, at the earliest reading, where learning moves the probe).
 */
function resetBase(window: Window): number {
	return window.whole ? window.lo + 1000 : window.lo;
}

/** Exponential backoff with jitter, for attempt 1, 2, 3 … */
export function backoffMs(attempt: number, random: number, baseMs = 250, capMs = 8000): number {
	const ceiling = Math.min(capMs, baseMs * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + (ceiling / 2) * random);
}
