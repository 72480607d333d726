/* eslint-disable no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
import { runNode } from '../harness/engine';
import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';

let sandbox: Sandbox;
let apiKey: string;

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.stop());
beforeEach(() => {
	sandbox.reset('demo');
	sandbox.rateLimit = { enabled: true, limit: 120, windowMs: 60_000, resetFormat: 'seconds' };
	apiKey = sandbox.mintKey();
});

const getAgents = (items = 1, continueOnFail = false) =>
	runNode({
		parameters: { resource: 'agent', operation: 'getMany' },
		credentials: { baseUrl: sandbox.url, apiKey },
		items: Array.from({ length: items }, (_, i) => ({ json: { i } })),
		continueOnFail,
	});

/** Create or Update of `count` customers, one at a time, through n8n's engine. */
const upserts = (count: number, prefix: number) =>
	runNode({
		parameters: {
			resource: 'customer',
			operation: 'upsert',
			phone: '={{ $json.phone }}',
			additionalFields: { fullName: '={{ $json.name }}' },
		},
		credentials: { baseUrl: sandbox.url, apiKey },
		items: Array.from({ length: count }, (_, i) => ({
			json: { phone: `+1555${prefix}${String(100000 + i)}`, name: `Skew ${i}` },
		})),
		continueOnFail: true,
	});

describe('pacing under the rate limit', () => {
	it.each(['seconds', 'epoch'] as const)(
		'200 requests against 20 per 2 s (reset as %s): no 429 reaches the output, nothing lost',
		async (resetFormat) => {
			sandbox.rateLimit = { enabled: true, limit: 20, windowMs: 2000, resetFormat };
			const count = resetFormat === 'seconds' ? 200 : 60;
			const { items, error } = await getAgents(count, true);
			expect(error).toBeUndefined();
			expect(items.filter((i) => i.json.error)).toEqual([]);
			expect(items).toHaveLength(count * 2);
			const log = sandbox.requests();
			expect(log).toHaveLength(count + log.filter((r) => r.status === 429).length);
			// The pacer waits for the window instead of running into it. An epoch in whole seconds leaves
			// the reset a second open: where the probe found it is learned a little earlier each window
			// (ServerWindow.learn), so one probe may meet the old window by a few milliseconds. A
			// failure shows each refused request after the three before it: when each went, and in
			// which of the server's windows.
			const refused = log.filter((r) => r.status === 429);
			const probes = resetFormat === 'epoch' ? 1 : 0;
			expect(
				refused
					.slice(probes)
					.map((r) =>
						log
							.filter((q) => q.seq > r.seq - 4 && q.seq <= r.seq)
							.map(({ seq, at, status, windowStart }) => ({ seq, at, status, windowStart })),
					),
			).toEqual([]);
		},
		120_000,
	);

	it('waits out an injected 429 with Retry-After and then succeeds', async () => {
		sandbox.injectFault({
			path: '/agents',
			count: 1,
			kind: 'status',
			status: 429,
			headers: { 'Retry-After': '1' },
			body: { error: { code: 'rate_limited', message: 'Slow down', details: {} } },
		});
		const { items, error } = await getAgents();
		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
		const [refused, retried] = sandbox.requests();
		expect([refused.status, retried.status]).toEqual([429, 200]);
		// The server's view, as a strict server would judge it: the retry came no sooner than its
		// Retry-After allowed, give or take a timer's millisecond (a slow machine only makes the gap
		// longer, so this cannot fail for want of speed).
		expect(retried.at - refused.at).toBeGreaterThanOrEqual(990);
	});
});

