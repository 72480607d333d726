import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as findOwner from './findOwner.operation';
import * as getMany from './getMany.operation';
import * as revoke from './revoke.operation';
import * as upload from './upload.operation';

export const operations: ResourceOperations<'promoCode'> = { getMany, upload, revoke, findOwner };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['promoCode'] } },
		options: [
			{ name: 'Find Owner', value: 'findOwner', description: 'Find the customer a code was issued to, in any pool. Scope: promo:read.', action: 'Find the owner of a promo code' },
			{ name: 'Get Many', value: 'getMany', description: 'List a pool\'s codes in queue order. Scope: promo:read.', action: 'Get many promo codes' },
			{ name: 'Revoke', value: 'revoke', description: 'Take codes out of circulation, any number, safe to repeat. Scope: promo:write.', action: 'Revoke promo codes' },
			{ name: 'Upload', value: 'upload', description: 'Add codes to the end of a pool\'s queue, any number, safe to repeat. Scope: promo:write.', action: 'Upload promo codes' },
		],
		default: 'upload',
	},
	...upload.description,
	...revoke.description,
	...getMany.description,
	...findOwner.description,
];
