/* eslint-disable @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * A server that is not the sandbox's well-behaved self: one that echoes the request's headers (the
 * API key among them) in its error answers, one that answers with an ID that would bend a path,
 * one that is strict about request bodies. Every operation, every dropdown, the credential test and
 * the trigger run against it; the key appears nowhere (runNode checks items, errors, run data and
 * log lines on every run) and each error still says what went wrong.
 */
import { request as httpRequest } from 'http';

import type { INode, INodeParameters } from 'n8n-workflow';

import { operationKeys as registryKeys } from '../../nodes/MessagingCrm/actions/resources';
import type { Operation } from '../../nodes/MessagingCrm/actions/node.type';
import { barestParameters, barestWorld, derivedParameters, operationKeys } from '../harness/barest';
import { byId, useSandbox } from '../harness/fixtures';
import { assertNoSecret, errorText, keyForms, loadPackage, NODE_TYPE } from '../harness/engine';
import { callMethod, testCredential } from '../harness/toolRuns';
import { createTrigger } from '../harness/triggerRuns';
import { assertInsideApi } from '../harness/paths';
import type { FaultSpec } from '../sandbox/server';
import { DEMO } from '../sandbox/store';

const env = useSandbox();

/** A raw HTTP request to the sandbox, exactly as written (no client-side URL normalisation). */
function raw(
	method: string,
	target: string,
	headers: Record<string, string>,
	body?: string,
): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
	const url = new URL(env.sandbox.url);
	return new Promise((resolve, reject) => {
		const req = httpRequest(
			{ host: url.hostname, port: url.port, method, path: target, headers },
			(res) => {
				let text = '';
				res.on('data', (c: Buffer) => (text += c.toString()));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
			},
		);
		req.on('error', reject);
		req.end(body);
	});
}

const echo = (status: number, format: 'envelope' | 'text'): FaultSpec => ({
	path: '*',
	count: 1_000_000,
	kind: 'echo',
	status,
	format,
});

describe('every operation in its barest configuration', () => {
	it('covers every operation of the node, as the registry lists them and the built node offers them', async () => {
		const keys = Object.keys(barestParameters(barestWorld(env.sandbox))).sort();
		expect(keys).toEqual(await operationKeys());
		expect(keys).toEqual(registryKeys().sort());
		// Planted: an operation with a required field of no conventional value is named, not guessed.
		const odd = {
			option: { name: 'Odd', action: 'Odd', description: 'Odd' },
			description: [
				{ displayName: 'Zeta', name: 'zeta', type: 'string', default: '', required: true },
			],
			execute: async () => [],
		} as Operation;
		expect(() => derivedParameters('customer.odd', odd, barestWorld(env.sandbox))).toThrow(
			/customer\.odd: no barest value for the required field "zeta"/,
		);
	});

	it('succeeds, and every write sends a JSON object with Content-Type: application/json', async () => {
		for (const key of await operationKeys()) {
			// A fresh world for each, so that Deal Close does not leave Move to Stage without a deal.
			const parameters = barestParameters(barestWorld(env.sandbox))[key];
			const [resource, operation] = key.split('.');
			env.sandbox.clearRequests();
			const { error } = await env.run({ resource, operation, ...parameters });
			expect({ key, error: error?.message }).toEqual({ key, error: undefined });
			for (const r of env.sandbox.requests().filter((q) => q.method !== 'GET')) {
				expect({ key, contentType: r.contentType }).toEqual({
					key,
					contentType: expect.stringMatching(/^application\/json/),
				});
				const body = JSON.parse(String(r.body)) as unknown;
				expect({
					key,
					isObject: typeof body === 'object' && body !== null && !Array.isArray(body),
				}).toEqual({ key, isObject: true });
			}
		}
	});

	it('Deal Create with no optional field sends {}', async () => {
		const w = barestWorld(env.sandbox);
		env.sandbox.clearRequests();
		await env.ok({ resource: 'deal', operation: 'create', customerId: byId(w.dealFreeId) });
		const [post] = env.sandbox.requests().filter((r) => r.method === 'POST');
		expect([post.body, post.contentType, post.status]).toEqual(['{}', 'application/json', 201]);
	});

	it('planted: the strict sandbox refuses a write without a JSON body, as a strict server does', async () => {
		const headers = { Authorization: `Bearer ${env.apiKey}` };
		const path = `/customers/${barestWorld(env.sandbox).dealFreeId}/deals`;
		expect((await raw('POST', path, headers)).status).toBe(422);
		expect(
			(await raw('POST', path, { ...headers, 'Content-Type': 'text/plain' }, '{}')).status,
		).toBe(422);
		expect(
			(await raw('POST', path, { ...headers, 'Content-Type': 'application/json' }, '{}')).status,
		).toBe(201);
	});
});

