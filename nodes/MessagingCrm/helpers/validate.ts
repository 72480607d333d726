import type { IExecuteFunctions, INode } from 'n8n-workflow';
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

/** An item's failure that is not the API's: "Item N: what happened", and what to do about it. */
export function itemError(
	node: INode,
	itemIndex: number,
	problem: string,
	fix?: string,
): NodeOperationError {
	return new NodeOperationError(node, `Item ${itemIndex + 1}: ${problem}`, {
		itemIndex,
		...(fix ? { description: fix } : {}),
	});
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
	return itemError(ctx.getNode(), itemIndex, message);
}

/** A local validation failure, always naming the item, the field and the fix. */
export function invalidInput(
	node: INode,
	itemIndex: number,
	field: string,
	problem: string,
	fix: string,
): NodeOperationError {
	return itemError(node, itemIndex, `"${field}" ${problem}`, fix);
}

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
		);
	}
	if (!isUuid(text)) {
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			field,
			`must be a UUID, got ${JSON.stringify(String(text).slice(0, 60))}`,
			'Pick a value from the list, or map an ID such as 3f1c0a52-5d2e-4a7b-9c41-0e8d2b6f7a10.',
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
