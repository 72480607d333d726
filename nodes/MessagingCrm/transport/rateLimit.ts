/**
 * Pacing under the API's rate limit. Pure bookkeeping: the caller passes the clock in and does
 * the sleeping, so the logic is tested without timers.
 */

export interface RateLimitReading {
	limit?: number;
	remaining?: number;
	/** Epoch milliseconds when the window resets. */
	resetAt?: number;
}

/** Values above this are epoch seconds; below, seconds until the reset (api-spec leaves it open). */
const EPOCH_SECONDS_THRESHOLD = 1_000_000_000;

/** Margin added after a reset before sending again, so that a rounded reset is not hit early. */
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

/** `X-RateLimit-Reset` as seconds-until-reset (fractions allowed) or as epoch seconds. */
export function parseReset(value: string | undefined, now: number): number | undefined {
	const n = nonNegative(value);
	if (n === undefined) return undefined;
	return n >= EPOCH_SECONDS_THRESHOLD ? Math.round(n * 1000) : now + Math.round(n * 1000);
}

export function parseRateLimitHeaders(
	headers: Record<string, unknown>,
	now: number,
): RateLimitReading {
	const limit = nonNegative(headerValue(headers, 'x-ratelimit-limit'));
	const remaining = nonNegative(headerValue(headers, 'x-ratelimit-remaining'));
	return {
		limit: limit === undefined ? undefined : Math.floor(limit),
		remaining: remaining === undefined ? undefined : Math.floor(remaining),
		resetAt: parseReset(headerValue(headers, 'x-ratelimit-reset'), now),
	};
}

