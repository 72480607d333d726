import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as close from './close.operation';
import * as create from './create.operation';
import * as getMany from './getMany.operation';
import * as moveStage from './moveStage.operation';

export const operations: ResourceOperations<'deal'> = { getMany, create, moveStage, close };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['deal'] } },
		options: [
			{ name: 'Close', value: 'close', description: 'Close a deal as won or lost. Scope: customers:write.', action: 'Close a deal' },
			{ name: 'Create', value: 'create', description: 'Create a deal at a pipeline and stage. Scope: customers:write.', action: 'Create a deal' },
			{ name: 'Get Many', value: 'getMany', description: 'List a customer\'s deals, closed ones included. Scope: customers:read.', action: 'Get many deals' },
			{ name: 'Move to Stage', value: 'moveStage', description: 'Move the customer\'s deal to another stage of its pipeline. Scope: customers:write.', action: 'Move a deal to a stage' },
		],
		default: 'create',
	},
	...create.description,
	...getMany.description,
	...moveStage.description,
	...close.description,
];