describe('a server that echoes the request headers and the key in its errors', () => {
	it('planted: the fault really echoes the key, in the body and in a header', async () => {
		env.sandbox.injectFault({ ...echo(500, 'envelope'), count: 1 });
		env.sandbox.injectFault({ ...echo(400, 'text'), count: 1 });
		const headers = { Authorization: `Bearer ${env.apiKey}` };
		const first = await raw('GET', '/agents', headers);
		const second = await raw('GET', '/agents', headers);
		expect([first.status, second.status]).toEqual([500, 400]);
		for (const answer of [first, second]) {
			expect(answer.text).toContain(env.apiKey);
			expect(String(answer.headers['x-debug-authorization'])).toContain(env.apiKey);
		}
		expect(() => assertNoSecret(env.apiKey, first.text)).toThrow(/leaked/);
		expect(() => assertNoSecret(env.apiKey, { message: encodeURIComponent(env.apiKey) })).toThrow(
			/leaked/,
		);
	});

	const modes: Array<{
		name: string;
		fault: FaultSpec;
		run: { continueOnFail?: boolean; errorOutput?: boolean; node?: Partial<INode> };
		says: RegExp;
	}> = [
		{
			name: '500 envelope, the node fails',
			fault: echo(500, 'envelope'),
			run: {},
			says: /^internal_error: Upstream failed \(key \[redacted\]\)/,
		},
		{
			name: '400 envelope, Continue on fail',
			fault: echo(400, 'envelope'),
			run: { continueOnFail: true },
			says: /^bad_request: Upstream failed \(key \[redacted\]\)/,
		},
		{
			name: '500 plain text, the error output',
			fault: echo(500, 'text'),
			run: { errorOutput: true },
			says: /^server_error: The API answered 500 without its usual envelope: Upstream failed for key \[redacted\]/,
		},
		{
			name: "403 envelope, as an AI Agent's tool (the failure is the tool's answer)",
			fault: echo(403, 'envelope'),
			run: { node: { type: `${NODE_TYPE}Tool` } },
			// The envelope's details are the hint here: they reach the agent in `error`, redacted.
			says: /^bad_request: Upstream failed \(key \[redacted\]\)\. Request headers: .*Bearer \[redacted\]/,
		},
		{
			name: '403 plain text, the node fails',
			fault: echo(403, 'text'),
			run: {},
			says: /^forbidden: The API answered 403 without its usual envelope: Upstream failed for key \[redacted\]/,
		},
	];

	it.each(modes)('every operation: $name', async ({ fault, run, says }) => {
		const configs = barestParameters(barestWorld(env.sandbox));
		env.sandbox.injectFault(fault);
		for (const [key, parameters] of Object.entries(configs)) {
			const [resource, operation] = key.split('.');
			// As a tool, Send and Wait refuses before any request (send-and-wait.test.ts).
			if (run.node !== undefined && key === 'message.sendAndWait') continue;
			env.sandbox.clearRequests();
			// runNode fails the test if the key is in any item, error, run data or log line.
			const result = await env.run({ resource, operation, ...parameters } as INodeParameters, run);
			const echoed = env.sandbox.requests().filter((r) => r.fault === 'echo').length;
			expect({ key, echoed: echoed > 0 }).toEqual({ key, echoed: true });
			const inItems = run.continueOnFail === true || run.node !== undefined;
			const failures = inItems
				? result.items.filter((i) => i.json.error)
				: run.errorOutput
					? result.errorItems
					: [];
			const message =
				inItems || run.errorOutput
					? String(failures[0]?.json.error)
					: String(result.error?.message);
			expect({ key, message }).toEqual({ key, message: expect.stringMatching(says) });
			if (inItems || run.errorOutput) {
				// Exactly one error item for the one input item, paired to it.
				expect({ key, failures: failures.length, paired: failures[0]?.pairedItem }).toEqual({
					key,
					failures: 1,
					paired: { item: 0 },
				});
			} else {
				expect(errorText(result.error)).toContain('[redacted]');
			}
		}
	});

	it('every dropdown and list search', async () => {
		const type = (await loadPackage()).nodeTypes.getByNameAndVersion(NODE_TYPE, 1);
		const w = barestWorld(env.sandbox);
		const parameters: INodeParameters = {
			customerId: byId(w.customerId),
			agentId: DEMO.supportBot,
			pipelineId: DEMO.salesPipeline,
		};
		env.sandbox.injectFault(echo(500, 'envelope'));
		let methods = 0;
		for (const kind of ['loadOptions', 'listSearch'] as const) {
			for (const method of Object.keys(type.methods?.[kind] ?? {})) {
				methods++;
				const error = await callMethod({ kind, method, parameters, credentials: env.creds() }).then(
					() => undefined,
					(e: unknown) => e,
				);
				expect({ method, failed: error instanceof Error }).toEqual({ method, failed: true });
				expect(() => assertNoSecret(env.apiKey, error)).not.toThrow();
				expect((error as Error).message).toMatch(
					/^internal_error: Upstream failed \(key \[redacted\]\)/,
				);
			}
		}
		expect(methods).toBe(16);
	});

	it('the credential test', async () => {
		for (const fault of [echo(500, 'envelope'), echo(401, 'text'), echo(200, 'envelope')]) {
			env.sandbox.injectFault({ ...fault, count: 1 });
			const result = await testCredential(env.creds());
			expect(env.sandbox.requests().at(-1)?.fault).toBe('echo');
			expect(() => assertNoSecret(env.apiKey, result)).not.toThrow();
		}
	});

	it.each(['pools', 'deals'])('the trigger watching %s', async (watch) => {
		const w = barestWorld(env.sandbox);
		const parameters: INodeParameters =
			watch === 'pools'
				? { watch, poolEvents: ['poolLow'] }
				: { watch, dealEvents: ['dealMoved'], customerIds: w.customerId };
		const trigger = await createTrigger(parameters, env.creds());
		env.sandbox.injectFault(echo(503, 'text'));
		const error = await trigger.poll().then(
			() => undefined,
			(e: unknown) => e,
		);
		expect(error).toBeInstanceOf(Error);
		expect((error as Error).message).toMatch(
			/^service_unavailable: The API answered 503 without its usual envelope: Upstream failed for key \[redacted\]/,
		);
		expect(() => assertNoSecret(env.apiKey, error, trigger.staticData())).not.toThrow();
		expect(keyForms(env.apiKey).some((f) => errorText(error).includes(f))).toBe(false);
	});

	it('a successful answer that echoes the key: the items carry a marker instead', async () => {
		env.sandbox.injectFault({
			path: '/agents',
			count: 1,
			kind: 'status',
			status: 200,
			body: [
				{ id: DEMO.supportBot, name: `Bot of ${env.apiKey}`, is_active: true, messengers: [] },
			],
		});
		const [agent] = await env.ok({ resource: 'agent', operation: 'getMany' });
		expect(agent.name).toBe('Bot of [redacted]');
	});
});

