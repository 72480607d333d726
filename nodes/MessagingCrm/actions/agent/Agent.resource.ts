import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as getMany from './getMany.operation';

export const operations: ResourceOperations<'agent'> = { getMany };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['agent'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List the company\'s agents and their messengers. Scope: agents:read.',
				action: 'Get many agents',
			},
		],
		default: 'getMany',
	},
	...getMany.description,
];
