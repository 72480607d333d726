import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { itemError } from '../helpers/validate';
import { apiFailureOf } from '../transport/errors';

/**
 * The error item "Continue on fail" puts out for a failed input item. Only `error` and `details`
 * at the top: that is the shape n8n routes to the error output under "Continue (using error
 * output)" without rewriting it. `details` holds the envelope's details (reason, retryable …)
 * plus the code, the HTTP status and the hint.
 */
export function errorItem(error: NodeApiError | NodeOperationError): IDataObject {
	const failure = apiFailureOf(error);
	const details: IDataObject = { ...(failure?.details ?? {}) };
	if (failure) {
		details.code = failure.code;
		if (failure.status !== undefined) details.httpCode = failure.status;
		if (failure.replayed) details.replayed = true;
	}
	if (error.description) details.description = error.description;
	return { error: error.message, details };
}

/** Unexpected errors still leave as n8n errors naming the item; nothing crashes untyped. */
export function asNodeError(
	ctx: IExecuteFunctions,
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
