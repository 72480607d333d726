import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as get from './get.operation';
import * as set from './set.operation';

export const operations: ResourceOperations<'variable'> = { get, set };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['variable'] } },
		options: [
			{ name: 'Get', value: 'get', description: 'Read every variable of a customer or a deal. Scope: customers:read.', action: 'Get variables' },
			{ name: 'Set', value: 'set', description: 'Write, append to, clear or delete variables of a customer or a deal. Scope: customers:write.', action: 'Set variables' },
		],
		default: 'set',
	},
	...get.description,
	...set.description,
];
