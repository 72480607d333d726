import {
	backoffMs,
	Pacer,
	parseRateLimitHeaders,
	parseReset,
	parseRetryAfter,
	RESET_MARGIN_MS,
} from '../../nodes/MessagingCrm/transport/rateLimit';

const NOW = 1_800_000_000_000;

describe('parseReset', () => {
	it('reads seconds until the reset, fractions included', () => {
		expect(parseReset('30', NOW)).toBe(NOW + 30_000);
		expect(parseReset('1.250', NOW)).toBe(NOW + 1250);
	});
	it('reads epoch seconds', () => {
		expect(parseReset('1800000042', NOW)).toBe(1_800_000_042_000);
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
		).toEqual({ limit: 120, remaining: 7, resetAt: NOW + 2000 });
	});
	it('reads Retry-After as seconds or as an HTTP date', () => {
		expect(parseRetryAfter({ 'retry-after': '3' }, NOW)).toBe(3000);
		expect(parseRetryAfter({ 'retry-after': new Date(NOW + 5000).toUTCString() }, NOW)).toBe(5000);
		expect(parseRetryAfter({}, NOW)).toBeUndefined();
	});
});

describe('Pacer', () => {
	it('sends freely until it knows the budget, then spends it and waits for the reset', () => {
		const pacer = new Pacer();
		expect(pacer.reserve(NOW)).toBe(0);
		pacer.observe({ limit: 3, remaining: 2, resetAt: NOW + 1000 });
		expect(pacer.reserve(NOW)).toBe(0);
		pacer.observe({ limit: 3, remaining: 1, resetAt: NOW + 1000 });
		expect(pacer.reserve(NOW)).toBe(0);
		pacer.observe({ limit: 3, remaining: 0, resetAt: NOW + 1000 });
		expect(pacer.reserve(NOW + 400)).toBe(600 + RESET_MARGIN_MS);
		expect(pacer.reserve(NOW + 1000)).toBe(0);
		expect(pacer.remaining).toBe(2);
	});

	it('counts requests in flight against what the server reports', () => {
		const pacer = new Pacer();
		pacer.observe({ limit: 10, remaining: 3, resetAt: NOW + 1000 });
		expect(pacer.reserve(NOW)).toBe(0);
		expect(pacer.reserve(NOW)).toBe(0);
		// The first answer says 2 left, but the second request is still out.
		pacer.observe({ remaining: 2 });
		expect(pacer.remaining).toBe(1);
	});

	it('holds everything back after a 429 until the given time', () => {
		const pacer = new Pacer();
		pacer.blockUntil(NOW + 2000);
		expect(pacer.reserve(NOW)).toBe(2000 + RESET_MARGIN_MS);
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
