import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { hints, properties, subtitle } from './actions/resources';
import { router } from './actions/router';
import { listSearch, loadOptions } from './methods';
import { waitWebhooks } from './wait/description';
import { sendAndWaitWebhook } from './wait/webhook';

export class MessagingCrm implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging CRM',
		name: 'messagingCrm',
		icon: {
			light: 'file:../../icons/messagingCrm.svg',
			dark: 'file:../../icons/messagingCrm.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle,
		description:
			'Customers, deals, conversations, messages, promo-code pools and business-chat templates of the messaging CRM',
		defaults: { name: 'Messaging CRM' },
		usableAsTool: true,
		// Read by n8n's AI Workflow Builder (n8n 2.x) when it searches nodes and wires them; n8n 1.x
		// ignores the field. Plain words only: the lint rule no-builder-hint-leakage checks these texts.
		builderHint: {
			searchHint:
				'Messaging CRM for customer chats: send a WhatsApp, Telegram, Instagram, Facebook, VK, MAX or website-chat message to a customer, or an approved WhatsApp business template; ask a customer a question and wait for the answer (approve or decline, a written reply, a short form); create or update a customer (contact, lead) by phone, email or messenger ID, find or merge customers; open a conversation; create, move or close deals in a sales pipeline; set customer or deal variables (custom fields); upload, revoke or look up promo codes. Find the customer in the Customer field by phone, email or messenger ID instead of creating one first. To start a workflow when something changes in the CRM, use Messaging CRM Trigger, not this node on a schedule.',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-base.formTrigger',
					relationHint:
						'Collect a lead on a form, then Customer Create or Update with the phone or email and Message Send to welcome them',
				},
				{
					nodeType: 'n8n-nodes-messaging-crm.messagingCrmTrigger',
					relationHint:
						'Start on a CRM change (a customer wrote, a deal moved, a promo pool ran low, a template was approved) and act on it with this node',
				},
				{
					nodeType: 'n8n-nodes-base.scheduleTrigger',
					relationHint:
						'Run a Get Many (promo pools, templates, pipelines) at fixed times for a report; for reacting to changes the Messaging CRM Trigger is simpler',
				},
				{
					nodeType: 'n8n-nodes-base.if',
					relationHint:
						'Branch after Send and Wait for Response on the answer (data.approved is true or false with Approve and Decline), or after Send on the delivery status',
				},
				{
					nodeType: '@n8n/n8n-nodes-langchain.agent',
					relationHint:
						"Attach this node to an AI Agent as a tool: the agent looks customers up, sends messages and moves deals in the CRM from a customer's chat",
				},
			],
		},
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingCrmApi', required: true }],
		// Send and Wait for Response: the links of a waiting message come back here.
		webhooks: waitWebhooks,
		properties,
		hints,
	};

	methods = { loadOptions, listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await sendAndWaitWebhook.call(this);
	}
}
