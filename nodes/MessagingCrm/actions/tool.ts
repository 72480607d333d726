import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import { runsAsTool } from '../helpers/tool';
import { errorItem } from './errors';
import type { Operation } from './node.type';

/**
 * Whether a failure goes back to the agent as the tool's answer. n8n 2.x does this for a tool
 * node unless its On Error is "Stop Workflow"; n8n 1.x stops the whole workflow instead. The node
 * applies 2.x's rule itself, so an agent hears "recipient_unreachable" on every n8n.
 */
export function answersFailure(ctx: IExecuteFunctions): boolean {
	return runsAsTool(ctx) && ctx.getNode().onError !== 'stopWorkflow';
}

/**
 * The failure as the agent reads it: the error item, with the hint (what the code means, what
 * to do next) in `error` itself, since that is the line a model is sure to read.
 */
export function failureAnswer(error: NodeApiError | NodeOperationError): IDataObject {
	const item = errorItem(error);
	const { description } = error;
	if (description && !error.message.includes(description)) {
		item.error = `${error.message.replace(/[\s.]+$/, '')}. ${description}`;
		delete (item.details as IDataObject).description;
	}
	return item;
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
