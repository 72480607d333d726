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

/**
 * The budget of one key as this process sees it. `reserve` hands out a slot or says how long to
 * wait; `observe` corrects the picture with every response's headers.
 */
export class Pacer {
	limit?: number;

	remaining?: number;

	resetAt?: number;

	private inFlight = 0;

	/** 0: a slot is reserved, send now. Otherwise: milliseconds to wait before asking again. */
	reserve(now: number): number {
		if (this.resetAt !== undefined && now >= this.resetAt) {
			this.remaining = this.limit;
			this.resetAt = undefined;
		}
		if (this.remaining === undefined || this.remaining > 0) {
			if (this.remaining !== undefined) this.remaining--;
			this.inFlight++;
			return 0;
		}
		if (this.resetAt === undefined) {
			// Spent, and no reset announced: probe again after a second.
			this.remaining = 1;
			return 1000;
		}
		return this.resetAt - now + RESET_MARGIN_MS;
	}

	/** A reserved request got a response carrying these headers. */
	observe(reading: RateLimitReading): void {
		this.release();
		if (reading.limit !== undefined) this.limit = reading.limit;
		if (reading.remaining !== undefined) {
			// Requests still in flight were counted locally but not yet by the server.
			this.remaining = Math.max(0, reading.remaining - this.inFlight);
		}
		if (reading.resetAt !== undefined) this.resetAt = reading.resetAt;
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
