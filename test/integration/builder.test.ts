/* eslint-disable @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * A no-code builder's first workflow, through n8n's engine against the sandbox: a
 * repeat that says it is one, errors that say what to do next, dropdowns in plain words, a
 * trigger whose every event the node picker lists, and a test event that says it is a sample.
 * The editor itself is checked in test/e2e/builder.e2e.ts.
 */
import { readFileSync } from 'fs';
import path from 'path';

import type {
	INodeParameters,
	INodeProperties,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { byId, byMode, useSandbox } from '../harness/fixtures';
import { crmNode, loadPackage, NODE_TYPE, PACKAGE_ROOT } from '../harness/engine';
import { callMethod } from '../harness/toolRuns';
import { createTrigger, TRIGGER_TYPE } from '../harness/triggerRuns';
import { DEMO } from '../sandbox/store';
import { MessagingCrm } from '../../nodes/MessagingCrm/MessagingCrm.node';
import { MessagingCrmTrigger } from '../../nodes/MessagingCrm/MessagingCrmTrigger.node';
import { families } from '../../nodes/MessagingCrm/trigger/families';

const env = useSandbox();

/** An expression of a node's description (a hint's condition, a subtitle) as n8n evaluates it. */
async function evaluate(
	expression: string,
	parameters: INodeParameters,
	type = NODE_TYPE,
	typeVersion = 1,
): Promise<unknown> {
	const { nodeTypes } = await loadPackage();
	const node = { ...crmNode(parameters), type, typeVersion };
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	return workflow.expression.getSimpleParameterValue(node, expression, 'internal', {});
}

const upsert = (phone: string, options = {}) => ({
	resource: 'customer',
	operation: 'upsert',
	phone,
	options,
});
const send = (customerId: string, options = {}) => ({
	resource: 'message',
	operation: 'send',
	customerId: byId(customerId),
	messengerType: 'telegram',
	content: 'text',
	text: 'Welcome!',
	options,
});

describe('a repeat is unmistakable', () => {
	it('Create or Update says created, then repeated (the API marks it), with what to do to write again', async () => {
		const first = await env.run(upsert('+15550300001'));
		const again = await env.run(upsert('+15550300001'));
		expect(first.items[0].json.result).toBe('created');
		expect(first.items[0].json.repeat).toBeUndefined();
		expect(again.items[0].json).toMatchObject({
			result: 'repeated',
			created: true,
			replayed: true,
		});
		expect(again.items[0].json.repeat).toMatch(
			/^Nothing was changed this time: this node already wrote this customer for the same event within 24 hours.*Every Execution Sends/,
		);
		expect(again.hints).toEqual([
			expect.objectContaining({
				type: 'warning',
				location: 'outputPane',
				message: expect.stringMatching(/^1 of 1 item was a repeat: .*nothing was changed for it/),
			}),
		]);
		// Every Execution Sends: a real write, which the API answers as an update; no hint.
		const sent = await env.run(upsert('+15550300001', { repeatProtection: 'execution' }));
		expect(sent.items[0].json.result).toBe('updated');
		expect(sent.hints).toEqual([]);
	});

	it('against a server that does not mark its stored answers, the output pane still says a repeat may have been one', async () => {
		env.sandbox.markReplays = false;
		await env.run(upsert('+15550300002'));
		const again = await env.run(upsert('+15550300002'));
		// The API's stored answer, unmarked: the item cannot know, the hint says so.
		expect(again.items[0].json.result).toBe('created');
		expect(env.sandbox.requests().at(-1)?.replayed).toBe(true);
		expect(again.hints).toEqual([
			expect.objectContaining({
				type: 'info',
				message: expect.stringMatching(
					/^The API accepted 1 item\. Repeat Protection is on: if this same event runs again within 24 hours, the API answers with this same result and nothing is written twice\. /,
				),
			}),
		]);
	});

	it('Send says a repeat sent nothing, per item and in the output pane', async () => {
		const [customer] = await env.ok({
			resource: 'customer',
			operation: 'upsert',
			messengersUi: { messenger: [{ type: 'telegram', id: '3000001' }] },
		});
		const id = String(customer.id);
		const first = await env.run(send(id));
		const again = await env.run(send(id));
		expect(first.items[0].json.status).toBe('sent');
		expect(first.hints.map((h) => h.type)).toEqual(['info']);
		expect(again.items[0].json.repeat).toMatch(
			/^Nothing was sent this time: this node already sent this message to this customer for the same event within 24 hours/,
		);
		expect(again.hints[0].message).toMatch(/^1 of 1 item was a repeat/);
		expect(env.sandbox.store.messages.size).toBe(1);
	});

	it('the panel says before a run that a repeat sends nothing, for Send and Create or Update only, while Repeat Protection applies', async () => {
		const hints = new MessagingCrm().description.hints ?? [];
		expect(hints.map((h) => [h.whenToDisplay, h.location])).toEqual([
			['beforeExecution', 'outputPane'],
			['beforeExecution', 'outputPane'],
		]);
		expect(hints.map((h) => h.displayCondition)).toEqual([
			expect.stringContaining(
				'$parameter["resource"] === "customer" && $parameter["operation"] === "upsert"',
			),
			expect.stringContaining(
				'$parameter["resource"] === "message" && $parameter["operation"] === "send"',
			),
		]);
		for (const hint of hints)
			expect(hint.message).toMatch(
				/^Safe to run again: the same event run again .*a test run from the editor on the same trigger data too.*every new event is/,
			);
		// Evaluated as n8n does: shown for Send by default, not for another operation, not once
		// every execution sends or an own key decides.
		const shown = async (parameters: INodeParameters) =>
			await Promise.all(hints.map(async (h) => await evaluate(h.displayCondition!, parameters)));
		const sendNode = { resource: 'message', operation: 'send' };
		expect(await shown(sendNode)).toEqual([false, true]);
		expect(await shown({ resource: 'customer', operation: 'upsert', options: {} })).toEqual([
			true,
			false,
		]);
		expect(await shown({ resource: 'customer', operation: 'get' })).toEqual([false, false]);
		expect(await shown({ ...sendNode, options: { repeatProtection: 'execution' } })).toEqual([
			false,
			false,
		]);
		expect(await shown({ ...sendNode, options: { idempotencyKey: '={{ $json.id }}' } })).toEqual([
			false,
			false,
		]);
	});
});

describe('every error says what to do next', () => {
	it('an unknown customer ID points to the lookup modes', async () => {
		const { error } = await env.run(send('3f1c0a52-5d2e-4a7b-9c41-0e8d2b6f7a10'));
		expect(error?.message).toMatch(
			/^not_found: customer 3f1c0a52-5d2e-4a7b-9c41-0e8d2b6f7a10 was not found/,
		);
		expect(error?.description).toMatch(/set Customer to By Phone, By Email or By Messenger/);
	});

	it('a name typed into By ID points to the other modes, before any request', async () => {
		// n8n itself refuses the run, with the field's own check (as the editor shows it under the field).
		const { error } = await env.run({ ...send(''), customerId: byId('Anna Petrova') });
		expect(error?.message).toMatch(
			/Not a customer ID \(a UUID\): to find a customer, switch By ID to By Phone, By Email or By Messenger/,
		);
		expect(env.sandbox.requests()).toHaveLength(0);
		const locator = new MessagingCrm().description.properties.find(
			(p) => p.name === 'customerId',
		) as INodeProperties & { modes: Array<{ name: string; validation?: unknown }> };
		expect(JSON.stringify(locator.modes[0].validation)).toContain('switch By ID to By Phone');
	});

	it.each([
		[
			500,
			'internal',
			/Run the workflow again in a few minutes: what went through is not done twice/,
		],
		[422, 'validation_error', /The API refused a value and changed nothing: the message names it/],
		[403, 'forbidden', /Check that the key belongs to the right company/],
		[409, 'conflict', /Read the state first \(Get Many deals of the customer\)/],
	])('an API %i says what to do', async (status, code, hint) => {
		const body = { error: { code, message: 'refused', details: {} } };
		env.sandbox.injectFault({ path: '/agents', count: 10, kind: 'status', status, body });
		const { error } = await env.run({ resource: 'agent', operation: 'getMany' });
		expect(error?.description).toMatch(hint);
	});

	it('an unknown promo pool points to the pool list', async () => {
		const { error } = await env.run({
			resource: 'promoPool',
			operation: 'get',
			poolId: byId('3f1c0a52-5d2e-4a7b-9c41-0e8d2b6f7a10'),
		});
		expect(error?.message).toMatch(/^not_found/);
		expect(error?.description).toMatch(/^No promo pool of this key's company has this ID/);
	});

	it('a customer that does not exist empties no dropdown: every messenger type, each saying why', async () => {
		const options = (await callMethod({
			kind: 'loadOptions',
			method: 'getCustomerMessengers',
			parameters: { customerId: byId('3f1c0a52-5d2e-4a7b-9c41-0e8d2b6f7a10') },
			credentials: env.creds(),
		})) as INodePropertyOptions[];
		expect(options.map((o) => o.name)).toContain('Telegram Bot');
		// After Best Available, which needs no list of the customer's.
		expect(options[0].value).toBe('bestAvailable');
		expect(options[1].description).toBe(
			'No customer has the ID 3f1c0a52-5d2e-4a7b-9c41-0e8d2b6f7a10: every messenger type is listed. Fix the Customer field to list only theirs.',
		);
		const byPhone = (await callMethod({
			kind: 'loadOptions',
			method: 'getCustomerMessengers',
			parameters: { customerId: byMode('phone', '+15550399999') },
			credentials: env.creds(),
		})) as INodePropertyOptions[];
		expect(byPhone[1].description).toMatch(/^No customer has the phone \+15550399999/);
	});
});

describe('a node just added, before the editor has picked its credential', () => {
	it('its dropdowns say how to get the list (under the empty choice where the field has one), with no request and no error', async () => {
		const quiet = async (kind: 'loadOptions' | 'listSearch', method: string) =>
			await callMethod({
				kind,
				method,
				parameters: {},
				credentials: env.creds(),
				withoutCredential: true,
			});
		const says = expect.stringMatching(
			/^n8n asked for this list before it had set the node's credential: .*Refresh List/,
		);
		expect(await quiet('loadOptions', 'getAgentsOrAll')).toEqual([
			{ name: '(All Agents)', value: '', description: says },
		]);
		expect(await quiet('loadOptions', 'getAgents')).toEqual([
			{ name: '(List Not Loaded Yet)', value: '', description: says },
		]);
		expect(await quiet('loadOptions', 'getPools')).toEqual([
			{ name: '(List Not Loaded Yet)', value: '', description: says },
		]);
		expect(await quiet('listSearch', 'searchPools')).toEqual({ results: [] });
		expect(env.sandbox.requests()).toHaveLength(0);
		// With the credential, the same method lists the agents.
		const listed = (await callMethod({
			kind: 'loadOptions',
			method: 'getAgentsOrAll',
			parameters: {},
			credentials: env.creds(),
		})) as INodePropertyOptions[];
		expect(listed.length).toBeGreaterThan(1);
	});
});

describe('names a builder knows', () => {
	it("the customer's messengers by their names, pools with labelled counts", async () => {
		const [customer] = await env.ok({
			resource: 'customer',
			operation: 'upsert',
			messengersUi: {
				messenger: [
					{ type: 'telegram', id: '3000002' },
					{ type: 'whatsapp_personal', id: '15550300003' },
				],
			},
		});
		const messengers = (await callMethod({
			kind: 'loadOptions',
			method: 'getCustomerMessengers',
			parameters: { customerId: byId(String(customer.id)) },
			credentials: env.creds(),
		})) as INodePropertyOptions[];
		expect(messengers.map((o) => [o.name, o.value, o.description])).toEqual([
			[
				'Best Available',
				'bestAvailable',
				"The first of the customer's messengers that takes the message now, in the order of 'Try Messengers In Order'",
			],
			['Telegram Bot', 'telegram', 'ID 3000002'],
			['WhatsApp Personal Account', 'whatsapp_personal', 'ID 15550300003'],
		]);
		const pools = (await callMethod({
			kind: 'loadOptions',
			method: 'getPools',
			parameters: {},
			credentials: env.creds(),
		})) as INodePropertyOptions[];
		expect(pools.map((o) => o.name)).toContain('VIP gifts: 10 left of 10, low at 3');
	});

	/** Optional dropdowns whose list has no first choice saying what empty means. */
	function unheaded(properties: INodeProperties[]): string[] {
		return properties
			.filter((p) => p.type === 'options' && p.typeOptions?.loadOptionsMethod && !p.required)
			.filter((p) => !/^get[A-Za-z]+Or[A-Z]/.test(String(p.typeOptions?.loadOptionsMethod)))
			.map((p) => `${p.name} (${String(p.typeOptions?.loadOptionsMethod)})`);
	}

	it("every optional dropdown's empty choice says what it means (a plain list on an optional field is caught)", () => {
		const action = new MessagingCrm().description.properties;
		const trigger = new MessagingCrmTrigger().description.properties;
		expect(unheaded([...action, ...trigger])).toEqual([]);
		// Planted: the plain agent list on an optional agent field.
		const planted = action.map((p) =>
			p.name === 'agentId' ? { ...p, typeOptions: { loadOptionsMethod: 'getAgents' } } : p,
		);
		expect(unheaded(planted).length).toBeGreaterThan(0);
	});

	it('the subtitles are words: the action, the first event', async () => {
		const subtitle = new MessagingCrm().description.subtitle!;
		expect(await evaluate(subtitle, { resource: 'message', operation: 'send' })).toBe(
			'Send a message',
		);
		expect(await evaluate(subtitle, { resource: 'customer', operation: 'upsert' })).toBe(
			'Create or update a customer',
		);
		const trigger = new MessagingCrmTrigger().description.subtitle!;
		const of = async (parameters: INodeParameters, version = 2) =>
			await evaluate(trigger, parameters, TRIGGER_TYPE, version);
		expect(await of({ events: ['poolLow'] })).toBe('Pool Became Low');
		expect(await of({ events: ['dealWon', 'poolLow'] })).toBe('Deal Won and more');
		expect(await of({ events: [] })).toBe('');
		expect(await of({ watch: 'deals', dealEvents: ['dealMoved'] }, 1)).toBe(
			'Deal Moved to Another Stage',
		);
	});
});

describe('the trigger is findable', () => {
	/**
	 * n8n's node picker lists as a trigger's events the options of its first property named
	 * "Event", "Events" or "Trigger On" (editor-ui useActionsGeneration.ts, triggersCategory).
	 */
	function pickerEvents(description: INodeTypeDescription): string[] {
		const property = description.properties.find((p) =>
			['event', 'events', 'trigger on'].includes(p.displayName.toLowerCase()),
		);
		return ((property?.options ?? []) as INodePropertyOptions[]).map((o) => String(o.value));
	}

	it('the node picker lists every event, pools, deals and templates; with the version 1 list first it would not (planted)', () => {
		const description = new MessagingCrmTrigger().description;
		expect(pickerEvents(description).sort()).toEqual(
			families.flatMap((family) => [...family.events]).sort(),
		);
		expect(pickerEvents(description)).toHaveLength(20);
		// Planted: with the version 1 lists first, the deal events vanish from the picker.
		const planted = {
			...description,
			properties: description.properties.filter((p) => p.name !== 'events'),
		};
		expect(pickerEvents(planted)).toHaveLength(9);
		expect(pickerEvents(planted)).not.toContain('dealWon');
	});

	it('one trigger with pool and deal events reports both; the state survives a restart', async () => {
		const [customer] = await env.ok(upsert('+15550300004'));
		const customerId = String(customer.id);
		const trigger = await createTrigger(
			{ events: ['codesIssued', 'dealMoved'], customerIds: customerId },
			env.creds(),
			2,
		);
		expect(await trigger.poll()).toBeNull();
		env.sandbox.issueCodes(DEMO.vipPool, 2);
		await env.ok({
			resource: 'deal',
			operation: 'moveStage',
			dealBy: 'customer',
			customerId: byId(customerId),
			pipelineId: String((customer.deal as { pipeline_id: string }).pipeline_id),
			stageBy: 'code',
			stageCode: 'qualified',
		});
		trigger.restart();
		const events = (await trigger.poll())?.map((e) => e.event);
		expect(events?.sort()).toEqual(['codesIssued', 'dealMoved']);
		expect(await trigger.poll()).toBeNull();
	});

	it('Fetch Test Event samples the first event as picked, not as sorted; a change event is neither matched nor not', async () => {
		const trigger = await createTrigger(
			{ events: ['poolRestocked', 'anyCounterChanged'] },
			env.creds(),
			2,
		);
		const [event] = (await trigger.poll('manual')) ?? [];
		expect(event).toMatchObject({ event: 'poolRestocked', sample_matches_event: null });
		expect(event.message).toBeUndefined();
	});

	it('Fetch Test Event says it is a sample, from which pool, and picks a pool that shows the event', async () => {
		env.sandbox.issueCodes(DEMO.vipPool, 8); // 2 of 10 left, low at 3
		const trigger = await createTrigger({ events: ['poolLow'] }, env.creds(), 2);
		const [event] = (await trigger.poll('manual')) ?? [];
		expect(event).toMatchObject({
			event: 'poolLow',
			sample: true,
			sample_pool: 'VIP gifts: 2 left of 10, low at 3',
			sample_matches_event: true,
		});
		expect(event.sample_note).toMatch(/^A sample for building the workflow, not an event/);
		expect(trigger.staticData()['node:Trigger']).toEqual({});
		// No pool is low: the sample says so in its own fields.
		env.sandbox.reset('demo');
		env.apiKey = env.sandbox.mintKey();
		const calm = await createTrigger({ events: ['poolLow'] }, env.creds(), 2);
		const [plain] = (await calm.poll('manual')) ?? [];
		expect(plain.sample_matches_event).toBe(false);
		expect(plain.message).toMatch(/^No watched pool shows this event right now/);
	});

	it('the docs links have no anchor for n8n to append its tracking parameter after; "send message" finds the node', () => {
		const aliases: string[] = [];
		for (const file of ['MessagingCrm.node.json', 'MessagingCrmTrigger.node.json']) {
			const codex = JSON.parse(
				readFileSync(path.join(PACKAGE_ROOT, 'nodes', 'MessagingCrm', file), 'utf8'),
			) as { resources: Record<string, Array<{ url: string }>>; alias: string[] };
			for (const links of Object.values(codex.resources))
				for (const { url } of links)
					expect(url).toMatch(/^https:\/\/github\.com\/.*\/docs\/[a-z-]+\.md$/);
			aliases.push(...codex.alias.map((a) => a.toLowerCase()));
		}
		// n8n's top-level search matches a node's name and its codex aliases, not its actions.
		expect(aliases).toContain('send message');
	});
});
