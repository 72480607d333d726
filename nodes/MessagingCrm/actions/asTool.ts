import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runsAsTool } from '../helpers/runsAsTool';
import { refusalOf, withoutItem } from '../helpers/validate';
import { apiFailureOf } from '../transport/errors';
import { errorItem } from './errorItems';
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
 * A hint written for a workflow builder ("run the workflow again", "map it from a step"), in the
 * words of whoever calls a tool: an AI agent's model or an MCP client. Each pair is a phrase of
 * the hints in transport/errors.ts (and of the few words a refusal of the node's own takes from
 * what the builder wrote); `tool-words.test.ts` reads every hint through this. A refusal of the
 * node's own brings its caller's words with it (helpers/validate.ts: Refusal): its message names
 * the item and the editor's fields, which no phrase here could turn into a caller's.
 */
const CLIENT_WORDS: Array<[RegExp, string]> = [
	[/\brun the (?:workflow|item) again\b/g, 'call this tool again'],
	[/\bRun the (?:workflow|item) again\b/g, 'Call this tool again'],
	[/\b([Rr])unning the workflow again\b/g, '$1e-sending the same call'],
	[/\bthis item is tried anew\b/g, 'the same call is tried anew'],
	[/\btries this item once more\b/g, 'tries it once more'],
	[/\bthe node's one retry\b/g, 'one retry'],
	[/\bthe node already retried\b/g, 'the call was already retried'],
	[
		/Lower the number of items per run, lower Options → Share of the Rate Limit in other workflows on this key, or spread the runs out\./,
		'Wait a minute, then call this tool again.',
	],
	[
		/Map a key that is unique per request[^.]*, or clear the option to let Repeat Protection make one\./,
		"The key comes from this tool's settings in n8n: whoever set up this tool must give each call its own key.",
	],
	[
		/Look the customer up instead: set Customer to By Phone, By Email or By Messenger\. Or map the ID from a Create or Update or Find step\./,
		'Look the customer up with their phone, email or messenger first, and call again with the ID found.',
	],
	[
		/\b([Pp])ick (?:one|the value|the pool|the deal) from (?:the|its)(?: \w+)? list(?: in the node)?/g,
		'Look the ID up first',
	],
	[/,? or map (?:the ID|it) from [^.;]+/g, ''],
	[/\bthe credential's Base URL\b/g, 'the API address in the n8n credential'],
	[/\bYour Idempotency Key was used\b/g, "This tool's idempotency key was used"],
	[/ \(Repeat Protection\)/g, ''],
	[/\bso this item was not tried\b/g, 'so this call was not tried'],
	[/\bis not in this item\b/g, "is not among this call's arguments"],
];

/** The hint in a tool caller's words (see CLIENT_WORDS). */
export function inClientWords(text: string): string {
	let words = text;
	for (const [phrase, replacement] of CLIENT_WORDS) words = words.replace(phrase, replacement);
	return words;
}

/**
 * The failure as the agent reads it: the error item, with the hint (what the code means, what
 * to do next, in a tool caller's words) in `error` itself, since that is the line a model is sure
 * to read. A refusal of the node's own reads like the API's: its code first, then its words for a
 * caller in place of the builder's message and fix.
 */
export function failureAnswer(error: NodeApiError | NodeOperationError): IDataObject {
	const item = errorItem(error);
	const refusal = refusalOf(error);
	if (refusal) {
		const said = `${refusal.code}: ${refusal.caller.replace(/[\s.]+$/, '')}. ${refusal.next}`;
		item.error = inClientWords(said);
		delete (item.details as IDataObject).description;
		return item;
	}
	// A tool caller knows no items: the message without the one n8n's guidelines append.
	const message = withoutItem(error.message);
	item.error = message;
	const description = error.description ? inClientWords(error.description) : undefined;
	if (description && !message.includes(description)) {
		item.error = `${message.replace(/[\s.]+$/, '')}. ${description}`;
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
	const failure = new NodeOperationError(
		ctx.getNode(),
		`${String(answer.error)}\n\nDetails: ${JSON.stringify(answer.details)}`,
		{ itemIndex: error.context.itemIndex as number | undefined },
	);
	// n8n 2.x writes "<name>: <message>" for the client, and marks the result isError by the shape
	// "…Error: " at its start: a name that says who refused, in place of n8n's class name. n8n
	// keeps a NodeOperationError it is handed as it is.
	failure.name = failureName(error);
	return failure;
}

/**
 * Who refused, as the name an MCP client reads first. `ApiError`: the API answered with this
 * refusal. `InvalidInputError`: an argument is not valid (`validation_error`), refused before any
 * request. `RefusedError`: the node refused a call whose arguments are fine, on what it read or
 * knows, before the API was asked to act: the window's pre-check (the customer's 24-hour window is
 * closed), a customer or deal a lookup did not find, a key without the scope. Such a refusal
 * carries the API's code for the same case (`bizchat_window_closed` …) so that a caller branches
 * on it as on the API's, but it is not named the API's: the API was never asked to send. `NodeError`:
 * neither (the node failed in a way it did not foresee).
 */
function failureName(error: NodeApiError | NodeOperationError): string {
	if (apiFailureOf(error)) return 'ApiError';
	const refusal = refusalOf(error);
	if (!refusal) return 'NodeError';
	return refusal.code === 'validation_error' ? 'InvalidInputError' : 'RefusedError';
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
