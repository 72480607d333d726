import type { IExecuteFunctions, INodeProperties, INodePropertyMode } from 'n8n-workflow';

import { invalidInput, UUID_PATTERN, uuidParam } from '../helpers/validate';

/** A hint in the output pane before the node has run (n8n's node hints). */
export interface PanelHint {
	message: string;
	/** An expression body over `$parameter`, true where the hint applies. */
	when: string;
}

/**
 * What a resource locator's By ID mode of a UUID adds to its name: the example ID and the editor's
 * check, `errorMessage` when the value is not one. The mode itself stays a literal under `modes`:
 * anywhere else n8n's linter takes an object with displayName, name and type for a field, and asks
 * for a default (node-param-default-missing).
 */
export const uuidModeFields = (
	errorMessage: string,
): Pick<INodePropertyMode, 'placeholder' | 'validation'> => ({
	placeholder: 'e.g. 3f1c0a52-5d2e-4a7b-9c41-0e8d2b6f7a10',
	validation: [{ type: 'regex', properties: { regex: UUID_PATTERN, errorMessage } }],
});

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

/** The loadOptions method of each empty choice (methods/loadOptions.ts). */
const AGENT_METHODS = {
	allAgents: 'getAgentsOrAll',
	messengerAgent: 'getAgentsOrMessengerAgent',
	inheritedAgent: 'getAgentsOrInherited',
	defaultAgent: 'getAgentsOrDefault',
} as const;
const PIPELINE_METHODS = {
	allPipelines: 'getPipelinesOrAll',
	defaultPipeline: 'getPipelinesOrDefault',
	noPipeline: 'getPipelinesOrNone',
} as const;

/**
 * An agent picked from a list of the company's agents, or given by ID. `empty`: what leaving it
 * empty means, shown as the list's first choice; without it the field must be filled.
 */
export const agentSelect = (
	overrides: Partial<INodeProperties> = {},
	empty?: keyof typeof AGENT_METHODS,
): INodeProperties => ({
	displayName: 'Agent Name or ID',
	name: 'agentId',
	type: 'options',
	typeOptions: { loadOptionsMethod: empty ? AGENT_METHODS[empty] : 'getAgents' },
	default: '',
	description:
		'The agent (bot or channel) of the company. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	...overrides,
});

/** The agent an agentSelect field names, checked (a UUID) before any request; undefined when empty. */
export function optionalAgentId(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	return uuidParam(ctx, ctx.getNodeParameter('agentId', itemIndex, ''), itemIndex, 'Agent', false);
}

/**
 * A pipeline dropdown; `ofAgent`: limited to the agent picked in the same node (for a node that
 * has an agent field). `empty` as for agents.
 */
export const pipelineSelect = (
	overrides: Partial<INodeProperties> = {},
	{ ofAgent = false, empty }: { ofAgent?: boolean; empty?: keyof typeof PIPELINE_METHODS } = {},
): INodeProperties => {
	const loadOptionsMethod = empty ? PIPELINE_METHODS[empty] : 'getPipelines';
	return {
		displayName: 'Pipeline Name or ID',
		name: 'pipelineId',
		type: 'options',
		typeOptions: ofAgent
			? { loadOptionsMethod, loadOptionsDependsOn: ['agentId'] }
			: { loadOptionsMethod },
		default: '',
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
		...overrides,
	};
};

/**
 * A stage of the pipeline picked in the same node, by its stable stage code; `firstIfEmpty`: may
 * stay empty, for the pipeline's first stage.
 */
export const stageCodeSelect = (
	overrides: Partial<INodeProperties> = {},
	{ firstIfEmpty = false } = {},
): INodeProperties => ({
	displayName: 'Stage Name or ID',
	name: 'stageCode',
	type: 'options',
	typeOptions: {
		loadOptionsMethod: firstIfEmpty ? 'getStageCodesOrFirst' : 'getStageCodeList',
		loadOptionsDependsOn: ['pipelineId'],
	},
	default: '',
	description:
		'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
	...overrides,
});
