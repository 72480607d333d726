import type { INodeProperties } from 'n8n-workflow';

import * as agent from './agent/Agent.resource';
import * as pipeline from './pipeline/Pipeline.resource';

/** The Resource selector and every resource's operations and fields. */
export const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Agent', value: 'agent' },
			{ name: 'Pipeline', value: 'pipeline' },
		],
		default: 'agent',
	},
	...agent.description,
	...pipeline.description,
];