describe('paths cannot be bent', () => {
	it.each(['.', '..', '%2e', '%2E%2e', '.%2e'])(
		'Find Owner refuses %j locally, naming the field, and sends nothing',
		async (code) => {
			env.sandbox.clearRequests();
			const { error } = await env.run({ resource: 'promoCode', operation: 'findOwner', code });
			expect(error?.name).toBe('NodeOperationError');
			expect(error?.message).toMatch(
				/^"Code" cannot be ".*": a dot segment would change the request's path \[item 1\]$/,
			);
			expect(env.sandbox.requests()).toEqual([]);
		},
	);

	it('keeps "/", "?", "#" and "%" inside the segment', async () => {
		env.sandbox.clearRequests();
		const items = await env.ok({
			resource: 'promoCode',
			operation: 'findOwner',
			code: '../a/b?c=1#d%',
		});
		expect(items).toEqual([]);
		const requests = env.sandbox.requests();
		expect(requests.map((r) => [r.target, r.route, r.status])).toEqual([
			['/promo-codes/..%2Fa%2Fb%3Fc%3D1%23d%25', 'GET /promo-codes/:code', 404],
		]);
		expect(() => assertInsideApi(requests)).not.toThrow();
	});

	it('an ID from the server that would bend a path is refused before it is used', async () => {
		env.sandbox.injectFault({
			path: '/customers/lookup',
			count: 1,
			kind: 'status',
			status: 200,
			body: { id: '..' },
		});
		env.sandbox.clearRequests();
		const { error } = await env.run({
			resource: 'customer',
			operation: 'get',
			customerId: { __rl: true, mode: 'phone', value: '+15550100001' },
		});
		expect(error?.message).toMatch(/cannot be a segment of a request path/);
		expect(env.sandbox.requests().map((r) => r.target)).toEqual([
			expect.stringMatching(/^\/customers\/lookup\?/),
		]);
	});

	it('planted: the check sees a bent path in the raw request target, which the sandbox would route elsewhere', async () => {
		const headers = { Authorization: `Bearer ${env.apiKey}` };
		env.sandbox.clearRequests();
		expect((await raw('GET', '/customers/../agents', headers)).status).toBe(200);
		const [bent] = env.sandbox.requests();
		expect([bent.target, bent.path, bent.route]).toEqual([
			'/customers/../agents',
			'/agents',
			'GET /agents',
		]);
		expect(() => assertInsideApi([bent])).toThrow(
			/left the API's paths: GET \/customers\/\.\.\/agents/,
		);
		env.sandbox.clearRequests();
		await raw('GET', '/promo-codes/%2E%2E', headers);
		expect(() => assertInsideApi(env.sandbox.requests())).toThrow(/left the API's paths/);
	});
});
