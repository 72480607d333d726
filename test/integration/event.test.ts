/**
 * A repeat is the same event run again, never merely the same words: the derived Idempotency-Key
 * names the trigger item each item descends from. Whole workflows through n8n's engine, the
 * trigger's data handed on as n8n hands it (harness/workflow.ts). Acceptance is the sandbox's
 * state: messages per customer.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { useSandbox } from '../harness/fixtures';
import type { WorkflowRun, WorkflowSpec } from '../harness/workflow';
import { chain, CODE, crmStep, n8nNode, retryWorkflow, startWorkflow } from '../harness/workflow';

const env = useSandbox();

const REMINDER = 'Reminder: your order is waiting for you.';

const send = (fields: IDataObject = {}): IDataObject => ({
	resource: 'message',
	operation: 'send',
	customerId: { __rl: true, mode: 'id', value: '={{ $json.customerId }}' },
	messengerType: 'telegram',
	text: REMINDER,
	...fields,
});

/** A schedule tick's item as n8n's Schedule Trigger gives it. */
const tick = (iso: string): INodeExecutionData[] => {
	const at = new Date(iso);
	return [
		{
			json: {
				timestamp: iso,
				'Readable date': at.toUTCString(),
				'Day of week': at.toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' }),
				Hour: String(at.getUTCHours()).padStart(2, '0'),
				Minute: String(at.getUTCMinutes()).padStart(2, '0'),
				Second: String(at.getUTCSeconds()).padStart(2, '0'),
				Timezone: 'UTC (UTC+00:00)',
			},
		},
	];
};

/** A webhook item as n8n's Webhook node gives it; `delivery` changes only the headers. */
const webhookItem = (body: IDataObject, delivery: string): INodeExecutionData[] => [
	{
		json: {
			headers: {
				'content-type': 'application/json',
				'x-delivery-id': delivery,
				'x-signature': `t=${delivery},v1=abc`,
				'x-retry-count': delivery.endsWith('retry') ? '1' : '0',
			},
			params: {},
			query: {},
			body,
			webhookUrl: 'http://localhost:5678/webhook/orders',
			executionMode: 'production',
		},
	},
];

const sentTo = (ids: string[]) => env.sandbox.sentTo(ids);
const customers = (count: number) =>
	Array.from({ length: count }, (_, i) => env.sandbox.demoCustomer(`Event customer ${i + 1}`));

let runs = 0;
const start = async (
	spec: WorkflowSpec,
	trigger: string,
	items: INodeExecutionData[],
	mode: 'trigger' | 'webhook' | 'integrated' | 'manual',
	pinned = false,
) =>
	await startWorkflow(spec, env.creds(), {
		trigger,
		items,
		mode,
		pinned,
		executionId: `event-${++runs}`,
	});

const outcomes = (run: WorkflowRun, node = 'Send') =>
	run.output(node).map((i) => (i.json.replayed ? 'replayed' : String(i.json.status)));