describe('a server whose clock and counter disagree with ours (no Retry-After)', () => {
	it.each([
		[
			'epoch reset 1 s behind the host, Date on the host clock',
			{ resetFormat: 'epoch', clockBehindSeconds: 1 },
		],
		[
			'epoch reset 2 s behind, with a matching Date',
			{ resetFormat: 'epoch', clockBehindSeconds: 2, dateHeader: 'server' },
		],
		['truncated epoch reset, no Date', { resetFormat: 'epoch-floor', dateHeader: 'none' }],
		['seconds until the reset, rounded down', { resetFormat: 'seconds-floor' }],
	] as const)(
		'50 upserts at 20 per 2 s, %s: every item done, none twice',
		async (_, variant) => {
			sandbox.rateLimit = {
				enabled: true,
				limit: 20,
				windowMs: 2000,
				retryAfter: false,
				...variant,
			};
			const { items, error } = await upserts(50, 7);
			expect(error).toBeUndefined();
			expect(items.filter((i) => i.json.error)).toEqual([]);
			expect(items).toHaveLength(50);
			expect(sandbox.stats().distinctPhones).toBe(50);
			const log = sandbox.requests();
			console.log(`${_}: ${log.filter((r) => r.status === 429).length} answered 429 on the wire`);
			expect(log.filter((r) => r.status === 200 || r.status === 201)).toHaveLength(50);
		},
		60_000,
	);
});

describe('limiters that write their reset other ways, or were spent before the run (no Retry-After)', () => {
	it.each(['seconds', 'seconds-ceil', 'seconds-floor'] as const)(
		'first contact refused (another client spent the key), reset as %s: one request while refused, then 8 reads',
		async (resetFormat) => {
			sandbox.rateLimit = {
				enabled: true,
				limit: 5,
				windowMs: 3000,
				resetFormat,
				retryAfter: false,
			};
			// Another client of the key spends the window, as a second workflow or worker would.
			for (let i = 0; i < 5; i++)
				await fetch(`${sandbox.url}/agents`, { headers: { Authorization: `Bearer ${apiKey}` } });
			const spentAt = sandbox.requests()[0].at;
			sandbox.clearRequests();
			const { items, error } = await getAgents(8, true);
			expect(error).toBeUndefined();
			expect(items.filter((i) => i.json.error)).toEqual([]);
			const refusedBeforeReset = sandbox
				.requests()
				.filter((r) => r.status === 429 && r.at < spentAt + 3000);
			console.log(
				`first contact refused, reset ${resetFormat}: ${refusedBeforeReset.length} refused before the reset`,
			);
			expect(refusedBeforeReset.length).toBeLessThanOrEqual(
				resetFormat === 'seconds-floor' ? 2 : 1,
			);
		},
		30_000,
	);

	it('a reset in epoch milliseconds: 25 reads at 10 per 2 s end (they spun until a timeout)', async () => {
		sandbox.rateLimit = {
			enabled: true,
			limit: 10,
			windowMs: 2000,
			resetFormat: 'epoch-ms',
			retryAfter: false,
		};
		const { items, error } = await getAgents(25, true);
		expect(error).toBeUndefined();
		expect(items.filter((i) => i.json.error)).toEqual([]);
		expect(items).toHaveLength(50);
		expect(sandbox.requests().filter((r) => r.status === 429).length).toBeLessThanOrEqual(3);
	}, 30_000);
});

