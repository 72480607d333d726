/**
 * Workflows that ask Anna something with Message → Send and Wait for Response, for the e2e tests in
 * real n8n: a Webhook starts them, and the answer goes back to Anna as a message the test reads.
 */
import type { WorkflowJson } from './setup';

const CREDENTIALS = { messagingCrmApi: { id: 'mcrmSandboxCred01', name: 'Messaging CRM sandbox' } };

/**
 * A workflow: Webhook `path` → Send and Wait (`ask`) → `then`; by default the answer back to Anna,
 * "Answer: {data, customer_id, messenger_type}" (each null when the node passed its input on).
 */
export function asking(
	n: number,
	path: string,
	anna: string,
	ask: Record<string, unknown>,
	then?: Record<string, unknown>,
): WorkflowJson {
	const id = (k: number) => `5e0d7a1c-0000-4000-8000-0000000${n}${k}000`;
	const answerBack = {
		resource: 'message',
		operation: 'send',
		customerId: { __rl: true, mode: 'id', value: anna },
		messengerType: 'telegram',
		content: 'text',
		text: '=Answer: {{ JSON.stringify({ data: $json.data ?? null, customer_id: $json.customer_id ?? null, messenger_type: $json.messenger_type ?? null }) }}',
	};
	return {
		id: `mcrmWaitE2e${n}`.padEnd(16, '0'),
		name: `Send and wait ${path}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				id: id(1),
				webhookId: id(4),
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
			},
			{
				name: 'Ask Anna',
				type: 'n8n-nodes-messaging-crm.messagingCrm',
				typeVersion: 1,
				position: [220, 0],
				id: id(2),
				credentials: CREDENTIALS,
				parameters: {
					resource: 'message',
					operation: 'sendAndWait',
					customerId: { __rl: true, mode: 'id', value: anna },
					messengerType: 'telegram',
					message: 'Can you make it on **Tuesday** at 10:00?',
					...ask,
				},
			},
			{
				name: 'Then',
				type: 'n8n-nodes-messaging-crm.messagingCrm',
				typeVersion: 1,
				position: [440, 0],
				id: id(3),
				credentials: CREDENTIALS,
				parameters: then ?? answerBack,
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Ask Anna', type: 'main', index: 0 }]] },
			'Ask Anna': { main: [[{ node: 'Then', type: 'main', index: 0 }]] },
		},
	};
}

export const FORM = {
	responseType: 'customForm',
	formFields: {
		values: [
			{
				fieldLabel: 'Day',
				fieldType: 'dropdown',
				requiredField: true,
				fieldOptions: { values: [{ option: 'Tuesday' }, { option: 'Wednesday' }] },
			},
			{ fieldLabel: 'Guests', fieldType: 'number' },
		],
	},
	options: { messageButtonLabel: 'Choose a day' },
};

/** The answer the workflow sent back to Anna: the JSON after "Answer: ". */
export function answerIn(text: string): Record<string, unknown> {
	if (!text.startsWith('Answer: ')) throw new Error(`Not an answer: ${text}`);
	return JSON.parse(text.slice('Answer: '.length)) as Record<string, unknown>;
}

/** A waiting message's links by label. */
export function linksIn(text: string): Record<string, string> {
	const links: Record<string, string> = {};
	for (const [, label, url] of text.matchAll(/\[([^\]]+)\]\((\S+)\)/g)) links[label] = url;
	return links;
}

/** The press of an approval page's button, as the page's form sends it. */
export async function press(url: string, choice: 'approve' | 'decline'): Promise<Response> {
	const form = new FormData();
	form.set('choice', choice);
	return await fetch(url, { method: 'POST', body: form });
}