describe('a schedule sends the same reminder on every tick, and a re-run of one tick sends nothing twice', () => {
	// Schedule Trigger → Code (the customers to remind) → Send.
	let ids: string[];
	let spec: WorkflowSpec;
	beforeEach(() => {
		ids = customers(2);
		const list = ids;
		CODE.remindThese = () => list.map((customerId) => ({ json: { customerId } }));
		spec = chain(
			n8nNode('Schedule Trigger', 'n8n-nodes-base.scheduleTrigger'),
			n8nNode('Customers to remind', 'n8n-nodes-base.code', { code: 'remindThese' }),
			crmStep('Send', send()),
		);
	});

	it("10:00 sent, 22:00 the same text sent, n8n's Retry of 22:00 nothing new, the 22:00 data again nothing new", async () => {
		const ten = await start(spec, 'Schedule Trigger', tick('2026-11-24T10:00:00.000Z'), 'trigger');
		expect(outcomes(ten)).toEqual(['sent', 'sent']);
		expect(sentTo(ids)).toEqual([1, 1]);

		// At 22:00 the second customer's channel refuses once: the execution fails at Send.
		env.sandbox.store.sendFailures.set(ids[1], ['channel_unavailable']);
		const twentyTwo = await start(
			spec,
			'Schedule Trigger',
			tick('2026-11-24T22:00:00.000Z'),
			'trigger',
		);
		expect(twentyTwo.error?.message).toMatch(/^channel_unavailable/);
		expect(sentTo(ids)).toEqual([2, 1]);

		const retried = await retryWorkflow(spec, env.creds(), twentyTwo);
		expect(retried.error).toBeUndefined();
		expect(outcomes(retried)).toEqual(['replayed', 'sent']);
		expect(sentTo(ids)).toEqual([2, 2]);

		const again = await start(
			spec,
			'Schedule Trigger',
			tick('2026-11-24T22:00:00.000Z'),
			'trigger',
		);
		expect(outcomes(again)).toEqual(['replayed', 'replayed']);
		expect(sentTo(ids)).toEqual([2, 2]);
	});

	it('the editor on pinned tick data sends once; a Manual Trigger (the same empty item each time) stays protected', async () => {
		const pinned = tick('2026-11-24T10:00:00.000Z');
		await start(spec, 'Schedule Trigger', pinned, 'manual', true);
		const again = await start(spec, 'Schedule Trigger', pinned, 'manual', true);
		expect(outcomes(again)).toEqual(['replayed', 'replayed']);
		expect(sentTo(ids)).toEqual([1, 1]);

		const manual = chain(
			n8nNode('When clicking Execute workflow', 'n8n-nodes-base.manualTrigger'),
			n8nNode('Customers to remind', 'n8n-nodes-base.code', { code: 'remindThese' }),
			crmStep('Send', send({ text: 'Tested from the editor' })),
		);
		const first = await start(manual, 'When clicking Execute workflow', [{ json: {} }], 'manual');
		const second = await start(manual, 'When clicking Execute workflow', [{ json: {} }], 'manual');
		expect(outcomes(first)).toEqual(['sent', 'sent']);
		expect(outcomes(second)).toEqual(['replayed', 'replayed']);
		expect(sentTo(ids)).toEqual([2, 2]);
	});
});

describe('a webhook: its body names the event, not the delivery', () => {
	const spec = chain(
		n8nNode('Webhook', 'n8n-nodes-base.webhook'),
		crmStep(
			'Send',
			send({
				customerId: { __rl: true, mode: 'id', value: '={{ $json.body.customerId }}' },
				text: 'Thanks, we got your request',
			}),
		),
	);

	it('the same body delivered again with other headers sends once; a second request with the same words sends', async () => {
		const [id] = customers(1);
		const first = { requestId: 'R-1', customerId: id };
		await start(spec, 'Webhook', webhookItem(first, 'd-1'), 'webhook');
		const redelivered = await start(spec, 'Webhook', webhookItem(first, 'd-1-retry'), 'webhook');
		expect(outcomes(redelivered)).toEqual(['replayed']);
		expect(sentTo([id])).toEqual([1]);

		await start(
			spec,
			'Webhook',
			webhookItem({ requestId: 'R-2', customerId: id }, 'd-2'),
			'webhook',
		);
		expect(sentTo([id])).toEqual([2]);
	});

	it('a body with nothing but the customer is one event however often it is delivered (the sender gave it no ID)', async () => {
		const [id] = customers(1);
		await start(spec, 'Webhook', webhookItem({ customerId: id }, 'a'), 'webhook');
		await start(spec, 'Webhook', webhookItem({ customerId: id }, 'b'), 'webhook');
		expect(sentTo([id])).toEqual([1]);
	});
});

describe('a form: each submission is an event', () => {
	const spec = chain(
		n8nNode('On form submission', 'n8n-nodes-base.formTrigger'),
		crmStep('Send', send({ text: 'Welcome aboard!' })),
	);
	const submission = (customerId: string, submittedAt: string, formMode = 'production') => [
		{ json: { customerId, 'Your name': 'Anna', submittedAt, formMode } },
	];

	it('the same answers submitted twice send twice; the same submission run again (test or production URL) sends once', async () => {
		const [id] = customers(1);
		await start(
			spec,
			'On form submission',
			submission(id, '2026-11-24T10:00:01.000+00:00'),
			'webhook',
		);
		await start(
			spec,
			'On form submission',
			submission(id, '2026-11-24T10:00:09.000+00:00'),
			'webhook',
		);
		expect(sentTo([id])).toEqual([2]);
		const rerun = await start(
			spec,
			'On form submission',
			submission(id, '2026-11-24T10:00:09.000+00:00', 'test'),
			'manual',
			true,
		);
		expect(outcomes(rerun)).toEqual(['replayed']);
		expect(sentTo([id])).toEqual([2]);
	});
});

