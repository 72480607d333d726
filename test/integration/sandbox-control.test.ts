/* eslint-disable @n8n/community-nodes/no-restricted-globals -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
import axios from 'axios';

import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { DEMO } from '../sandbox/store';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.stop());

const http = axios.create({ validateStatus: () => true });
const control = (
	method: string,
	path: string,
	data?: unknown,
	headers: Record<string, string> = {},
) =>
	http.request({
		method,
		url: `${sandbox.url}/__sandbox${path}`,
		data,
		headers: { 'X-Sandbox-Token': sandbox.controlToken, ...headers },
	});

describe('sandbox control surface', () => {
	it('mints keys with scopes, injects faults and shows the request log', async () => {
		const { data } = await control('POST', '/keys', { scopes: ['agents:read'] });
		const api = (path: string) =>
			http.get(`${sandbox.url}${path}`, { headers: { Authorization: `Bearer ${data.key}` } });
		expect((await api('/agents')).status).toBe(200);
		expect((await api('/pipelines')).data.error.code).toBe('insufficient_scope');
		await control('POST', '/faults', { path: '/agents', count: 1, kind: 'status', status: 503 });
		expect((await api('/agents')).status).toBe(503);
		const log = (await control('GET', '/requests')).data.requests as Array<{
			status: number;
			keyId: string;
		}>;
		expect(log.map((r) => r.status)).toEqual([200, 403, 503]);
		expect(JSON.stringify(log)).not.toContain(data.key);
	});

	it('is unreachable with an API key or without the control token', async () => {
		const key = sandbox.mintKey();
		expect((await control('POST', '/reset', {}, { Authorization: `Bearer ${key}` })).status).toBe(
			404,
		);
		expect((await http.post(`${sandbox.url}/__sandbox/reset`, {})).status).toBe(404);
		expect(
			(
				await http.post(
					`${sandbox.url}/__sandbox/reset`,
					{},
					{ headers: { 'X-Sandbox-Token': 'guess' } },
				)
			).status,
		).toBe(404);
	});

	it('answers every API error in the envelope, with rate headers once authenticated', async () => {
		const noKey = await http.get(`${sandbox.url}/agents`);
		expect(noKey.status).toBe(401);
		expect(noKey.data).toEqual({
			error: { code: 'unauthorized', message: 'No API key was sent', details: {} },
		});
		const key = sandbox.mintKey();
		const unknown = await http.get(`${sandbox.url}/nope`, {
			headers: { Authorization: `Bearer ${key}` },
		});
		expect(unknown.status).toBe(404);
		expect(unknown.data.error.code).toBe('not_found');
		expect(unknown.headers['x-ratelimit-limit']).toBe('120');
		const badAgent = await http.get(`${sandbox.url}/pipelines?agent_id=x`, {
			headers: { Authorization: `Bearer ${key}` },
		});
		expect(badAgent.status).toBe(422);
		expect(badAgent.data.error).toMatchObject({
			code: 'validation_error',
			details: { field: 'agent_id' },
		});
	});

	it('enforces the rate limit with 429, Retry-After and the three headers', async () => {
		await control('POST', '/config', { rateLimit: { limit: 2, windowMs: 3000 } });
		const key = sandbox.mintKey();
		const get = () =>
			http.get(`${sandbox.url}/agents`, { headers: { Authorization: `Bearer ${key}` } });
		expect((await get()).headers['x-ratelimit-remaining']).toBe('1');
		expect((await get()).headers['x-ratelimit-remaining']).toBe('0');
		const third = await get();
		expect(third.status).toBe(429);
		expect(third.data.error.code).toBe('rate_limited');
		expect(Number(third.headers['retry-after'])).toBeGreaterThanOrEqual(1);
		expect(Number(third.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(3);
		await control('POST', '/config', { rateLimit: { limit: 120, windowMs: 60000 } });
	});
});

describe('sandbox state kept across a restart (npm run dev)', () => {
	it('a second sandbox loaded from the first one’s saved state has its customers, keys, stored answers and codes', async () => {
		const first = await startSandbox();
		const second = await startSandbox();
		const key = first.mintKey();
		const api = (base: string, path: string, data: unknown, idempotencyKey: string) =>
			http.post(`${base}${path}`, data, {
				headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': idempotencyKey },
			});
		try {
			const made = await api(first.url, '/customers', { phone: '+15550109999' }, 'k-upsert');
			const id = made.data.id as string;
			first.issueCodes(DEMO.welcomePool, 2, [id]);
			const saved = first.saveState();
			expect(saved).not.toContain('byCode');
			second.loadState(saved);
			const again = await api(second.url, '/customers', { phone: '+15550109999' }, 'k-upsert');
			expect([again.status, again.data]).toEqual([made.status, made.data]);
			expect(again.headers['idempotent-replayed']).toBe('true');
			expect(again.data.id).toBe(id);
			expect(second.store.customers.size).toBe(first.store.customers.size);
			// The pool's index by code points at its rows again: an issued code is found by its code.
			const pool = second.store.promoPools.get(DEMO.welcomePool)!;
			const issued = pool.rows.find((r) => r.customer_id === id)!;
			expect(pool.byCode.get(issued.code)).toBe(issued);
			expect(second.saveState()).toBe(saved);
		} finally {
			await first.stop();
			await second.stop();
		}
	});
});

describe('template moderation in npm run dev (moderateAfterMs)', () => {
	it('a PENDING template becomes APPROVED once it has been pending that long, not before; off by default', async () => {
		const moderated = await startSandbox({ moderateAfterMs: 1_500 });
		try {
			const key = moderated.mintKey();
			const sentAt = Date.now();
			const created = await http.post(
				`${moderated.url}/bizchat/templates`,
				{
					name: 'restock_notice',
					category: 'UTILITY',
					language: 'en',
					components: [{ type: 'BODY', text: 'Back in stock' }],
				},
				{ headers: { Authorization: `Bearer ${key}` } },
			);
			expect(created.data).toMatchObject({ status: 'PENDING' });
			const status = () =>
				moderated.store.templates.find((t) => t.name === 'restock_notice')?.status;
			const deadline = Date.now() + 10_000;
			while (status() === 'PENDING' && Date.now() < deadline)
				await new Promise((resolve) => setTimeout(resolve, 50));
			expect(status()).toBe('APPROVED');
			// Not before its time: a loaded machine only makes the approval later, never sooner, so a
			// lower bound on the time it took holds on any machine (the sandbox's clock is this host's).
			expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1_500);
		} finally {
			await moderated.stop();
		}
		// The sandbox of the other tests moderates nothing by itself.
		expect(sandbox.store.templates.find((t) => t.name === 'spring_sale')?.status).toBe('PENDING');
	});
});
