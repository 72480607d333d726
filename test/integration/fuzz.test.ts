/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * Property-based: for every resource and operation, generated parameter sets (wrong types, missing
 * fields, bounds ±1, odd Unicode, huge strings, injection-looking text). The node either succeeds
 * or fails with a NodeOperationError or NodeApiError (never a TypeError or a crash); a local
 * validation failure sends no request; and no value ever changes the path of a request.
 */
import fc from 'fast-check';
import type { INodeParameters, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { operationKeys } from '../../nodes/MessagingCrm/actions/resources';
import { useSandbox } from '../harness/fixtures';
import { loadPackage, NODE_TYPE } from '../harness/engine';
import { assertInsideApi } from '../harness/paths';
import { DEMO } from '../sandbox/store';

const env = useSandbox();
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 125);

const hostileText = fc.oneof(
	fc.constantFrom(
		'',
		' ',
		'../../agents',
		'..',
		'.',
		'%2e',
		'%2E%2e',
		'.%2e',
		'%2e%2e/%2e%2e',
		'?limit=1&x=',
		'#frag',
		'/customers/lookup',
		"' OR 1=1 --",
		'<script>alert(1)</script>',
		'${process.env}',
		'{{ $json }}',
		'\u0000',
		'\u202e\u0634\u0627\u062f',
		'🙂🙃',
		'x'.repeat(256),
		'y'.repeat(10_001),
	),
	fc.string({ maxLength: 40 }),
	fc.string({ unit: 'grapheme', maxLength: 20 }),
	fc.uuid(),
);
const hostileValue = fc.oneof(
	hostileText,
	fc.integer(),
	fc.double(),
	fc.boolean(),
	fc.constant(null),
	fc.array(fc.oneof(fc.string({ maxLength: 10 }), fc.integer()), { maxLength: 5 }),
	fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
	fc.constantFrom(
		'={{ $json.missing.deep }}',
		'={{ 1 / 0 }}',
		'={{ "a".repeat(300) }}',
		'={{ [1, "x", null] }}',
		'={{ { a: 1 } }}',
	),
);

/** Values that make sense for a parameter, so that many runs reach the API. */
function plausible(p: INodeProperties, customerId: string): fc.Arbitrary<unknown> {
	const id = (value: string) => fc.constant({ __rl: true, mode: 'id', value });
	switch (p.name) {
		case 'customerId':
		case 'donorId':
			return fc.oneof(
				id(customerId),
				fc.constant({ __rl: true, mode: 'phone', value: '+15550900000' }),
				fc.constant({ __rl: true, mode: 'messenger', value: 'telegram:7001' }),
			);
		case 'poolId':
			return id(DEMO.welcomePool);
		case 'agentId':
			return fc.constantFrom(DEMO.supportBot, DEMO.salesChat, '');
		case 'pipelineId':
			return fc.constantFrom(DEMO.salesPipeline, DEMO.onboardingPipeline, '');
		case 'stageCode':
			return fc.constantFrom('new', 'proposal', 'paid', '');
		case 'messengerType':
			return fc.constantFrom('telegram', 'whatsapp', 'vk');
		default:
	}
	if (p.type === 'options' && p.options)
		return fc.constantFrom(...(p.options as INodePropertyOptions[]).map((o) => o.value));
	if (p.type === 'boolean') return fc.boolean();
	if (p.type === 'number') return fc.integer({ min: -2, max: 60_000 });
	if (p.type === 'string')
		return fc.oneof(
			fc.string({ maxLength: 30 }),
			fc.constantFrom('+15550900000', 'jane@example.com', 'CODE-1'),
		);
	return fc.constant(p.default);
}

function operationsOf(
	properties: INodeProperties[],
): Array<{ resource: string; operation: string; fields: INodeProperties[] }> {
	const out: Array<{ resource: string; operation: string; fields: INodeProperties[] }> = [];
	for (const selector of properties.filter((p) => p.name === 'operation')) {
		const resource = String(selector.displayOptions?.show?.resource?.[0]);
		for (const option of (selector.options ?? []) as INodePropertyOptions[]) {
			const operation = String(option.value);
			const fields = properties.filter(
				(p) =>
					p.displayOptions?.show?.resource?.includes(resource) &&
					p.displayOptions?.show?.operation?.includes(operation),
			);
			out.push({ resource, operation, fields });
		}
	}
	return out;
}