describe('a sub-workflow: the event is what the calling workflow passed', () => {
	const spec = chain(
		n8nNode('When Executed by Another Workflow', 'n8n-nodes-base.executeWorkflowTrigger'),
		crmStep('Send', send({ text: '={{ $json.text }}' })),
	);

	it('two calls with other data send twice; the same call again (the caller retried) sends once', async () => {
		const [id] = customers(1);
		const call = (order: string) => [
			{ json: { customerId: id, order, text: 'Your order is ready for pickup' } },
		];
		await start(spec, 'When Executed by Another Workflow', call('A-1'), 'integrated');
		await start(spec, 'When Executed by Another Workflow', call('A-2'), 'integrated');
		const again = await start(spec, 'When Executed by Another Workflow', call('A-2'), 'integrated');
		expect(outcomes(again)).toEqual(['replayed']);
		expect(sentTo([id])).toEqual([2]);
	});
});

describe('where the lineage cannot be followed', () => {
	// Webhook (a list of customers) → Split Out → Code that returns fewer items without pairing → Send.
	let ids: string[];
	let spec: WorkflowSpec;
	beforeEach(() => {
		ids = customers(3);
		CODE.firstTwo = (items) => items.slice(0, 2).map((i) => ({ json: { ...i.json } }));
		spec = chain(
			n8nNode('Webhook', 'n8n-nodes-base.webhook'),
			n8nNode('One item each', 'n8n-nodes-base.splitOut', { fieldToSplitOut: 'body.customers' }),
			n8nNode('Pick', 'n8n-nodes-base.code', { code: 'firstTwo' }),
			crmStep('Send', send()),
		);
	});
	const delivery = (batch: string, tag: string) =>
		webhookItem({ batch, customers: ids.map((customerId) => ({ customerId })) }, tag);

	it('the run goes on with a hint naming the node that dropped the pairing; a re-run sends nothing twice, a new event sends', async () => {
		const first = await start(spec, 'Webhook', delivery('B-1', 'x'), 'webhook');
		expect(first.error).toBeUndefined();
		expect(outcomes(first)).toEqual(['sent', 'sent']);
		const hint = first.hints('Send').find((h) => /could not be traced back/.test(h.message));
		expect(hint?.message).toMatch(
			/^2 items could not be traced back to the "Webhook" item they came from: "Pick" gives its items no link/,
		);
		expect(hint?.message).toMatch(/running this execution again leaves nothing sent twice/);

		const again = await start(spec, 'Webhook', delivery('B-1', 'y'), 'webhook');
		expect(outcomes(again)).toEqual(['replayed', 'replayed']);
		await start(spec, 'Webhook', delivery('B-2', 'z'), 'webhook');
		expect(sentTo(ids)).toEqual([2, 2, 0]);
	});

	it("n8n's Retry of such an execution sends nothing twice", async () => {
		env.sandbox.store.sendFailures.set(ids[1], ['channel_unavailable']);
		const failed = await start(spec, 'Webhook', delivery('B-1', 'x'), 'webhook');
		expect(failed.error?.message).toMatch(/^channel_unavailable/);
		const retried = await retryWorkflow(spec, env.creds(), failed);
		expect(outcomes(retried)).toEqual(['replayed', 'sent']);
		expect(sentTo(ids)).toEqual([1, 1, 0]);
	});

	it("an Aggregate of a poll's two events: one summary per poll, a re-run sends it once, no hint (nothing was lost)", async () => {
		const [id] = customers(1);
		// The Messaging CRM Trigger's own items, as a poll emits them (two deals won at once).
		const summary: WorkflowSpec = chain(
			{ ...n8nNode('Deal won', 'n8n-nodes-messaging-crm.messagingCrmTrigger'), typeVersion: 2 },
			n8nNode('Aggregate', 'n8n-nodes-base.aggregate'),
			crmStep(
				'Send',
				send({ customerId: { __rl: true, mode: 'id', value: id }, text: 'Two deals won today' }),
			),
		);
		const won = (...deals: string[]) =>
			deals.map((deal) => ({ json: { event: 'dealWon', customer_id: id, deal: { id: deal } } }));
		const first = await start(summary, 'Deal won', won('D-1', 'D-2'), 'trigger');
		expect(outcomes(first)).toEqual(['sent']);
		expect(first.hints('Send').some((h) => /could not be traced/.test(h.message))).toBe(false);
		const again = await start(summary, 'Deal won', won('D-1', 'D-2'), 'trigger');
		expect(outcomes(again)).toEqual(['replayed']);
		await start(summary, 'Deal won', won('D-3', 'D-4'), 'trigger');
		expect(sentTo([id])).toEqual([2]);
	});
});

