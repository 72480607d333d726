import { testCredential } from '../harness/n8n';
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
		expect(sandbox.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /agents 200']);
	});

	it('passes with a valid key that lacks agents:read (403 insufficient_scope)', async () => {
		const result = await testCredential({ baseUrl: `${sandbox.url}//`, apiKey: sandbox.mintKey(['promo:read']) });
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
