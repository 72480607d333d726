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
