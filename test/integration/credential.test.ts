import { Expression } from 'n8n-workflow';

import { MessagingCrmApi } from '../../credentials/MessagingCrmApi.credentials';
import { baseUrlProblem } from '../../nodes/MessagingCrm/helpers/url';
import { testCredential } from '../harness/toolRuns';
import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.stop());
beforeEach(() => sandbox.reset('demo'));

describe('Messaging CRM API credential test (GET /agents)', () => {
	it('passes with a valid key', async () => {
		const result = await testCredential({ baseUrl: sandbox.url, apiKey: sandbox.mintKey() });
		expect(result.status).toBe('OK');
		expect(sandbox.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			'GET /agents 200',
		]);
	});

	it('passes with a valid key that lacks agents:read (403 insufficient_scope)', async () => {
		const result = await testCredential({
			baseUrl: `${sandbox.url}//`,
			apiKey: sandbox.mintKey(['promo:read']),
		});
		expect(result.status).toBe('OK');
		expect(sandbox.requests().map((r) => r.status)).toEqual([403]);
	});

	it('fails with a key the API does not know, saying so', async () => {
		const result = await testCredential({ baseUrl: sandbox.url, apiKey: 'mcrm_not_a_real_key' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/refused this key \(401 unauthorized\)/);
	});

	it('fails with a revoked key', async () => {
		const key = sandbox.mintKey();
		sandbox.revokeKey(key);
		const result = await testCredential({ baseUrl: sandbox.url, apiKey: key });
		expect(result.status).toBe('Error');
	});
});

describe("the credential test keeps the node's rule on plain HTTP", () => {
	// 0.0.0.0 is not loopback by the rule, yet a connection to it lands on this machine: if the
	// rule failed, the sandbox would see the key arrive.
	const offMachine = () => sandbox.url.replace('127.0.0.1', '0.0.0.0');

	it('refuses http:// on a host other than this machine before sending the key', async () => {
		const result = await testCredential({ baseUrl: offMachine(), apiKey: sandbox.mintKey() });
		expect(result.status).toBe('Error');
		// n8n's tester shows only the request error's code for an address it cannot request.
		expect(result.message).toMatch(/^ERR_BAD_REQUEST$|Invalid URL/);
		expect(sandbox.requests()).toEqual([]);
	});

	it('planted: with Allow Plain HTTP on, the same address reaches the sandbox and the key arrives', async () => {
		const result = await testCredential({
			baseUrl: offMachine(),
			apiKey: sandbox.mintKey(),
			allowPlainHttp: true,
		});
		expect(result.status).toBe('OK');
		expect(sandbox.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			'GET /agents 200',
		]);
	});

	it('judges every base URL as the node does, or more strictly', async () => {
		const baseURL = String(new MessagingCrmApi().test.request.baseURL).slice(1);
		const urls = [
			'https://crm.example/api/',
			'http://crm.example',
			'http://127.0.0.1:4010//',
			'http://127.9.9.9',
			'http://localhost:1',
			'HTTP://LOCALHOST',
			'http://[::1]:8080',
			'http://0.0.0.0:1',
			'http://localhost@evil.example',
			'http://127.0.0.1.evil.example',
			'http://user:pw@127.0.0.1',
			'http://10.0.0.8/api',
			'https://10.0.0.8/api',
		];
		const verdicts = { sent: 0, refused: 0 };
		for (const url of urls) {
			for (const allowPlainHttp of [false, true]) {
				const resolved = Expression.resolveWithoutWorkflow(baseURL, {
					$credentials: { baseUrl: url, allowPlainHttp },
				});
				const sent = String(resolved).startsWith('refused:') ? undefined : resolved;
				verdicts[sent === undefined ? 'refused' : 'sent']++;
				const nodeSays = baseUrlProblem(url, allowPlainHttp);
				// The test goes ahead only where the node would too (it may refuse more, never less).
				if (sent !== undefined)
					expect({ url, allowPlainHttp, nodeSays }).toEqual({
						url,
						allowPlainHttp,
						nodeSays: null,
					});
				if (nodeSays === null)
					expect({ url, allowPlainHttp, sent }).toEqual({
						url,
						allowPlainHttp,
						sent: url.trim().replace(/\/+$/, ''),
					});
			}
		}
		// Both branches were taken: the comparison is not vacuous.
		expect(verdicts).toEqual({ sent: 18, refused: 8 });
	});
});