describe('fuzzing every operation', () => {
	let operations: ReturnType<typeof operationsOf> = [];
	beforeAll(async () => {
		const type = (await loadPackage()).nodeTypes.getByNameAndVersion(NODE_TYPE, 1);
		operations = operationsOf(type.description.properties);
	});

	it('a dropdown, a list of choices or a set of fields given what the editor never gives (an expression’s result) is refused, naming the item, the field and the choices, before any request', async () => {
		env.sandbox.clearRequests();
		const cases: Array<[INodeParameters, RegExp]> = [
			[
				{ resource: 'customer', operation: 'find', findBy: 'fax' },
				/^"Find By" must be Phone, Email or Messenger Identity, got "fax" \[item 1\]$/,
			],
			[
				{ resource: 'template', operation: 'getMany', templateStatus: {} },
				/^"Status" must be a list of .* \[item 1\]$/,
			],
			[
				{
					resource: 'promoCode',
					operation: 'getMany',
					poolId: { __rl: true, mode: 'id', value: '0b80c2f6-8544-58fc-a174-8910599372fb' },
					filters: 'only issued',
				},
				/^"Filters → Search" must be text, got function \[item 1\]$/,
			],
		];
		for (const [parameters, message] of cases) {
			const { error } = await env.run(parameters);
			expect(error?.name).toBe('NodeOperationError');
			expect(error?.message).toMatch(message);
			expect((error as { context?: { unexpected?: string } }).context?.unexpected).toBeUndefined();
		}
		expect(env.sandbox.requests()).toEqual([]);
	});

	it('covers every operation of the node, as the registry lists them', () => {
		expect(operations.map((o) => `${o.resource}.${o.operation}`).sort()).toEqual(
			operationKeys().sort(),
		);
	});

	it('never crashes (every failure a refusal of the node’s, the API’s, or n8n’s own refusal to start a workflow missing a required field), sends nothing when the input is invalid, never bends a path, and reaches the API', async () => {
		env.sandbox.rateLimit = { ...env.sandbox.rateLimit, enabled: false };
		const [customer] = await env.ok({
			resource: 'customer',
			operation: 'upsert',
			phone: '+15550900000',
			messengersUi: { messenger: [{ type: 'telegram', id: '7001' }] },
		});
		const customerId = String(customer.id);
		let cases = 0;
		let locallyRefused = 0;
		let notStarted = 0;
		let reachedApi = 0;
		for (const { resource, operation, fields } of operations) {
			// A resource locator always arrives as {mode, value} from the editor; only its value is hostile.
			const hostileFor = (p: INodeProperties) =>
				p.type === 'resourceLocator'
					? fc.record({
							__rl: fc.constant(true),
							mode: fc.constantFrom(...(p.modes ?? []).map((m) => m.name)),
							value: fc.oneof(
								hostileText,
								fc.constantFrom('={{ $json.x }}', '={{ null }}', '={{ 42 }}'),
							),
						})
					: hostileValue;
			const arbitrary = fc.record(
				Object.fromEntries(
					fields.map((p) => [
						p.name,
						fc.option(
							fc.oneof(
								{ weight: 3, arbitrary: plausible(p, customerId) },
								{ weight: 2, arbitrary: hostileFor(p) },
							),
							{ nil: undefined },
						),
					]),
				),
			);
			await fc.assert(
				fc.asyncProperty(arbitrary, async (generated) => {
					cases++;
					const parameters: INodeParameters = { resource, operation };
					for (const [name, value] of Object.entries(generated))
						if (value !== undefined) parameters[name] = value as INodeParameters[string];
					env.sandbox.clearRequests();
					const { error } = await env.run(parameters, { items: [{ json: { x: 1 } }] });
					const requests = env.sandbox.requests();
					if (requests.length > 0) reachedApi++;
					if (error?.name === 'WorkflowHasIssuesError') {
						// n8n refuses to start it, as the editor shows a required field empty: no crash.
						notStarted++;
						expect(requests).toEqual([]);
					} else if (error) {
						// A crash is told by what the router marks on it (asNodeError), not by its class:
						// an unexpected TypeError leaves as a NodeOperationError too.
						const context = (error as { context?: { unexpected?: string } }).context;
						expect({ crash: context?.unexpected, message: error.message }).toEqual({
							crash: undefined,
							message: error.message,
						});
						expect(['NodeOperationError', 'NodeApiError']).toContain(error.name);
						if (/^".+ \[item \d+\]$/s.test(error.message)) {
							locallyRefused++;
							expect({ message: error.message, requests: requests.map((r) => r.path) }).toEqual({
								message: error.message,
								requests: [],
							});
						}
					}
					assertInsideApi(requests);
				}),
				{ numRuns: RUNS_PER_OPERATION, seed: 20261122 },
			);
		}
		expect(cases).toBeGreaterThanOrEqual(operationKeys().length * RUNS_PER_OPERATION);
		expect(locallyRefused).toBeGreaterThan(100);
		// Not vacuous: many runs went through to the sandbox (with plausible values).
		expect(reachedApi).toBeGreaterThan(100);
		console.log(
			`fuzz: ${cases} parameter sets over ${operations.length} operations, ${locallyRefused} refused locally, ${notStarted} not started by n8n, ${reachedApi} reached the API`,
		);
	}, 600_000);
});