describe('a Merge by position of two branches of one event keeps each item its own event', () => {
	it("a poll's two events asking for the same words through a Merge send twice; the poll run again sends nothing", async () => {
		const [id] = customers(1);
		CODE.tag = (items) => items.map((i) => ({ json: { tag: `won-${String(i.json.deal)}` } }));
		const nodes = [
			{ ...n8nNode('Deal won', 'n8n-nodes-messaging-crm.messagingCrmTrigger'), typeVersion: 2 },
			n8nNode('Tag', 'n8n-nodes-base.code', { code: 'tag' }),
			n8nNode('Merge', 'n8n-nodes-base.merge'),
			crmStep('Send', send({ text: 'Congratulations on your purchase!' })),
		];
		const to = (node: string, index = 0) => ({ node, type: 'main' as const, index });
		const spec: WorkflowSpec = {
			nodes,
			connections: {
				'Deal won': { main: [[to('Merge', 0), to('Tag')]] },
				Tag: { main: [[to('Merge', 1)]] },
				Merge: { main: [[to('Send')]] },
			},
		};
		const won = ['D-1', 'D-2'].map((deal) => ({
			json: { event: 'dealWon', customerId: id, deal, detected_at: '2026-11-24T10:00:00.000Z' },
		}));
		const first = await start(spec, 'Deal won', won, 'trigger');
		expect(outcomes(first)).toEqual(['sent', 'sent']);
		expect(first.hints('Send').some((h) => /could not be traced/.test(h.message))).toBe(false);
		const again = await start(spec, 'Deal won', won, 'trigger');
		expect(outcomes(again)).toEqual(['replayed', 'replayed']);
		expect(sentTo([id])).toEqual([2]);
	});
});

describe('what stays one event', () => {
	it('an earlier node that answers otherwise on the re-run (Open Conversation: created, then not) sends nothing twice', async () => {
		const [id] = customers(1);
		let opened = 0;
		CODE.open = (items) =>
			items.map((i) => ({ json: { ...(i.json.body as object), created: ++opened === 1 } }));
		const spec = chain(
			n8nNode('Webhook', 'n8n-nodes-base.webhook'),
			n8nNode('Open conversation', 'n8n-nodes-base.code', { code: 'open' }),
			crmStep('Send', send()),
		);
		await start(spec, 'Webhook', webhookItem({ customerId: id }, 'o-1'), 'webhook');
		const again = await start(spec, 'Webhook', webhookItem({ customerId: id }, 'o-2'), 'webhook');
		expect(outcomes(again)).toEqual(['replayed']);
		expect(sentTo([id])).toEqual([1]);
	});

	it('the same request twice within one event (a customer listed twice) is sent once', async () => {
		const [id] = customers(1);
		const spec = chain(
			n8nNode('Webhook', 'n8n-nodes-base.webhook'),
			n8nNode('One item each', 'n8n-nodes-base.splitOut', { fieldToSplitOut: 'body.customers' }),
			crmStep('Send', send()),
		);
		const body = { customers: [{ customerId: id }, { customerId: id }] };
		const run = await start(spec, 'Webhook', webhookItem(body, 't-1'), 'webhook');
		expect(outcomes(run)).toEqual(['sent', 'replayed']);
		expect(sentTo([id])).toEqual([1]);
	});

	it("a trigger item holding a Date (as mail and other triggers emit it): n8n's Retry, which reads it back as text, sends nothing twice", async () => {
		const ids = customers(2);
		const spec = chain(
			n8nNode('Schedule Trigger', 'n8n-nodes-base.scheduleTrigger'),
			n8nNode('Customers to remind', 'n8n-nodes-base.code', { code: 'remindThese' }),
			crmStep('Send', send()),
		);
		CODE.remindThese = () => ids.map((customerId) => ({ json: { customerId } }));
		env.sandbox.store.sendFailures.set(ids[1], ['channel_unavailable']);
		const failed = await start(
			spec,
			'Schedule Trigger',
			[{ json: { receivedAt: new Date('2026-11-24T10:00:00Z') as unknown as string } }],
			'trigger',
		);
		expect(failed.error?.message).toMatch(/^channel_unavailable/);
		const retried = await retryWorkflow(spec, env.creds(), failed);
		expect(outcomes(retried)).toEqual(['replayed', 'sent']);
		expect(sentTo(ids)).toEqual([1, 1]);
	});
});

