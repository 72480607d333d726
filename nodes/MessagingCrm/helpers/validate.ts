import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isDotSegment } from './url';

/** What the input checks need of n8n's context: the node, to name it in errors. */
export type NodeContext = Pick<IExecuteFunctions, 'getNode'>;

/** The one UUID pattern: as the string the editor's field validation takes, and as a RegExp. */
export const UUID_PATTERN =
	'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const UUID = new RegExp(UUID_PATTERN);

export function isUuid(value: unknown): value is string {
	return typeof value === 'string' && UUID.test(value);
}

/**
 * A refusal of the node's own, not an answer of the API's: its code, and what a tool caller (an AI
 * agent's model, an MCP client) reads instead of the builder's message and fix. The code is the
 * one the API gives for the same case where it has one (`validation_error` for a value it would
 * refuse, `bizchat_window_closed`, `not_found`, `insufficient_scope`), so that a caller branches
 * on one set of codes whoever refused; the node's own only where the API has none. The builder's
 * words stay the error's message and description (the editor, error items); actions/asTool.ts
 * puts these in their place for a tool caller.
 */
export interface Refusal {
	code: string;
	/** What the caller may branch on besides the code (the window's messenger and end …). */
	details?: IDataObject;
	/** What happened, for a caller: no item number, no field, option or step of the editor. */
	caller: string;
	/** What a caller can do next, or who can when the caller cannot. */
	next: string;
	/** When the node refused, for n8n's log: "before any request" unless it read something first. */
	when?: string;
}

/** The next step of a value refused as invalid, when the call's site says nothing closer. */
export const CORRECT_THE_VALUE =
	"Nothing was sent or changed. Call again with the value corrected; if you did not give this value, it is in this tool's own settings, and whoever set up the tool in n8n must correct it.";

/** What happened, as n8n's UX guidelines word an error: a capital first, the item appended. */
export function withItem(what: string, itemIndex: number): string {
	return `${what.charAt(0).toUpperCase()}${what.slice(1)} [item ${itemIndex + 1}]`;
}

/** A message without the item withItem appended: a tool caller knows no items. */
export function withoutItem(message: string): string {
	return message.replace(/ \[item \d+\]$/, '');
}

/** An item's failure that is not the API's: "What happened [item N]", what to do, and its refusal. */
export function itemError(
	node: INode,
	itemIndex: number,
	problem: string,
	fix?: string,
	refusal?: Refusal,
): NodeOperationError {
	const error = new NodeOperationError(node, withItem(problem, itemIndex), {
		itemIndex,
		...(fix ? { description: fix } : {}),
	});
	return refusal ? refusing(error, refusal) : error;
}

/** The error, carrying its refusal (see Refusal). */
export function refusing(error: NodeOperationError, refusal: Refusal): NodeOperationError {
	error.context.refusal = refusal as unknown as IDataObject;
	return error;
}

/** The refusal an error of the node carries (itemError), if it is one. */
export function refusalOf(error: unknown): Refusal | undefined {
	const context = (error as { context?: { refusal?: unknown } } | null)?.context;
	const refusal = context?.refusal as Refusal | undefined;
	return typeof refusal?.code === 'string' ? refusal : undefined;
}

/** Unexpected errors still leave as n8n errors naming the item; nothing crashes untyped. */
export function asNodeError(
	ctx: NodeContext,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	const message = error instanceof Error ? error.message : String(error);
	// Neither the node's refusal nor the API's answer: a crash. n8n gets a clear error all the
	// same; its context names what was thrown, which tells it from a refusal.
	const crash = itemError(ctx.getNode(), itemIndex, message);
	crash.context.unexpected = error instanceof Error ? error.name : typeof error;
	return crash;
}

/** A field's name as a caller reads it in a sentence: "Messengers → row 1 → Type" as "Messengers, row 1, Type". */
function fieldInWords(field: string): string {
	return field.replace(/\s*→\s*/g, ', ');
}

/**
 * A local validation failure, always naming the item, the field and the fix; `validation_error`,
 * the API's code for a value it refuses (422), for a tool caller. `caller` words it closer than
 * "the value for <field> <problem>" and CORRECT_THE_VALUE where the site knows more.
 */
export function invalidInput(
	node: INode,
	itemIndex: number,
	field: string,
	problem: string,
	fix: string,
	caller?: { problem?: string; next?: string },
): NodeOperationError {
	return itemError(node, itemIndex, `"${field}" ${problem}`, fix, {
		code: 'validation_error',
		caller: caller?.problem ?? `the value for ${fieldInWords(field)} ${problem}`,
		next: caller?.next ?? CORRECT_THE_VALUE,
	});
}

/** An ID field's name as a caller reads it: "Deal ID" as "deal ID", "Promo Pool" as "promo pool ID". */
function idInWords(field: string): string {
	return `${field.replace(/\s*ID$/, '').toLowerCase()} ID`;
}

/** An ID as the API writes them, for a caller who gave something else. */
export const SAMPLE_UUID = '3f1c0a52-5d2e-4a7b-9c41-0e8d2b6f7a10';

/** A required or optional UUID parameter; '' counts as absent when optional. */
export function uuidParam(
	ctx: IExecuteFunctions,
	value: unknown,
	itemIndex: number,
	field: string,
	required: boolean,
): string | undefined {
	const text = typeof value === 'string' ? value.trim() : value;
	if (text === '' || text === undefined || text === null) {
		if (!required) return undefined;
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			field,
			'is empty',
			`Pick a value from the list or enter its ID (a UUID).`,
			{
				problem: `no ${idInWords(field)} was given`,
				next: `Nothing was sent or changed: look the ID up first (a UUID such as ${SAMPLE_UUID}), and call again with it.`,
			},
		);
	}
	if (!isUuid(text)) {
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			field,
			`must be a UUID, got ${JSON.stringify(String(text).slice(0, 60))}`,
			`Pick a value from the list, or map an ID such as ${SAMPLE_UUID}.`,
			{
				problem: `the ${idInWords(field)} must be a UUID such as ${SAMPLE_UUID}, got ${JSON.stringify(String(text).slice(0, 60))}`,
				next: 'Nothing was sent or changed: look the ID up first, and call again with the ID found.',
			},
		);
	}
	return text;
}

/** A value that becomes a path segment: `.` and `..` (in any encoding) are refused before any request. */
export function segmentParam(
	ctx: IExecuteFunctions,
	value: string,
	itemIndex: number,
	field: string,
): string {
	if (isDotSegment(value)) {
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			field,
			`cannot be ${JSON.stringify(value)}: a dot segment would change the request's path`,
			`Enter the ${field.toLowerCase()} itself; "/", "?", "#" and "%" are fine and are sent as part of it.`,
		);
	}
	return value;
}
