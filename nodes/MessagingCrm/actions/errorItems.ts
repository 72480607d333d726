import type {
	IDataObject,
	IExecuteFunctions,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import { refusalOf } from '../helpers/validate';
import { apiFailureOf } from '../transport/errors';

/** Beneath the floors (helpers/validate.ts), so that shared/ turns errors into the item's the same way. */
export { asNodeError } from '../helpers/validate';

/**
 * The error item "Continue on fail" puts out for a failed input item. Only `error` and `details`
 * at the top: that is the shape n8n routes to the error output under "Continue (using error
 * output)" without rewriting it. `details` holds the envelope's details (reason, retryable …)
 * plus the code, the HTTP status and the hint; for a refusal of the node's own, its code and
 * details (no HTTP status: the node refused).
 */
export function errorItem(error: NodeApiError | NodeOperationError): IDataObject {
	const failure = apiFailureOf(error);
	const refusal = refusalOf(error);
	// A refusal's code first: its details are the node's few, not an envelope's.
	const details: IDataObject =
		!failure && refusal
			? { code: refusal.code, ...refusal.details }
			: { ...(failure?.details ?? {}) };
	if (failure) {
		details.code = failure.code;
		if (failure.status !== undefined) details.httpCode = failure.status;
		if (failure.replayed) details.replayed = true;
	}
	if (error.description) details.description = error.description;
	return { error: error.message, details };
}

/**
 * One line in n8n's log for a failed item, whatever happens to it next (error item, the tool's
 * answer, or the node's stop): the node, the item, the API's code and HTTP status, the message. n8n
 * itself logs only the error's class and stack, which cannot tell a refusal from a key problem.
 */
export function logFailure(ctx: IExecuteFunctions, error: NodeApiError | NodeOperationError): void {
	const failure = apiFailureOf(error);
	const refusal = refusalOf(error);
	const item = error.context.itemIndex;
	// Counted from 1, as the node's own messages count items ("… [item 1]").
	const where = `Messaging CRM "${ctx.getNode().name}"${typeof item === 'number' ? `, item ${item + 1}` : ''}`;
	// The same in fields, for n8n's JSON log output.
	const meta = { node: ctx.getNode().name, itemIndex: item, code: failure?.code ?? refusal?.code };
	if (refusal) {
		// When it refused, as it was: the window's pre-check, for one, read the messengers first.
		const when = refusal.when ?? 'before any request';
		ctx.logger?.warn(`${where} refused ${when}: ${refusal.code}: ${error.message}`, meta);
		return;
	}
	if (!failure) {
		// Neither the API's answer nor a refusal: where it failed is not known.
		ctx.logger?.warn(`${where} failed: ${error.message}`, meta);
		return;
	}
	const status = failure.status === undefined ? '' : ` (HTTP ${failure.status})`;
	ctx.logger?.warn(`${where} failed: ${failure.code}${status}: ${failure.message}`, meta);
}
