/**
 * n8n's UX guidelines for community nodes, checked on the package as n8n loads it: the copy
 * (placeholders, booleans, casing, operation names), resource locators, Output where an answer has
 * more than 10 fields, and errors as the guidelines word them (what happened with the field and
 * "[item N]", how to fix it, none of the words they ask to avoid). docs/development.md, "n8n's UX
 * guidelines", maps each guideline to its check.
 */
import type {
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';

import { byId, useSandbox } from '../harness/fixtures';
import { loadPackage, NODE_TYPE } from '../harness/engine';
import { createTrigger, TRIGGER_TYPE } from '../harness/triggerRuns';
import { DEMO } from '../sandbox/store';
import { SCOPES } from '../../nodes/MessagingCrm/helpers/scopes';
import { MERGE_OUTPUT, POOL_OUTPUT } from '../../nodes/MessagingCrm/shared/output';

const env = useSandbox();

interface Described {
	where: string;
	description: INodeTypeDescription | { properties: INodeProperties[] };
}

async function described(): Promise<Described[]> {
	const { nodeTypes, credentialTypes } = await loadPackage();
	return [
		{ where: 'node', description: nodeTypes.getByNameAndVersion(NODE_TYPE, 1).description },
		{ where: 'trigger', description: nodeTypes.getByNameAndVersion(TRIGGER_TYPE, 2).description },
		{ where: 'credential', description: credentialTypes.messagingCrmApi },
	];
}

/** Every parameter, nested ones included, with where it is. */
function parameters(
	properties: INodeProperties[],
	where: string,
): Array<[string, INodeProperties]> {
	return properties.flatMap((p) => [
		[`${where} ${p.name}`, p] as [string, INodeProperties],
		...parameters(
			(p.options ?? []).flatMap((o) =>
				'values' in o
					? (o as INodePropertyCollection).values
					: 'type' in o
						? [o as INodeProperties]
						: [],
			),
			`${where} ${p.name} →`,
		),
	]);
}

/** The options of every options and multiOptions parameter. */
function choices(all: Array<[string, INodeProperties]>): Array<[string, INodePropertyOptions]> {
	return all.flatMap(([where, p]) =>
		p.type === 'options' || p.type === 'multiOptions'
			? ((p.options ?? []) as INodePropertyOptions[]).map(
					(o) => [`${where} = ${String(o.value)}`, o] as [string, INodePropertyOptions],
				)
			: [],
	);
}

const SMALL_WORDS = new Set([
	'a',
	'an',
	'and',
	'as',
	'at',
	'by',
	'for',
	'from',
	'in',
	'into',
	'of',
	'on',
	'or',
	'per',
	'the',
	'to',
	'with',
]);
/** Title Case as the guidelines mean it: every word capitalised but short articles and prepositions. */
function isTitleCase(text: string): boolean {
	return text
		.split(/[\s/]+/)
		.filter((word) => /^[a-z]/.test(word))
		.every((word) => SMALL_WORDS.has(word));
}

let all: Array<[string, INodeProperties]> = [];
beforeAll(async () => {
	all = (await described()).flatMap(({ where, description }) =>
		parameters(description.properties, where),
	);
});

describe('credentials', () => {
	it('the API key is a password field; no other field holds a secret', async () => {
		const [, , credential] = await described();
		const fields = credential.description.properties;
		expect(fields.find((p) => p.name === 'apiKey')?.typeOptions?.password).toBe(true);
		expect(
			fields.filter((p) => /key|secret|token|password/i.test(p.name) && p.name !== 'apiKey'),
		).toEqual([]);
	});
});

describe('copy', () => {
	it('placeholders start with "e.g." (the buttons of collections say what they add)', () => {
		const wrong = all
			.filter(([, p]) => p.placeholder !== undefined)
			.filter(([, p]) => !['collection', 'fixedCollection'].includes(p.type))
			.filter(([, p]) => !String(p.placeholder).startsWith('e.g. '))
			.map(([where, p]) => `${where}: ${String(p.placeholder)}`);
		expect(wrong).toEqual([]);
		expect(all.filter(([, p]) => p.placeholder?.startsWith('e.g. ')).length).toBeGreaterThan(10);
	});

	it("a parameter named in a description or hint is in single quotes ('Try Messengers In Order'), never in double", () => {
		const names = [...new Set(all.map(([, p]) => p.displayName))].filter((n) => n.length > 3);
		const texts = all.flatMap(([w, p]) =>
			[p.description, p.hint].filter((t): t is string => typeof t === 'string').map((t) => [w, t]),
		);
		const doubled = texts.filter(([, t]) => names.some((n) => t.includes(`"${n}"`)));
		expect(doubled).toEqual([]);
	});

	it('a boolean’s description starts with "Whether"', () => {
		const booleans = all.filter(([, p]) => p.type === 'boolean');
		expect(booleans.length).toBeGreaterThan(10);
		expect(
			booleans.filter(([, p]) => !p.description?.startsWith('Whether')).map(([where]) => where),
		).toEqual([]);
	});

	it('parameter names and dropdown titles are in Title Case; descriptions and hints start with a capital', () => {
		const shown = all.filter(([, p]) => p.type !== 'hidden' && p.type !== 'notice');
		expect(
			shown
				.filter(([, p]) => !isTitleCase(p.displayName))
				.map(([w, p]) => `${w}: ${p.displayName}`),
		).toEqual([]);
		const fieldNames = new Set([...POOL_OUTPUT.all, ...MERGE_OUTPUT.all]);
		expect(
			choices(all)
				// Output's Fields lists the API's own field names as the answer holds them, and the
				// credential's scopes are the API's own identifiers ("promo:read"): the service's terms.
				.filter(([, o]) => !fieldNames.has(String(o.value)))
				.filter(([, o]) => !(SCOPES as readonly string[]).includes(String(o.value)))
				.filter(([, o]) => !isTitleCase(o.name))
				.map(([w, o]) => `${w}: ${o.name}`),
		).toEqual([]);
		const texts = [
			...all.flatMap(([w, p]) => [
				[w, p.description],
				[w, p.hint],
			]),
			...choices(all).map(([w, o]) => [w, o.description]),
		].filter((t): t is [string, string] => typeof t[1] === 'string' && t[1] !== '');
		expect(texts.filter(([, t]) => !/^[A-Z0-9"'<{]/.test(t)).map(([w, t]) => `${w}: ${t}`)).toEqual(
			[],
		);
	});

	it('each operation: a Title Case name, an action in sentence case that names its object, a description', async () => {
		const node = (await described())[0].description as INodeTypeDescription;
		const resources = Object.fromEntries(
			(node.properties.find((p) => p.name === 'resource')!.options as INodePropertyOptions[]).map(
				(o) => [String(o.value), o.name],
			),
		);
		const operations = node.properties
			.filter((p) => p.name === 'operation')
			.flatMap((p) =>
				(p.options as INodePropertyOptions[]).map((o) => ({
					resource: resources[String(p.displayOptions!.show!.resource![0])],
					...o,
				})),
			);
		expect(operations.length).toBeGreaterThan(20);
		for (const o of operations) {
			expect(isTitleCase(o.name)).toBe(true);
			const action = String(o.action);
			// Sentence case: a capital first, then lower case but for names (WhatsApp, CRM).
			expect(action).toMatch(/^[A-Z][a-z]/);
			expect(action.slice(1)).not.toMatch(/\b(Customer|Deal|Message|Promo|Pool|Template)\b/);
			// The object of the operation: its resource, or a word of it (Get Messengers: the customer's).
			const words = o.resource.toLowerCase().split(' ');
			expect(words.some((w) => action.toLowerCase().includes(w.replace(/s$/, '')))).toBe(true);
			expect(String(o.description)).toMatch(/^[A-Z].+\. Scope: /);
		}
		// Where n8n's own nodes offer the same operation, the same words (Slack, Gmail, Telegram …).
		const action = (name: string) => operations.find((o) => o.name === name)?.action;
		expect(action('Send')).toBe('Send a message');
		expect(action('Send and Wait for Response')).toBe('Send message and wait for response');
	});
});

describe('resource locators', () => {
	it('From list is the default where the API can list (promo pools); the customer, which no API lists, opens By ID', () => {
		const locators = all.filter(([, p]) => p.type === 'resourceLocator');
		expect(locators.length).toBeGreaterThan(10);
		for (const [where, p] of locators) {
			const modes = (p.modes ?? []).map((m) => m.name);
			const mode = (p.default as { mode: string }).mode;
			if (modes.includes('list')) expect(`${where}: ${mode}`).toBe(`${where}: list`);
			else expect(`${where}: ${modes.join(', ')}`).toBe(`${where}: id, phone, email, messenger`);
		}
	});
});

describe('Output where an answer has more than 10 fields (promo pools, the merge report)', () => {
	const pool = (output: Record<string, unknown>) => ({
		resource: 'promoPool',
		operation: 'get',
		poolId: byId(DEMO.vipPool),
		...output,
	});

	it('Raw, the default: every field, as saved workflows had it', async () => {
		const [raw] = await env.ok(pool({}));
		expect(Object.keys(raw).sort()).toEqual([...POOL_OUTPUT.all].sort());
		expect(POOL_OUTPUT.all.length).toBeGreaterThan(10);
	});

	it('Simplified: the 10 most used, in that order; Selected Fields: those and the ID; Get Many and Update too', async () => {
		const [simple] = await env.ok(pool({ output: 'simplified' }));
		expect(Object.keys(simple)).toEqual([...POOL_OUTPUT.simplified]);
		const [picked] = await env.ok(pool({ output: 'fields', outputFields: ['remaining'] }));
		expect(picked).toEqual({ id: DEMO.vipPool, remaining: expect.any(Number) });
		const many = await env.ok({
			resource: 'promoPool',
			operation: 'getMany',
			output: 'simplified',
		});
		expect(many.length).toBeGreaterThan(1);
		for (const p of many) expect(Object.keys(p)).toEqual([...POOL_OUTPUT.simplified]);
		const [updated] = await env.ok({
			resource: 'promoPool',
			operation: 'update',
			poolId: byId(DEMO.vipPool),
			updateFields: { title: 'VIP gifts' },
			output: 'fields',
			outputFields: ['title'],
		});
		expect(updated).toEqual({ id: DEMO.vipPool, title: 'VIP gifts' });
	});

	it('the merge report Simplified, and a field it does not have refused before any request', async () => {
		const upsert = (phone: string) => ({ resource: 'customer', operation: 'upsert', phone });
		const [winner] = await env.ok(upsert('+15550700001'));
		const [donor] = await env.ok(upsert('+15550700002'));
		const merge = {
			resource: 'customer',
			operation: 'merge',
			customerId: byId(String(winner.id)),
			donorBy: 'id',
			donorId: byId(String(donor.id)),
		};
		const [report] = await env.ok({ ...merge, output: 'simplified' });
		expect(Object.keys(report)).toEqual(MERGE_OUTPUT.simplified.filter((f) => f in report));
		expect(report.winner_id).toBe(winner.id);
		env.sandbox.clearRequests();
		const { error } = await env.run({ ...merge, output: 'fields', outputFields: ['title'] });
		expect(error?.message).toBe(
			'"Fields" names fields the merge report does not have: title [item 1]',
		);
		expect(env.sandbox.requests()).toEqual([]);
	});
});

const AVOID = /\b(errors?|problems?|failures?|mistakes?)\b/i;

describe('errors as the guidelines word them', () => {
	it.each([
		[
			'a customer ID that is not a UUID',
			{ resource: 'customer', operation: 'get', customerId: byId('={{ "12345" }}') },
		],
		[
			'a template without a name',
			{
				resource: 'message',
				operation: 'send',
				customerId: byId(DEMO.vipPool),
				messengerType: 'whatsapp',
				content: 'template',
				templateName: '={{ "" }}',
			},
		],
		[
			'an unknown Output',
			{ resource: 'promoPool', operation: 'get', poolId: byId(DEMO.vipPool), output: 'all' },
		],
	])(
		'%s: the field and [item N], then how to fix it, without the words to avoid',
		async (_name, parameters) => {
			const { error } = await env.run(parameters, {
				items: [{ json: {} }, { json: {} }],
			});
			expect(error?.message).toMatch(/^"[A-Z][^"]*" .+ \[item 1\]$/);
			expect(error?.description).toMatch(/^[A-Z].{10,}/);
			expect(`${error?.message} ${error?.description}`).not.toMatch(AVOID);
		},
	);

	it('an API refusal names its item too, and says what to do next', async () => {
		const { error } = await env.run({
			resource: 'customer',
			operation: 'get',
			customerId: byId('00000000-0000-4000-8000-000000000000'),
		});
		expect(error?.message).toMatch(/^not_found: .+ \[item 1\]$/);
		expect(error?.description).toMatch(/^[A-Z].{10,}/);
		expect(String(error?.description)).not.toMatch(AVOID);
	});

	it.each([
		['no customer IDs', { events: ['dealMoved'], customerIds: '' }, /^"Customer IDs" is empty$/],
		[
			'a customer ID that is not one',
			{ events: ['dealMoved'], customerIds: 'Jane' },
			/^"Customer IDs" holds "Jane"/,
		],
		[
			'a pipeline that is not a UUID',
			{ events: ['dealMoved'], customerIds: DEMO.vipPool, pipelineId: 'sales' },
			/^"Pipeline" must be a UUID/,
		],
		[
			'a lead time out of range',
			{ events: ['windowClosingSoon'], customerIds: DEMO.vipPool, windowLeadMinutes: 0 },
			/^"Window Closing Lead Time \(Minutes\)" must be/,
		],
		['a pool that is not an ID', { events: ['poolLow'], poolIds: ['vip'] }, /^"Pools" holds "vip"/],
		[
			'an agent that is not a UUID',
			{ events: ['poolLow'], agentId: 'sales' },
			/^"Agent" must be a UUID/,
		],
		[
			'a share out of range',
			{ events: ['poolLow'], options: { rateBudgetPercent: 0 } },
			/^"Share of the Rate Limit" must be/,
		],
	])('the trigger, %s: the field, then how to fix it', async (_name, parameters, message) => {
		const trigger = await createTrigger(parameters, env.creds(), 2);
		const error = (await trigger.poll().catch((e: unknown) => e)) as {
			message: string;
			description?: string;
		};
		expect(error.message).toMatch(message);
		expect(error.description).toMatch(/^[A-Z].{10,}/);
		expect(`${error.message} ${error.description}`).not.toMatch(AVOID);
	});
});
