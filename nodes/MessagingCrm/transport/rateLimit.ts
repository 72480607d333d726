/**
 * Pacing under the API's rate limit. Pure bookkeeping: the caller passes the clock in and does
 * the sleeping, so the logic is tested without timers.
 */

export interface RateLimitReading {
	limit?: number;
	remaining?: number;
	/**
	 * When the window resets, in epoch milliseconds as written: seconds-until-reset are added to this
	 * host's clock, epoch seconds are the server's clock (the pacer corrects them by its offset).
	 */
	resetAt?: number;
	/** `X-RateLimit-Reset` was epoch seconds (the server's clock) rather than seconds until the reset. */
	resetEpoch?: boolean;
	/** The reset was written in whole seconds: the real reset may lie up to a second either side. */
	resetWhole?: boolean;
	/** The server's clock from its HTTP `Date` header (whole seconds), in epoch milliseconds. */
	serverDate?: number;
}

/** Values above this are epoch seconds; below, seconds until the reset (api-spec leaves it open). */
const EPOCH_SECONDS_THRESHOLD = 1_000_000_000;

/** Values above this are epoch milliseconds (as seconds they would be the year 5138; as ms, 1973). */
const EPOCH_MS_THRESHOLD = 100_000_000_000;

/** A reset further ahead than this makes no sense for a rate limit: it is taken as unknown. */
export const MAX_RESET_AHEAD_MS = 3_600_000;

/** Margin added after the earliest moment a reset can have happened before the probe goes. */
export const RESET_MARGIN_MS = 25;

/** A header by name, whatever its case; the first of repeated values, trimmed. */
export function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
	const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
	const raw = key === undefined ? undefined : headers[key];
	const value = Array.isArray(raw) ? raw[0] : raw;
	if (typeof value === 'number') return String(value);
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function nonNegative(value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	const n = Number(value);
	return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * `X-RateLimit-Reset` as seconds until the reset (whole or fractional), epoch seconds or epoch
 * milliseconds, told apart by size; in epoch milliseconds.
 */
export function parseReset(value: string | undefined, now: number): number | undefined {
	const n = nonNegative(value);
	if (n === undefined) return undefined;
	if (n >= EPOCH_MS_THRESHOLD) return Math.round(n);
	return n >= EPOCH_SECONDS_THRESHOLD ? Math.round(n * 1000) : now + Math.round(n * 1000);
}

export function parseRateLimitHeaders(
	headers: Record<string, unknown>,
	now: number,
): RateLimitReading {
	const limit = nonNegative(headerValue(headers, 'x-ratelimit-limit'));
	const remaining = nonNegative(headerValue(headers, 'x-ratelimit-remaining'));
	const reset = headerValue(headers, 'x-ratelimit-reset');
	const resetAt = parseReset(reset, now);
	const date = headerValue(headers, 'date');
	const serverDate = date === undefined ? NaN : Date.parse(date);
	const reading: RateLimitReading = {
		limit: limit === undefined ? undefined : Math.floor(limit),
		remaining: remaining === undefined ? undefined : Math.floor(remaining),
		resetAt,
	};
	if (resetAt !== undefined) {
		reading.resetEpoch = Number(reset) >= EPOCH_SECONDS_THRESHOLD;
		// Epoch milliseconds are exact; whole seconds may be rounded either way.
		reading.resetWhole = /^\d+$/.test(reset as string) && Number(reset) < EPOCH_MS_THRESHOLD;
	}
	if (!Number.isNaN(serverDate)) reading.serverDate = serverDate;
	return reading;
}

/**
 * `Retry-After` in seconds or as an HTTP date (the server's clock, moved to ours by
 * `clockOffsetMs`, server minus local); milliseconds to wait, or undefined.
 */
export function parseRetryAfter(
	headers: Record<string, unknown>,
	now: number,
	clockOffsetMs = 0,
): number | undefined {
	const value = headerValue(headers, 'retry-after');
	if (value === undefined) return undefined;
	const seconds = nonNegative(value);
	if (seconds !== undefined) return Math.round(seconds * 1000);
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - clockOffsetMs - now);
}

/** How long the estimate of the other clients' rate leans on the last window's (ms). */
const PRIOR_WEIGHT_MS = 10_000;

