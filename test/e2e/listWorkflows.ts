/**
 * Workflows of the retry and queue-mode e2e tests: a webhook receives a list, Split Out makes an
 * item of each entry, and Messaging CRM sends a message to each (SENDS) or upserts each (UPSERTS).
 * They save progress, so that a crashed execution can be retried from the node that was running.
 */
import type { WorkflowJson } from './setup';
import { CREDENTIAL_ID } from './setup';

/** Webhook (a list of customers) → Split Out → Message Send, saving progress so a crash can be retried. */
export const SENDS: WorkflowJson = {
	id: 'mcrmRetrySends01',
	name: 'Send to a list of customers (retry e2e)',
	active: false,
	settings: {
		executionOrder: 'v1',
		saveExecutionProgress: true,
		saveDataErrorExecution: 'all',
		saveDataSuccessExecution: 'all',
	},
	nodes: [
		{
			id: 'a0000000-0000-4000-8000-000000000001',
			name: 'Customers',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: 'b0000000-0000-4000-8000-000000000001',
			parameters: {
				httpMethod: 'POST',
				path: 'retry-sends',
				responseMode: 'onReceived',
				options: {},
			},
		} as never,
		{
			id: 'a0000000-0000-4000-8000-000000000002',
			name: 'One item each',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [220, 0],
			parameters: { fieldToSplitOut: 'body.customers', options: {} },
		} as never,
		{
			id: 'a0000000-0000-4000-8000-000000000003',
			name: 'Send',
			type: 'n8n-nodes-messaging-crm.messagingCrm',
			typeVersion: 1,
			position: [440, 0],
			parameters: {
				resource: 'message',
				operation: 'send',
				customerId: { __rl: true, mode: 'id', value: '={{ $json.customerId }}' },
				messengerType: 'telegram',
				content: 'text',
				text: 'Your order has shipped',
				options: {},
			},
			credentials: { messagingCrmApi: { id: CREDENTIAL_ID, name: 'Messaging CRM sandbox' } },
		} as never,
	],
	connections: {
		Customers: { main: [[{ node: 'One item each', type: 'main', index: 0 }]] },
		'One item each': { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
	},
};

/** Webhook (a list of people) → Split Out → Customer Create or Update, with a deal in the default pipeline. */
export const UPSERTS: WorkflowJson = {
	...SENDS,
	id: 'mcrmRetryUpserts1',
	name: 'Upsert a list of people (retry e2e)',
	nodes: [
		{
			...(SENDS.nodes[0] as object),
			id: 'c0000000-0000-4000-8000-000000000001',
			webhookId: 'd0000000-0000-4000-8000-000000000001',
			parameters: {
				httpMethod: 'POST',
				path: 'retry-upserts',
				responseMode: 'onReceived',
				options: {},
			},
		} as never,
		{
			...(SENDS.nodes[1] as object),
			id: 'c0000000-0000-4000-8000-000000000002',
			parameters: { fieldToSplitOut: 'body.people', options: {} },
		} as never,
		{
			...(SENDS.nodes[2] as object),
			id: 'c0000000-0000-4000-8000-000000000003',
			name: 'Send',
			parameters: {
				resource: 'customer',
				operation: 'upsert',
				phone: '={{ $json.phone }}',
				additionalFields: { fullName: '={{ $json.name }}' },
				options: {},
			},
		} as never,
	],
};

/** Customers of the re-run e2e, made with these ids so that the editor's pinned data can name them. */
export const RERUN_CUSTOMERS = {
	editor: [
		'e1000000-0000-4000-8000-000000000001',
		'e1000000-0000-4000-8000-000000000002',
		'e1000000-0000-4000-8000-000000000003',
	],
	webhook: [
		'e2000000-0000-4000-8000-000000000001',
		'e2000000-0000-4000-8000-000000000002',
		'e2000000-0000-4000-8000-000000000003',
	],
};

/** The second customer of each three is written on VK, the others on the bot messenger. */
export const rerunBody = (ids: string[]) => ({
	customers: ids.map((customerId, i) => ({
		customerId,
		messenger: i === 1 ? 'vk' : 'telegram',
	})),
});

/**
 * Webhook → Split Out → Message Send that goes on after a failed item (its error as output), with
 * the editor's customers pinned on the webhook, as "Debug in editor" leaves a failed execution's
 * data: the editor's Execute workflow runs on it.
 */
export const RERUN_SENDS: WorkflowJson = {
	...SENDS,
	id: 'mcrmRerunSends001',
	name: 'Send after the channel is reconnected (re-run e2e)',
	nodes: [
		{
			...(SENDS.nodes[0] as object),
			id: 'f0000000-0000-4000-8000-000000000001',
			webhookId: 'f1000000-0000-4000-8000-000000000001',
			parameters: {
				httpMethod: 'POST',
				path: 'rerun-sends',
				responseMode: 'onReceived',
				options: {},
			},
		} as never,
		{ ...(SENDS.nodes[1] as object), id: 'f0000000-0000-4000-8000-000000000002' } as never,
		{
			...(SENDS.nodes[2] as object),
			id: 'f0000000-0000-4000-8000-000000000003',
			onError: 'continueRegularOutput',
			parameters: {
				...(SENDS.nodes[2].parameters as object),
				messengerType: '={{ $json.messenger }}',
			},
		} as never,
	],
	pinData: { Customers: [{ json: { body: rerunBody(RERUN_CUSTOMERS.editor) } }] },
};

/** The two customers the scheduled reminder goes to (fixed, as a workflow names them). */
export const REMINDED = [
	'e3000000-0000-4000-8000-000000000001',
	'e3000000-0000-4000-8000-000000000002',
];
export const REMINDER_TEXT = 'Reminder: your order is waiting for you.';

/**
 * Schedule Trigger (every 15 seconds: time to unpublish it after the second tick) → Edit Fields (the customers to remind) → Split Out →
 * Message Send of the same reminder on every tick: each tick is a new event.
 */
export const REMINDERS: WorkflowJson = {
	...SENDS,
	id: 'mcrmReminders0001',
	name: 'The same reminder on every tick (event e2e)',
	nodes: [
		{
			id: 'e4000000-0000-4000-8000-000000000001',
			name: 'Schedule Trigger',
			type: 'n8n-nodes-base.scheduleTrigger',
			typeVersion: 1.2,
			position: [0, 0],
			parameters: { rule: { interval: [{ field: 'seconds', secondsInterval: 15 }] } },
		} as never,
		{
			id: 'e4000000-0000-4000-8000-000000000002',
			name: 'Customers to remind',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [220, 0],
			parameters: {
				mode: 'raw',
				jsonOutput: JSON.stringify({ customers: REMINDED.map((customerId) => ({ customerId })) }),
				options: {},
			},
		} as never,
		{
			...(SENDS.nodes[1] as object),
			id: 'e4000000-0000-4000-8000-000000000003',
			parameters: { fieldToSplitOut: 'customers', options: {} },
		} as never,
		{
			...(SENDS.nodes[2] as object),
			id: 'e4000000-0000-4000-8000-000000000004',
			parameters: { ...(SENDS.nodes[2].parameters as object), text: REMINDER_TEXT },
		} as never,
	],
	connections: {
		'Schedule Trigger': { main: [[{ node: 'Customers to remind', type: 'main', index: 0 }]] },
		'Customers to remind': { main: [[{ node: 'One item each', type: 'main', index: 0 }]] },
		'One item each': { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
	},
};
