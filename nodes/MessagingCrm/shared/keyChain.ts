import type { IExecuteFunctions } from 'n8n-workflow';

import { asNodeError } from '../helpers/validate';
import type { ApiFailure } from '../transport/errors';
import { apiFailureOf } from '../transport/errors';
import { keysSentBy, messengerKey, refusalLinkKey } from './idempotency';

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

const TRIED_ENOUGH = `This is the API's stored answer: runs with this input already tried ${MAX_FRESH_TRIES} more times within 24 hours and were refused, so it is not tried again. To try now, map a new Idempotency Key or set Repeat Protection to Every Execution Sends.`;

/** The stored refusal again, once the fresh tries of 24 hours are spent, saying so. */
function triedEnough(ctx: IExecuteFunctions, error: unknown, itemIndex: number) {
	const nodeError = asNodeError(ctx, error, itemIndex);
	nodeError.description = `${nodeError.description ?? ''} ${TRIED_ENOUGH}`.trim();
	return nodeError;
}

/** One refused try of a walk over messengers: the messenger and the API's code. */
export interface Tried {
	messenger: string;
	code: string;
	/** The API's stored answer to an earlier run's try: nothing was tried on it in this run. */
	stored_by_earlier_run?: true;
}

/** A send that may go to any of several messengers, first to last (Best Available). */
export interface MessengerWalk<T> {
	/** The item's key: each messenger's tries are links of its own key (`messengerKey`). */
	key: string;
	/** The messengers, in the order they are tried. */
	order: string[];
	/** Sends on the messenger under the Idempotency-Key the walk gives. */
	send: (messenger: string, idempotencyKey: string) => Promise<T>;
	/** A refusal that says the customer cannot be reached on this messenger: the next is tried. */
	fallsThrough: (error: unknown) => boolean;
	/** A refusal after which something else goes out on the same messenger: what sends it. */
	divert?: (messenger: string, error: unknown) => (() => Promise<T>) | undefined;
}

export interface WalkResult<T> {
	answer: T;
	/** The messenger it went out on. */
	via: string;
	/** The refusals before it, in order. */
	tried: Tried[];
	/** Whether `divert`'s send delivered it. */
	diverted: boolean;
}

/** The error of a walk, the messengers tried and their codes in its description and details. */
function walkError(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
	tried: Tried[],
	enough = false,
) {
	const nodeError = asNodeError(ctx, error, itemIndex);
	const list = tried
		.map(
			(t) =>
				`${t.messenger} (${t.code}${t.stored_by_earlier_run ? ", the API's stored answer to an earlier run" : ''})`,
		)
		.join(', ');
	const said = [nodeError.description, enough ? TRIED_ENOUGH : undefined];
	nodeError.description = [...said, `Messengers tried, in order: ${list || 'none'}.`]
		.filter(Boolean)
		.join(' ');
	const failure = apiFailureOf(nodeError);
	if (failure) nodeError.context.apiError = { ...failure, details: { ...failure.details, tried } };
	return nodeError;
}

/**
 * A send to the first messenger that takes it. Round r tries messenger m under link r of m's own
 * key chain, messengers in order. A delivery (fresh or the API's stored one) ends the walk. A
 * refusal that falls through moves to the next messenger of the round. One that does not
 * (the connection is broken, the messenger rejected the message, or it may yet deliver) fails
 * the item when it is this run's answer, and ends the round when an earlier run stored it: the
 * next round is that run's fresh try. A run whose round sent a key the API had not seen starts
 * no other round, so a run never tries anything fresh twice, and every run walks the same
 * stored answers to the same place: a message that went out is found, never sent beside.
 * Every step is the API's stored word, never a guess from a read (a skip stored nowhere would
 * send on the skipped messenger in a re-run after the cause cleared, beside the first delivery).
 */
export async function walkMessengers<T>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	walk: MessengerWalk<T>,
): Promise<WalkResult<T>> {
	const sent = keysSentBy(ctx);
	const tried: Tried[] = [];
	let last: unknown;
	for (let round = 0; round <= MAX_FRESH_TRIES; round++) {
		let fresh = false;
		for (const messenger of walk.order) {
			const linkKey = refusalLinkKey(messengerKey(walk.key, messenger), round);
			const sentBefore = sent.has(linkKey);
			sent.add(linkKey);
			try {
				return {
					answer: await walk.send(messenger, linkKey),
					via: messenger,
					tried,
					diverted: false,
				};
			} catch (error) {
				const instead = walk.divert?.(messenger, error);
				if (instead) {
					try {
						return { answer: await instead(), via: messenger, tried, diverted: true };
					} catch (refused) {
						throw walkError(ctx, refused, itemIndex, tried);
					}
				}
				const stored = storedByEarlierRun(error, sentBefore);
				const code = apiFailureOf(error)?.code ?? 'error';
				tried.push({
					messenger,
					code,
					...(stored ? { stored_by_earlier_run: true as const } : {}),
				});
				last = error;
				if (!stored) fresh = true;
				if (walk.fallsThrough(error)) continue;
				if (!stored) throw walkError(ctx, error, itemIndex, tried);
				break;
			}
		}
		if (fresh) throw walkError(ctx, last, itemIndex, tried);
	}
	throw walkError(ctx, last, itemIndex, tried, true);
}
