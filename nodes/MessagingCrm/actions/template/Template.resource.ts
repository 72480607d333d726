import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as create from './create.operation';
import * as getMany from './getMany.operation';

export const operations: ResourceOperations<'template'> = { getMany, create };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['template'] } },
		options: [
			{ name: 'Create', value: 'create', description: 'Submit a business-chat template for moderation (it starts PENDING). Scope: templates:manage.', action: 'Create a template' },
			{ name: 'Get Many', value: 'getMany', description: 'List business-chat templates with their status. Scope: messages:template or agents:read.', action: 'Get many templates' },
		],
		default: 'getMany',
	},
	...getMany.description,
	...create.description,
];