describe('after Send and Wait for Response, each answer is an event', () => {
	// Manual Trigger → Ask (its answer pinned, as n8n resumes it with the answer) → Thank.
	const ask = (customerId: string) =>
		crmStep('Ask', {
			resource: 'message',
			operation: 'sendAndWait',
			customerId: { __rl: true, mode: 'id', value: customerId },
			messengerType: 'telegram',
			message: 'Can you make it on Tuesday?',
		});
	const answer = (customerId: string, respondedAt: string): INodeExecutionData[] => [
		{
			json: {
				data: { approved: true, respondedAt },
				customer_id: customerId,
				messenger_type: 'telegram',
			},
		},
	];
	const asked = async (spec: WorkflowSpec, answered: INodeExecutionData[]) =>
		await startWorkflow(spec, env.creds(), {
			trigger: 'Run',
			items: [{ json: {} }],
			mode: 'manual',
			executionId: `event-${++runs}`,
			pinData: { Ask: answered },
		});

	it('the same question answered twice (the same empty Manual Trigger item) thanks twice; the same answer run again thanks once', async () => {
		const [id] = customers(1);
		const spec = chain(
			n8nNode('Run', 'n8n-nodes-base.manualTrigger'),
			ask(id),
			crmStep('Thank', send({ customerId: { __rl: true, mode: 'id', value: id } })),
		);
		const first = answer(id, '2026-11-24T10:00:00.000Z');
		expect(outcomes(await asked(spec, first), 'Thank')).toEqual(['sent']);
		const second = await asked(spec, answer(id, '2026-11-25T09:30:00.000Z'));
		expect(outcomes(second, 'Thank')).toEqual(['sent']);
		expect(outcomes(await asked(spec, first), 'Thank')).toEqual(['replayed']);
		expect(sentTo([id])).toEqual([2]);
	});

	it('Limit Wait Time ran out (the node passes its input on, no answer): the trigger item alone is the event', async () => {
		const [id] = customers(1);
		const spec = chain(
			n8nNode('Run', 'n8n-nodes-base.manualTrigger'),
			ask(id),
			crmStep('Thank', send({ customerId: { __rl: true, mode: 'id', value: id } })),
		);
		const timedOut = [{ json: {} }];
		expect(outcomes(await asked(spec, timedOut), 'Thank')).toEqual(['sent']);
		expect(outcomes(await asked(spec, timedOut), 'Thank')).toEqual(['replayed']);
		expect(sentTo([id])).toEqual([1]);
	});

	it('a Send between them is not an answer: the Manual Trigger item stays one event', async () => {
		const [id] = customers(1);
		const notAsking = crmStep('Ask', {
			resource: 'message',
			operation: 'send',
			customerId: { __rl: true, mode: 'id', value: id },
			messengerType: 'telegram',
			text: 'Hello',
		});
		const spec = chain(
			n8nNode('Run', 'n8n-nodes-base.manualTrigger'),
			notAsking,
			crmStep('Thank', send({ customerId: { __rl: true, mode: 'id', value: id } })),
		);
		await asked(spec, answer(id, '2026-11-24T10:00:00.000Z'));
		const second = await asked(spec, answer(id, '2026-11-25T09:30:00.000Z'));
		expect(outcomes(second, 'Thank')).toEqual(['replayed']);
		expect(sentTo([id])).toEqual([1]);
	});
});

describe('upserts follow the same rule', () => {
	it('the same person from two form submissions is written twice (updated), the same submission again is a repeat', async () => {
		const spec = chain(
			n8nNode('On form submission', 'n8n-nodes-base.formTrigger'),
			crmStep('Create or Update', {
				resource: 'customer',
				operation: 'upsert',
				phone: '={{ $json.phone }}',
				additionalFields: { fullName: '={{ $json.name }}' },
			}),
		);
		const form = (at: string) => [
			{ json: { phone: '+15550109999', name: 'Ola Nordmann', submittedAt: at } },
		];
		const results = async (at: string) =>
			(await start(spec, 'On form submission', form(at), 'webhook'))
				.output('Create or Update')
				.map((i) => i.json.result);
		expect(await results('2026-11-24T10:00:00.000Z')).toEqual(['created']);
		expect(await results('2026-11-24T11:00:00.000Z')).toEqual(['updated']);
		expect(await results('2026-11-24T11:00:00.000Z')).toEqual(['repeated']);
	});
});
