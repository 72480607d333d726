import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as open from './open.operation';

export const operations: ResourceOperations<'conversation'> = { open };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['conversation'] } },
		options: [
			{
				name: 'Open',
				value: 'open',
				description: 'Open a dialog with a customer on an agent without messaging them, or get the open one. Scope: customers:write.',
				action: 'Open a conversation',
			},
		],
		default: 'open',
	},
	...open.description,
];