/** `Retry-After` in seconds or as an HTTP date; milliseconds to wait, or undefined. */
export function parseRetryAfter(headers: Record<string, unknown>, now: number): number | undefined {
	const value = headerValue(headers, 'retry-after');
	if (value === undefined) return undefined;
	const seconds = nonNegative(value);
	if (seconds !== undefined) return Math.round(seconds * 1000);
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** How long the estimate of the other clients' rate leans on the last window's (ms). */
const PRIOR_WEIGHT_MS = 10_000;

/**
 * The budget of one key as this process sees it, shared fairly with the key's other clients (the
 * company's backend, another workflow, other queue-mode workers). `reserve` hands out a slot or
 * says how long to wait; `observe` corrects the picture with every response's headers.
 *
 * Instead of bursting the whole window at each reset, the pacer spreads what is left of the window
 * (X-RateLimit-Remaining) over the time until its reset (X-RateLimit-Reset), keeping back what the
 * other clients are seen to spend (the server's count minus our own, per window), so they keep
 * getting through and we take what they leave. A small burst is allowed, so that a short run does
 * not wait at all.
 */
export class Pacer {
	limit?: number;

	remaining?: number;

	resetAt?: number;

	private inFlight = 0;

	/** Slots that may go out at once; refilled at the paced rate. */
	private tokens = 0;

	private tokensAt = 0;

	/** The window the last answer was counted in: when we first saw it, and how many were ours. */
	private window?: { resetAt: number; since: number; ours: number };

	/** The window's length, once two windows were seen. */
	private windowMs?: number;

	/** Requests per millisecond that other clients of the key spend, this window and the last. */
	private othersRate = 0;

	/** The others' average over the last complete window, once one was seen. */
	private priorOthersRate?: number;

	/** What the others had spent in this window at the last answer. */
	private othersUsed = 0;

	/**
	 * Slots that may go out at once: a quarter of what is left after the others' part, at most 30,
	 * so that a short run does not wait while a long one is spread over the window.
	 */
	private burst(headroom = this.remaining ?? this.limit ?? 4): number {
		return Math.max(1, Math.min(30, Math.floor(headroom / 4)));
	}

	/**
	 * 0: a slot is reserved, send now. Otherwise: milliseconds to wait before asking again.
	 * `share` (0 to 1) caps the part of the key's limit this process takes per window.
	 */
	reserve(now: number, share = 1): number {
		if (this.resetAt !== undefined && now >= this.resetAt) {
			this.remaining = this.limit;
			this.resetAt = undefined;
			this.tokens = this.burst();
			this.tokensAt = now;
		}
		if (this.remaining === undefined) return this.take();
		if (this.resetAt === undefined) {
			if (this.remaining > 0) return this.take();
			// Spent, and no reset announced: probe again after a second.
			this.remaining = 1;
			return 1000;
		}
		const untilReset = Math.max(1, this.resetAt - now);
		// What the others are seen to spend until the reset, but never more than half of what is
		// left: two pacers (two queue-mode workers) each keeping everything for the other would
		// starve each other, and an estimate that only answers correct would never recover.
		// A tenth more than their rate, and two requests, for the unevenness of real clients.
		const forOthers =
			this.othersRate > 0
				? Math.min(
						Math.ceil(1.1 * this.othersRate * untilReset) + 2,
						Math.floor(this.remaining / 2),
					)
				: 0;
		let budget = this.remaining - forOthers;
		if (share < 1 && this.limit !== undefined) {
			budget = Math.min(
				budget,
				Math.floor(share * this.limit) - (this.window?.ours ?? 0) - this.inFlight,
			);
		}
		if (budget <= 0) return untilReset + RESET_MARGIN_MS;
		const rate = budget / untilReset;
		this.tokens = Math.min(this.burst(budget), this.tokens + (now - this.tokensAt) * rate);
		this.tokensAt = now;
		if (this.tokens < 1) return Math.max(1, Math.ceil((1 - this.tokens) / rate));
		this.tokens -= 1;
		return this.take();
	}

	private take(): 0 {
		if (this.remaining !== undefined) this.remaining--;
		this.inFlight++;
		return 0;
	}

	/** A reserved request got a response carrying these headers. */
	observe(reading: RateLimitReading, now: number): void {
		this.release();
		if (reading.limit !== undefined) this.limit = reading.limit;
		if (reading.remaining !== undefined) {
			// Requests still in flight were counted locally but not yet by the server.
			this.remaining = Math.max(0, reading.remaining - this.inFlight);
		}
		if (reading.resetAt === undefined) return;
		if (this.resetAt === undefined) {
			this.tokens = this.burst();
			this.tokensAt = now;
		}
		this.resetAt = reading.resetAt;
		this.track(reading, now);
	}

	/** Our share of the server's count in this window; the rest is the other clients'. */
	private track(reading: RateLimitReading, now: number): void {
		const resetAt = reading.resetAt as number;
		if (!this.window || resetAt > this.window.resetAt + 1000) {
			if (this.window) {
				const length = resetAt - this.window.resetAt;
				if (length > 0 && length < 3_600_000) this.windowMs = length;
				// The last window's average: what the others spent in it over its whole length.
				const span = this.windowMs ?? Math.max(1, this.window.resetAt - this.window.since);
				this.priorOthersRate = this.othersUsed / span;
			}
			this.window = { resetAt, since: this.windowMs ? resetAt - this.windowMs : now, ours: 0 };
			this.othersUsed = 0;
		}
		this.window.ours++;
		if (this.limit === undefined || reading.remaining === undefined) return;
		const others = Math.max(0, this.limit - reading.remaining - this.window.ours);
		this.othersUsed = others;
		// Without a last window to lean on, what was seen so far (over at least half a second).
		const elapsed = Math.max(500, now - this.window.since);
		this.othersRate =
			this.priorOthersRate === undefined
				? others / elapsed
				: (others + this.priorOthersRate * PRIOR_WEIGHT_MS) / (elapsed + PRIOR_WEIGHT_MS);
	}

	/** A reserved request ended without a usable response. */
	release(): void {
		this.inFlight = Math.max(0, this.inFlight - 1);
	}

	/** The server said to wait (429): nothing goes out before `until`. */
	blockUntil(until: number): void {
		this.remaining = 0;
		this.resetAt = Math.max(this.resetAt ?? 0, until);
	}
}

/** Exponential backoff with jitter, for attempt 1, 2, 3 … */
export function backoffMs(attempt: number, random: number, baseMs = 250, capMs = 8000): number {
	const ceiling = Math.min(capMs, baseMs * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + (ceiling / 2) * random);
}