/** The growing wait between probes of a reset that has not come yet: 100 ms, 125 ms … 2 s. */
export function probeStepMs(tries: number): number {
	return Math.round(Math.min(2000, 100 * 1.25 ** tries));
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
	/** When this process first saw the window. */
	since: number;
	/** Answers of this window that were ours. */
	ours: number;
	/** What the other clients had spent in it at the last answer. */
	others: number;
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
 * - Shared, it spreads what is left of the window (X-RateLimit-Remaining) over the time until its
 *   reset, keeping back what the other clients are seen to spend (the server's count minus our
 *   own, per window), and bursts little: the fewer requests per client the more clients it sees.
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

	/** Slots that may go out at once when shared; refilled at the paced rate. */
	private tokens = 0;

	private tokensAt = 0;

	/** The server's X-RateLimit-Remaining at the last answer. */
	private serverRemaining?: number;

	private window?: Window;

	/** The window's length, once two were seen. */
	private windowMs?: number;

	/** The last complete window: what the others spent in it, what we did, over how long. */
	private prior?: { others: number; ours: number; rate: number };

	/** Requests per millisecond that other clients of the key spend, this window and the last. */
	private othersRate = 0;

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
		if (this.probe === undefined && window !== undefined && now >= this.probeStart(window)) {
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
			this.probe = { tries: 0, nextAt: now + probeStepMs(0), inFlight: false, sentAt: now };
			return probeStepMs(0);
		}
		const untilReset = Math.max(1, this.probeStart(window) - now);
		if (share >= 1 && this.alone()) return this.remaining > 0 ? this.take() : untilReset;
		const clients = this.clients();
		// What the others are seen to spend until the reset, a tenth more and two requests for the
		// unevenness of real clients; but never more than their fair part of what is left (half
		// with one other client, 7/8 with seven), not rounded: pacers keeping everything for each
		// other would starve each other, and rounding would let eight overrun the window's last slots.
		const forOthers =
			this.othersRate > 0
				? Math.min(
						Math.ceil(1.1 * this.othersRate * untilReset) + 2,
						this.remaining * Math.max(0.5, (clients - 1) / clients),
					)
				: 0;
		let budget = this.remaining - forOthers;
		if (share < 1 && this.limit !== undefined) {
			budget = Math.min(budget, Math.floor(share * this.limit) - window.ours - this.inFlight);
		}
		if (budget <= 0) return untilReset;
		const rate = budget / untilReset;
		this.tokens = Math.min(this.burst(budget, clients), this.tokens + (now - this.tokensAt) * rate);
		this.tokensAt = now;
		if (this.tokens < 1) return Math.max(1, Math.ceil((1 - this.tokens) / rate));
		this.tokens -= 1;
		return this.take();
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
		this.track(reading, resetAt, now);
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
		const floor = window.whole ? -1000 : 0;
		const learned = this.lateness.length ? Math.min(...this.lateness) : floor;
		const base = window.whole ? window.hi : window.lo;
		return base + Math.max(floor, learned) + RESET_MARGIN_MS;
	}

	/** A probe answered without a new window: the next one after a growing step. */
	private missed(probe: Probe, now: number, probeOut: boolean): void {
		if (probeOut) probe.missAt = probe.sentAt;
		probe.nextAt = Math.max(probe.nextAt, now + probeStepMs(probe.tries));
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
		const late = probe.sentAt - RESET_MARGIN_MS - (window.whole ? window.hi : window.lo);
		// Confirmed at once: the reset may have been earlier still; look a little earlier next time.
		this.lateness.push(probe.missAt === undefined ? late - 50 : late);
		if (this.lateness.length > LATENESS_MEMORY) this.lateness.shift();
	}

	private startWindow(reading: RateLimitReading, resetAt: number | undefined, now: number): void {
		const old = this.window;
		if (resetAt === undefined) {
			this.window = undefined;
			return;
		}
		if (old) {
			const length = resetAt - old.lo;
			if (length > 0 && length < 3_600_000) this.windowMs = length;
			const span = this.windowMs ?? Math.max(1, old.lo - old.since);
			this.prior = { others: old.others, ours: old.ours, rate: old.others / span };
		}
		this.window = {
			lo: resetAt,
			hi: resetAt,
			whole: reading.resetWhole === true,
			since: this.windowMs ? resetAt - this.windowMs : now,
			ours: 0,
			others: 0,
		};
		this.othersRate = this.prior?.rate ?? 0;
		this.tokens = this.burst(reading.remaining ?? this.limit ?? 4, this.clients());
		this.tokensAt = now;
	}

	/** Our share of the server's count in this window; the rest is the other clients'. */
	private track(reading: RateLimitReading, resetAt: number, now: number): void {
		const window = this.window as Window;
		window.lo = Math.min(window.lo, resetAt);
		window.hi = Math.max(window.hi, resetAt);
		window.ours++;
		if (this.limit === undefined || reading.remaining === undefined) return;
		// Our requests still out may have been counted already: the others' part is a lower bound.
		window.others = Math.max(0, this.limit - reading.remaining - window.ours - this.inFlight);
		// Without a last window to lean on, what was seen so far (over at least half a second).
		const elapsed = Math.max(500, now - window.since);
		this.othersRate =
			this.prior === undefined
				? window.others / elapsed
				: (window.others + this.prior.rate * PRIOR_WEIGHT_MS) / (elapsed + PRIOR_WEIGHT_MS);
	}

	/** No other client seen on the key, in this window or the last. */
	private alone(): boolean {
		return (this.window?.others ?? 0) === 0 && (this.prior?.others ?? 0) === 0;
	}

	/** How many clients share the key, from what the others spent beside us (1 to 16). */
	private clients(): number {
		const seen =
			this.prior && this.prior.ours > 0
				? this.prior
				: { others: this.window?.others ?? 0, ours: this.window?.ours ?? 0 };
		return Math.min(16, Math.max(1, 1 + seen.others / Math.max(1, seen.ours)));
	}

	/**
	 * Slots that may go out at once when shared: a quarter of what is left per client, at most 30,
	 * so that a short run does not wait while a long one is spread over the window.
	 */
	private burst(headroom: number, clients: number): number {
		return Math.max(1, Math.min(30, Math.floor(headroom / (4 * clients))));
	}
}

/** Exponential backoff with jitter, for attempt 1, 2, 3 … */
export function backoffMs(attempt: number, random: number, baseMs = 250, capMs = 8000): number {
	const ceiling = Math.min(capMs, baseMs * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + (ceiling / 2) * random);
}
