import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../helpers/validate';

/** "Return All" and "Limit", for list operations. */
export const returnAllOrLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: true,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

/** Options of a lookup: Fail If Not Found (off: nobody found gives no item). */
export const failIfNotFoundOptions = (description: string): INodeProperties => ({
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Fail If Not Found',
			name: 'failIfNotFound',
			type: 'boolean',
			default: false,
			description,
		},
	],
});

/** Return All / Limit as a number (Infinity for all), checked before any request is made. */
export function limitOf(ctx: IExecuteFunctions, itemIndex: number): number {
	if (ctx.getNodeParameter('returnAll', itemIndex, true) === true) return Infinity;
	const limit = ctx.getNodeParameter('limit', itemIndex, 50) as number;
	if (!Number.isInteger(limit) || limit < 1) {
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			'Limit',
			`must be a whole number of at least 1, got ${String(limit)}`,
			'Set Limit to 1 or more, or turn on Return All.',
		);
	}
	return limit;
}

/** An agent picked from a list of the company's agents, or given by ID. */
export const agentSelect = (overrides: Partial<INodeProperties> = {}): INodeProperties => ({
	displayName: 'Agent Name or ID',
	name: 'agentId',
	type: 'options',
	typeOptions: { loadOptionsMethod: 'getAgents' },
	default: '',
	description:
		'The agent (bot or channel) of the company. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	...overrides,
});

/**
 * A pipeline dropdown; `ofAgent`: limited to the agent picked in the same node (for a node that
 * has an agent field).
 */
export const pipelineSelect = (
	overrides: Partial<INodeProperties> = {},
	{ ofAgent = false } = {},
): INodeProperties => ({
	displayName: 'Pipeline Name or ID',
	name: 'pipelineId',
	type: 'options',
	typeOptions: ofAgent
		? { loadOptionsMethod: 'getPipelines', loadOptionsDependsOn: ['agentId'] }
		: { loadOptionsMethod: 'getPipelines' },
	default: '',
	description:
		'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
	...overrides,
});

/** A stage of the pipeline picked in the same node, by its stable stage code. */
export const stageCodeSelect = (overrides: Partial<INodeProperties> = {}): INodeProperties => ({
	displayName: 'Stage Name or ID',
	name: 'stageCode',
	type: 'options',
	typeOptions: { loadOptionsMethod: 'getStageCodes', loadOptionsDependsOn: ['pipelineId'] },
	default: '',
	description:
		'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
	...overrides,
});
