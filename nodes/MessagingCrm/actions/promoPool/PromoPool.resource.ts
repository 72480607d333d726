import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as update from './update.operation';

export const operations: ResourceOperations<'promoPool'> = { getMany, get, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['promoPool'] } },
		options: [
			{ name: 'Get', value: 'get', description: 'Get a pool with its counters and threshold. Scope: promo:read.', action: 'Get a promo pool' },
			{ name: 'Get Many', value: 'getMany', description: 'List the company\'s promo pools. Scope: promo:read.', action: 'Get many promo pools' },
			{ name: 'Update', value: 'update', description: 'Change a pool\'s settings; only the fields set are sent. Scope: promo:write.', action: 'Update a promo pool' },
		],
		default: 'getMany',
	},
	...getMany.description,
	...get.description,
	...update.description,
];
