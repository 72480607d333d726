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
