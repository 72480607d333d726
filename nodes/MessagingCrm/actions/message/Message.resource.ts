import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as send from './send.operation';

export const operations: ResourceOperations<'message'> = { send };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['message'] } },
		options: [
			{
				name: 'Send',
				value: 'send',
				description: 'Send text or a business-chat template to a customer\'s messenger, exactly once. Scope: messages:send (text) or messages:template (template).',
				action: 'Send a message',
			},
		],
		default: 'send',
	},
	...send.description,
];
