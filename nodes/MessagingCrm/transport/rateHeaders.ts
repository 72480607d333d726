/** Reading the rate-limit headers as servers write them (api-spec leaves the reset's unit open). */

export interface RateLimitReading {
	limit?: number;
	remaining?: number;
	/** When the window resets, in epoch ms: seconds until it on this host's clock, an epoch on the server's. */
	resetAt?: number;
	/** `X-RateLimit-Reset` was an epoch (seconds or milliseconds, the server's clock). */
	resetEpoch?: boolean;
	/** The reset was written in whole seconds: the real reset may lie up to a second either side. */
	resetWhole?: boolean;
	/** The server's clock from its HTTP `Date` header (whole seconds), in epoch milliseconds. */
	serverDate?: number;
}

/** Above this, epoch seconds; below, seconds until the reset. */
const EPOCH_SECONDS_THRESHOLD = 1_000_000_000;
/** Above this, epoch milliseconds (as seconds they would be the year 5138; as ms, 1973). */
const EPOCH_MS_THRESHOLD = 100_000_000_000;
/** A reset further ahead than this makes no sense for a rate limit: it is taken as unknown. */
export const MAX_RESET_AHEAD_MS = 3_600_000;

/** A header by name, whatever its case; the first of repeated values, trimmed. */
export function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
	const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
	const raw = key === undefined ? undefined : headers[key];
	const value = Array.isArray(raw) ? raw[0] : raw;
	if (typeof value === 'number') return String(value);
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function nonNegative(value: string | undefined): number | undefined {
	const n = Number(value);
	return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** `X-RateLimit-Reset` (seconds until it, epoch seconds or milliseconds, told apart by size) in ms. */
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

/** `Retry-After` in seconds or as an HTTP date (moved to our clock by `clockOffsetMs`), in ms. */
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
