import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as find from './find.operation';
import * as get from './get.operation';
import * as getMessengers from './getMessengers.operation';
import * as merge from './merge.operation';
import * as upsert from './upsert.operation';

export const operations: ResourceOperations<'customer'> = { upsert, get, find, merge, getMessengers };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['customer'] } },
		options: [
			{ name: 'Create or Update', value: 'upsert', description: 'Create a new record, or update the current one if it already exists (upsert)', action: 'Create or update a customer' },
			{ name: 'Find', value: 'find', description: 'Look a customer up by phone, email or messenger identity. Scope: customers:read.', action: 'Find a customer' },
			{ name: 'Get', value: 'get', description: 'Get a customer with their current stage, messengers and deal. Scope: customers:read.', action: 'Get a customer' },
			{ name: 'Get Messengers', value: 'getMessengers', description: 'List the customer\'s messengers with their 24-hour windows. Scope: customers:read.', action: 'Get the messengers of a customer' },
			{ name: 'Merge', value: 'merge', description: 'Merge a donor card into a winner card; safe to repeat. Scope: customers:write.', action: 'Merge two customers' },
		],
		default: 'upsert',
	},
	...upsert.description,
	...find.description,
	...get.description,
	...getMessengers.description,
	...merge.description,
];