describe('a limiter that frees slots one at a time (no Retry-After)', () => {
	it.each(['seconds', 'seconds-floor'] as const)(
		'a sliding log of 10 per 4 s, reset as %s: 25 upserts, each done once, none refused twice',
		async (resetFormat) => {
			sandbox.rateLimit = {
				enabled: true,
				limit: 10,
				windowMs: 4000,
				limiter: 'sliding',
				resetFormat,
				retryAfter: false,
			};
			const { items, error } = await upserts(25, 8);
			expect(error).toBeUndefined();
			expect(items.filter((i) => i.json.error)).toEqual([]);
			const log = sandbox.requests();
			const ok = log.filter((r) => r.status < 400);
			const refused = log.filter((r) => r.status === 429).length;
			// The accepted requests in bursts: a new one after a pause of more than 2 s (half the window).
			const bursts: number[][] = [];
			for (const request of ok) {
				const last = bursts[bursts.length - 1];
				if (last && request.at - last[last.length - 1] <= 2000) last.push(request.at);
				else bursts.push([request.at]);
			}
			const pauses = bursts.slice(1).map((burst, i) => burst[0] - bursts[i][0]);
			console.log(
				`sliding log, ${resetFormat}: bursts of ${bursts.map((b) => b.length).join(', ')}, ${pauses.map((p) => (p / 1000).toFixed(2)).join(' and ')} s apart, ${refused} answered 429`,
			);
			// The bursts, their pauses and the count of 429s are printed, not asserted: they follow
			// this machine's clock (a loaded machine once took 10.6 s for the 9.2 s these usually take,
			// and a first burst spread over a second frees its slots as spread). One burst per window
			// as the slots free is held in simulated time (test/unit/pacer-refills.test.ts, 500
			// members); here, what holds under any load: every item done once, and none refused twice
			// (a refusal's reset, waited out, frees a slot for it).
			expect(sandbox.stats().distinctPhones).toBe(25);
			expect(ok).toHaveLength(25);
			// An item is known by its idempotency key, the same on each of its attempts.
			const refusedItems = log.filter((r) => r.status === 429).map((r) => r.idempotencyKey);
			expect(refusedItems.every((key) => typeof key === 'string')).toBe(true);
			expect(refusedItems.filter((key, i) => refusedItems.indexOf(key) !== i)).toEqual([]);
		},
		30_000,
	);
});

describe('retries', () => {
	it('retries an HTML 502 page and a reset connection on a GET', async () => {
		sandbox.injectFault({ path: '/agents', count: 1, kind: 'html', status: 502 });
		sandbox.injectFault({ path: '/agents', count: 1, kind: 'reset' });
		sandbox.injectFault({ path: '/agents', count: 1, kind: 'status', status: 503 });
		const { items, error } = await getAgents();
		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
		expect(sandbox.requests().map((r) => r.status)).toEqual([502, 0, 503, 200]);
	});

	it('gives up after the retry budget with the last error, mapped', async () => {
		sandbox.injectFault({ path: '/agents', count: 10, kind: 'html', status: 502 });
		const { error } = await getAgents();
		expect(error?.message).toMatch(
			/^bad_gateway: The API answered 502 without its usual envelope: 502 Bad Gateway/,
		);
		expect(sandbox.requests()).toHaveLength(5);
	});

	it('never retries a final refusal such as a 409', async () => {
		sandbox.injectFault({
			path: '/agents',
			count: 3,
			kind: 'status',
			status: 409,
			body: { error: { code: 'conflict', message: 'Not now', details: { reason: 'test' } } },
		});
		const { error } = await getAgents();
		expect(error?.message).toBe('conflict: Not now [item 1]');
		expect((error as unknown as { httpCode: string }).httpCode).toBe('409');
		expect(sandbox.requests()).toHaveLength(1);
	});

	it('maps a 401 to the envelope message and a hint, without retrying', async () => {
		const { error } = await runNode({
			parameters: { resource: 'agent', operation: 'getMany' },
			credentials: { baseUrl: sandbox.url, apiKey: 'mcrm_unknown' },
		});
		expect(error?.message).toBe('unauthorized: Unknown API key [item 1]');
		expect(error?.description).toMatch(/missing, mistyped or revoked/);
		expect(sandbox.requests()).toHaveLength(1);
	});
});

describe('the API key stays secret', () => {
	it('never appears in outputs or errors, successful or failed', async () => {
		const runs = [await getAgents(2)];
		sandbox.injectFault({ path: '/agents', count: 10, kind: 'reset' });
		runs.push(await getAgents(1));
		runs.push(await getAgents(1, true));
		sandbox.clearFaults();
		sandbox.revokeKey(apiKey);
		runs.push(await getAgents(1));
		runs.push(await getAgents(1, true));
		for (const run of runs) {
			const text =
				JSON.stringify(run.run) + JSON.stringify(run.error ?? {}) + String(run.error?.stack ?? '');
			expect(text).not.toContain(apiKey);
		}
		expect(runs[1].error?.message).toMatch(/^connection_reset:/);
		expect((runs[4].items[0].json.details as { code: string }).code).toBe('unauthorized');
	});
});
