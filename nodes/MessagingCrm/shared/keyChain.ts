import type { IExecuteFunctions } from 'n8n-workflow';

import { asNodeError } from '../helpers/validate';
import type { ApiFailure } from '../transport/errors';
import { apiFailureOf } from '../transport/errors';
import { keysSentBy, refusalLinkKey } from './idempotency';

/**
 * The key chain of a send: what a re-run does after a refusal the API stored under the item's
 * Idempotency-Key. Each fresh try is its own link (its key from `refusalLinkKey`), so every run
 * walks the same links and finds a try that went through before it sends anything new. It knows
 * the key and a send function, nothing of what is sent: a send of another operation (another
 * messenger, another body) walks it the same way.
 */

/** The messenger's final refusals: stored by the API under the Idempotency-Key, nothing delivered. */
const FINAL_REFUSALS = new Set([
	'no_peer',
	'recipient_unreachable',
	'channel_unavailable',
	'send_rejected',
	'bizchat_window_closed',
]);

/**
 * Fresh tries a run may make after stored refusals of the same item, within the API's 24 hours:
 * each refused one leaves a failed copy in the CRM dialog, so a cause that stays is not tried for
 * ever (an hourly schedule to a customer who blocked the bot stops after these).
 */
export const MAX_FRESH_TRIES = 3;

/** Send failures worth another try with the same key: the API says so, or the messenger timed out. */
function retryableSendFailure(failure: ApiFailure): boolean {
	return failure.details.retryable === true || failure.status === 502;
}

/**
 * The retry rule of one send (the transport's `retryWhen`; a new one per request): a failure the
 * messenger saw (it names the failed copy it left in the CRM dialog, `details.message_id`) is
 * retried once at most, so a try leaves at most two copies; what never reached the messenger (a
 * proxy's 502 page, a 503, a reset) as usual.
 */
export function sendRetryRule(): (failure: ApiFailure, usual: boolean) => boolean {
	let copies = 0;
	return (failure, usual) => {
		if (typeof failure.details.message_id !== 'string')
			return usual || retryableSendFailure(failure);
		copies++;
		return copies < 2 && retryableSendFailure(failure);
	};
}

/**
 * A final refusal that an earlier run stored under this key: the server marked it replayed on the
 * first try, and this run had not sent the key itself. Nothing was delivered then, and the cause
 * may be gone now.
 */
function storedByEarlierRun(error: unknown, sentBefore: boolean): boolean {
	const failure = apiFailureOf(error);
	return (
		failure !== undefined &&
		FINAL_REFUSALS.has(failure.code) &&
		failure.details.retryable !== true &&
		failure.replayed === true &&
		failure.attempts === 1 &&
		!sentBefore
	);
}

/**
 * One send under its key chain: the item's key, then one link per fresh try after a stored
 * refusal. Every run walks it from the start, so a try that went through is replayed, never sent
 * again; the first link the API has not seen is this run's one real try. `send` makes the request
 * under the link's Idempotency-Key. `divert`: a failure after which the caller sends something
 * else instead (undefined is returned).
 */
export async function sendThroughChain<T>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	key: string,
	send: (idempotencyKey: string) => Promise<T>,
	divert?: (error: unknown) => boolean,
): Promise<T | undefined> {
	const sent = keysSentBy(ctx);
	for (let link = 0; ; link++) {
		const linkKey = refusalLinkKey(key, link);
		const sentBefore = sent.has(linkKey);
		sent.add(linkKey);
		try {
			return await send(linkKey);
		} catch (error) {
			if (divert?.(error)) return undefined;
			if (!storedByEarlierRun(error, sentBefore)) throw asNodeError(ctx, error, itemIndex);
			if (link === MAX_FRESH_TRIES) throw triedEnough(ctx, error, itemIndex);
		}
	}
}

/** The stored refusal again, once the fresh tries of 24 hours are spent, saying so. */
function triedEnough(ctx: IExecuteFunctions, error: unknown, itemIndex: number) {
	const nodeError = asNodeError(ctx, error, itemIndex);
	nodeError.description =
		`${nodeError.description ?? ''} This is the API's stored answer: runs with this input already tried ${MAX_FRESH_TRIES} more times within 24 hours and were refused, so it is not tried again. To try now, map a new Idempotency Key or set Repeat Protection to Every Execution Sends.`.trim();
	return nodeError;
}
