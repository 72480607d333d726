import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { loadOptions } from './methods';
import { properties, subtitle } from './trigger/description';
import { poll } from './trigger/poll';

/**
 * The polling trigger: its event families are registered in trigger/families.ts, which its fields
 * (trigger/description.ts), settings and poll (trigger/poll.ts) are built from.
 */
export class MessagingCrmTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging CRM Trigger',
		name: 'messagingCrmTrigger',
		icon: {
			light: 'file:../../icons/messagingCrm.svg',
			dark: 'file:../../icons/messagingCrm.dark.svg',
		},
		group: ['trigger'],
		version: [1, 2],
		defaultVersion: 2,
		subtitle,
		// Short, in the words of n8n's own triggers: the picker shows it under the app's one entry
		// also after a trigger, where n8n's Telegram and Pipedrive show theirs.
		description:
			'Starts the workflow when Messaging CRM customers write, or pools, deals or templates change',
		defaults: { name: 'Messaging CRM Trigger' },
		polling: true,
		// Read by n8n's AI Workflow Builder (n8n 2.x); n8n 1.x ignores the field. Plain words only:
		// the lint rule no-builder-hint-leakage checks these texts.
		builderHint: {
			searchHint:
				'Starts a workflow when something changes in the messaging CRM: a watched customer wrote on any messenger, or their 24-hour reply window on WhatsApp Business, Instagram or Facebook is closing soon or closed; a deal of a watched customer was created, moved to another pipeline stage, won or lost (watched customers are a list of customer IDs set in the trigger); a promo-code pool ran low or codes were issued; a WhatsApp business template was approved or rejected. It checks the CRM on its own Poll Times, so it needs no webhook and no Schedule Trigger. The first check after activation only records the current state; events come from the next one. Each item carries the event name in its event field.',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-messaging-crm.messagingCrm',
					relationHint:
						'Act on the event: upload codes to the pool that ran low, send the approved template, follow up before the window closes',
				},
				{
					nodeType: 'n8n-nodes-base.if',
					relationHint:
						'With several events picked, branch on the event field (for example poolLow or dealMoved)',
				},
				{
					nodeType: 'n8n-nodes-base.scheduleTrigger',
					relationHint:
						'Not needed before this trigger, which polls on its own; use it only for work at fixed times',
				},
				{
					nodeType: '@n8n/n8n-nodes-langchain.agent',
					relationHint:
						'When a customer wrote, let an AI Agent draft the answer and send it with the Messaging CRM node as its tool',
				},
			],
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingCrmApi', required: true }],
		properties,
	};

	methods = { loadOptions };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return poll(this);
	}
}
