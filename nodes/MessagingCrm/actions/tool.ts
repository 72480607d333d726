import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runsAsTool } from '../helpers/tool';
import { errorItem } from './errors';
import type { Operation } from './node.type';

/** The type of n8n's MCP Server Trigger, in n8n's LangChain package, whatever its prefix. */
const MCP_SERVER_TRIGGER = /\.mcpTrigger$/;

/**
 * The type of the node that asked for this tool run. n8n's context for a tool run keeps that node
 * (`parentNode`, in a single process and on a queue-mode worker alike) without a method to read
 * it; where it is missing (the 2.x agent's own runs, another n8n), the node being executed is
 * read instead, which is the caller when an MCP Server Trigger runs its tools in its process.
 */
function callerType(ctx: IExecuteFunctions): string {
	const parent = (ctx as unknown as { parentNode?: { type?: unknown } }).parentNode;
	if (typeof parent?.type === 'string') return parent.type;
	try {
		return ctx.getExecuteData?.()?.node.type ?? '';
	} catch {
		return '';
	}
}

/**
 * Whether this tool run answers an MCP client through n8n's MCP Server Trigger. n8n tells that
 * client a call failed (`isError: true`) when the tool throws; the node's answer items, however
 * they read, arrive as a success.
 */
export function servesMcpClient(ctx: IExecuteFunctions): boolean {
	return runsAsTool(ctx) && MCP_SERVER_TRIGGER.test(callerType(ctx));
}

/**
 * Whether a failure goes back to the agent as the tool's answer. n8n 2.x does this for a tool
 * node unless its On Error is "Stop Workflow"; n8n 1.x stops the whole workflow instead. The node
 * applies 2.x's rule itself, so an agent hears "recipient_unreachable" on every n8n. (A call
 * from an MCP client is told apart first: see servesMcpClient.)
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
 * The failure as an MCP client gets it: thrown, so that n8n answers `isError: true`, with the text
 * the agent would read (message, hint, then the details as JSON) all in the message, since a
 * queue-mode worker passes on the message alone.
 */
export function failureForMcp(
	ctx: IExecuteFunctions,
	error: NodeApiError | NodeOperationError,
): NodeOperationError {
	const answer = failureAnswer(error);
	return new NodeOperationError(
		ctx.getNode(),
		`${String(answer.error)}\n\nDetails: ${JSON.stringify(answer.details)}`,
		{ itemIndex: error.context.itemIndex as number | undefined },
	);
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
