import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as getMany from './getMany.operation';

export const operations: ResourceOperations<'pipeline'> = { getMany };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['pipeline'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List pipelines with their stages and stage codes. Scope: pipelines:read.',
				action: 'Get many pipelines',
			},
		],
		default: 'getMany',
	},
	...getMany.description,
];
