/**
 * The sandbox's rate limit per key: a fixed window that starts at the key's first request after the
 * last one ended, or a sliding log, under the server's current settings, and the headers each answer
 * carries (the reset in the format the settings name, Date on a clock that may be behind).
 */
import type { RateLimitConfig } from './contract';
import { Halt } from './contract';
import { ApiError } from './errors';

export class KeyWindows {
	private windows = new Map<string, { start: number; count: number }>();

	/** The sliding log's accepted requests per key (their times). */
	private slides = new Map<string, number[]>();

	constructor(private readonly config: () => RateLimitConfig) {}

	/** Every key starts over (new settings, a reset of the sandbox). */
	clear(): void {
		this.windows.clear();
		this.slides.clear();
	}

	/** When the key's fixed window began, if it has one. */
	windowStart(keyId: string): number | undefined {
		return this.windows.get(keyId)?.start;
	}

	/**
	 * Counts a request of `keyId` arriving at `now`: the headers its answer carries, and whether it
	 * is over the limit (then how long until a slot frees).
	 */
	take(
		keyId: string,
		now: number,
	): {
		headers: Record<string, string>;
		exceeded: boolean;
		retryAfterMs: number;
	} {
		const cfg = this.config();
		if (!cfg.enabled) return { headers: {}, exceeded: false, retryAfterMs: 0 };
		const { resetAt, exceeded, used } =
			cfg.limiter === 'sliding' ? this.slide(keyId, now) : this.fix(keyId, now);
		const untilReset = Math.max(0, resetAt - now);
		const behindMs = (cfg.clockBehindSeconds ?? 0) * 1000;
		const serverReset = (resetAt - behindMs) / 1000;
		const reset = {
			seconds: (untilReset / 1000).toFixed(3),
			'seconds-floor': String(Math.floor(untilReset / 1000)),
			'seconds-ceil': String(Math.ceil(untilReset / 1000)),
			epoch: String(Math.ceil(serverReset)),
			'epoch-floor': String(Math.floor(serverReset)),
			'epoch-ms': String(Math.round(serverReset * 1000)),
		}[cfg.resetFormat];
		const headers: Record<string, string> = {
			'X-RateLimit-Limit': String(cfg.limit),
			'X-RateLimit-Remaining': String(Math.max(0, cfg.limit - used)),
			'X-RateLimit-Reset': reset,
		};
		if (cfg.dateHeader === 'server') headers.Date = new Date(now - behindMs).toUTCString();
		return { headers, exceeded, retryAfterMs: untilReset };
	}

	/** A fixed window per key: counts the request arriving at `now`, or says it is over the limit. */
	private fix(keyId: string, now: number): { resetAt: number; exceeded: boolean; used: number } {
		let window = this.windows.get(keyId);
		if (!window || now >= window.start + this.config().windowMs) {
			window = { start: now, count: 0 };
			this.windows.set(keyId, window);
		}
		const exceeded = window.count >= this.config().limit;
		if (!exceeded) window.count++;
		return { resetAt: window.start + this.config().windowMs, exceeded, used: window.count };
	}

	/** A sliding log per key: the reset names when the oldest request counted frees its slot. */
	private slide(keyId: string, now: number): { resetAt: number; exceeded: boolean; used: number } {
		const { limit, windowMs } = this.config();
		const taken = (this.slides.get(keyId) ?? []).filter((t) => t > now - windowMs);
		const exceeded = taken.length >= limit;
		if (!exceeded) taken.push(now);
		this.slides.set(keyId, taken);
		return { resetAt: taken.length ? taken[0] + windowMs : now, exceeded, used: taken.length };
	}

	/** Step 2 of the pipeline: the request counted, or a 429 (Retry-After unless the settings say not). */
	admit(keyId: string, now: number): Record<string, string> {
		const rate = this.take(keyId, now);
		if (!rate.exceeded) return rate.headers;
		const seconds = Math.max(1, Math.ceil(rate.retryAfterMs / 1000));
		const { limit, windowMs, retryAfter } = this.config();
		const error = new ApiError(
			429,
			'rate_limited',
			`Rate limit of ${limit} requests per ${windowMs / 1000} s exceeded`,
			{ retry_after_seconds: seconds },
		);
		const headers =
			retryAfter === false ? rate.headers : { ...rate.headers, 'Retry-After': String(seconds) };
		throw new Halt(error, headers);
	}
}
