import type {
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import type { Operation } from './node.type';

/**
 * Whether this run is a call from n8n's AI Agent: n8n derives a tool variant of the node
 * (`messagingCrmTool`) from `usableAsTool` and runs that type for the agent.
 */
export function runsAsTool(ctx: IExecuteFunctions): boolean {
	return ctx.getNode().type.endsWith('Tool');
}

/**
 * A failure reaches the agent as the error's message alone: the hint (what the code means, what
 * to do next) goes into the message, so the model can act on it and tell the user.
 */
export function forAgent(
	ctx: IExecuteFunctions,
	error: NodeApiError | NodeOperationError,
): NodeApiError | NodeOperationError {
	const { description } = error;
	if (!runsAsTool(ctx) || !description || error.message.includes(description)) return error;
	error.message = `${error.message.replace(/[\s.]+$/, '')}. ${description}`;
	return error;
}

/**
 * No items reach the agent as an empty string, which a model cannot read as "nobody matched":
 * as a tool, an empty answer says so in words.
 */
export function nothingMatched(operation: Operation): INodeExecutionData[] {
	return [
		{
			json: { results: 0, message: `${operation.option.action}: nothing matched.` },
			pairedItem: { item: 0 },
		},
	];
}
