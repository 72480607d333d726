/**
 * Delivering one message to one customer, as Send and Send and Wait for Response both do: the
 * fields they share (the messenger, the agent), the 24-hour window's pre-check, and `deliver`:
 * exactly once per event (Repeat Protection's key, the key chain), on the chosen messenger or the
 * first of Best Available's that takes it, with the template instead when the window is closed.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeProperties,
	NodeOperationError,
} from 'n8n-workflow';

import { invalidInput, itemError } from '../../helpers/validate';
import type { Scope } from '../../helpers/scopes';
import { agentSelect } from '../../shared/descriptions';
import {
	derivedKey,
	messengerKey,
	repeatFields,
	SEND_WORDS,
	windowFallbackKey,
} from '../../shared/idempotency';
import { sendRetryRule, sendThroughChain, walkMessengers } from '../../shared/keyChain';
import { BEST_AVAILABLE } from '../../shared/messengers';
import { customerMessengers } from '../../shared/reads';
import { apiFailureOf } from '../../transport/errors';
import { paths } from '../../transport/paths';
import { apiRequest, isReplayed } from '../../transport/request';
import { fallsThrough, messengersToTry } from './bestAvailable';

/** The customer's messenger to send to (or Best Available), as Send and Send and Wait have it. */
export const messengerField: INodeProperties = {
	displayName: 'Messenger Name or ID',
	name: 'messengerType',
	type: 'options',
	typeOptions: {
		loadOptionsMethod: 'getCustomerMessengers',
		loadOptionsDependsOn: ['customerId.value'],
	},
	default: '',
	required: true,
	description:
		'The customer\'s messenger to send to. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	builderHint: {
		propertyHint:
			"The messenger type, not the customer's ID in it: one of telegram, whatsapp (WhatsApp Business), whatsapp_personal, telegram_personal, instagram, facebook, vk, max, web_widget, or bestAvailable to use the first of the customer's messengers that takes the message now. The choices load per customer, so with a mapped customer set one of these values directly; never leave it empty and never put a phone number or chat ID here. On whatsapp, instagram and facebook free-form text is only allowed within 24 hours of the customer's last message: outside it set content to 'template', or windowClosed to 'template' with a fallback template.",
	},
};

/** The agent the message goes from. */
export const agentField: INodeProperties = agentSelect(
	{
		description:
			'The agent to send from. Empty: the agent with this messenger. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	'messengerAgent',
);

/** The messenger, read before any request. */
export function messengerOf(ctx: IExecuteFunctions, itemIndex: number): string {
	const messengerType = String(ctx.getNodeParameter('messengerType', itemIndex, '') ?? '').trim();
	if (!messengerType)
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			'Messenger',
			'is empty',
			"Pick one of the customer's messengers, or map its type.",
		);
	return messengerType;
}

/**
 * The pre-check's refusal when free-form text may not go to this messenger now, or undefined. It
 * carries the API's code for the same send, `bizchat_window_closed`, with the API's `retryable`
 * and what the messengers read said, so that a caller branches on it as on the API's refusal.
 */
export function windowRefusal(
	node: INode,
	itemIndex: number,
	messengerType: string,
	entry: IDataObject | undefined,
): NodeOperationError | undefined {
	if (!entry || entry.can_send_freeform !== false) return undefined;
	const expiresAt = typeof entry.window_expires_at === 'string' ? entry.window_expires_at : null;
	const closed = expiresAt
		? `closed at ${expiresAt}`
		: 'not open (the customer has not written yet)';
	return itemError(
		node,
		itemIndex,
		`the 24-hour window on ${messengerType} is ${closed}; use a template`,
		"Free-form text is only allowed within 24 hours of the customer's last message on this messenger. Switch Content to Business-Chat Template, or set If the 24-Hour Window Is Closed to Send a Template Instead.",
		{
			code: 'bizchat_window_closed',
			details: { retryable: false, messenger_type: messengerType, window_expires_at: expiresAt },
			caller: expiresAt
				? `the customer's 24-hour window on ${messengerType} closed at ${expiresAt}: free-form text cannot be sent there now`
				: `the customer has not written on ${messengerType} yet, so its 24-hour window is not open: free-form text cannot be sent there now`,
			next: "Nothing was sent. Send an approved business-chat template instead, or try another of the customer's messengers; text can go on this one again once the customer writes.",
			// It read the customer's messengers (one GET) first.
			when: 'before any message was sent',
		},
	);
}

/** The pre-check of the 24-hour window: the item fails, saying so, when text may not be sent. */
async function checkWindow(
	ctx: IExecuteFunctions,
	itemIndex: number,
	customerId: string,
	messengerType: string,
): Promise<void> {
	const entry = (await customerMessengers(ctx, customerId, itemIndex)).find(
		(m) => m.type === messengerType,
	);
	const refused = windowRefusal(ctx.getNode(), itemIndex, messengerType, entry);
	if (refused) throw refused;
}

/** A message for one customer, as Send and Send and Wait for Response deliver it. */
export interface Outgoing {
	/** The messenger chosen (or Best Available). */
	messengerType: string;
	/** What goes to `messenger` (with Best Available, each messenger tried). */
	body: (messenger: string) => IDataObject;
	/** What Repeat Protection's key is made from, with `purpose` and the path. */
	keyBody: IDataObject;
	purpose: string;
	scope: Scope;
	/** The Idempotency Key option (checked before any request), and Repeat Protection's value. */
	ownKey?: string;
	protection: unknown;
	/** The template sent instead of the text when the 24-hour window is closed. */
	fallback?: IDataObject;
	/** Read the customer's messengers first, and fail when the window is closed. */
	checkWindow: boolean;
}

/**
 * Sends `out` to the customer exactly once per event (Repeat Protection, the key chain), on its
 * messenger or the first of Best Available's that takes it; the output item of Send.
 */
export async function deliver(
	ctx: IExecuteFunctions,
	itemIndex: number,
	customerId: string,
	out: Outgoing,
): Promise<IDataObject[]> {
	const { messengerType, fallback, scope } = out;
	const best = messengerType === BEST_AVAILABLE;
	// With a template to fall back on, the text is always tried first (the API decides): a send
	// made on the pre-check's word could go out beside a text an earlier run had sent. So with
	// Best Available: every messenger is tried by sending (bestAvailable.ts says why).
	if (out.checkWindow && !fallback && !best)
		await checkWindow(ctx, itemIndex, customerId, messengerType);
	const walk = best ? await messengersToTry(ctx, itemIndex, customerId) : undefined;
	const path = paths.customer(customerId, '/messages');
	const body = out.body(messengerType);
	const key =
		out.ownKey ??
		derivedKey(ctx, itemIndex, {
			protection: out.protection,
			purpose: out.purpose,
			path,
			// Best Available: the order as chosen, not as found, so a re-run has the same key.
			body: walk ? { ...out.keyBody, messenger_order: walk.chosen } : out.keyBody,
		});
	/** The message POSTed under the Idempotency-Key the key chain gives it. */
	const poster = (payload: IDataObject, scope: Scope) => async (idempotencyKey: string) =>
		await apiRequest<IDataObject>(ctx, {
			method: 'POST',
			path,
			body: payload,
			idempotencyKey,
			retryWhen: sendRetryRule(),
			scope,
			itemIndex,
		});
	type Answer = Awaited<ReturnType<ReturnType<typeof poster>>>;
	const output = (answer: Answer, sentAs: 'text' | 'template', walked: IDataObject = {}) => [
		{
			customer_id: customerId,
			...answer.body,
			...(fallback ? { sent_as: sentAs } : {}),
			...(sentAs === 'template' && fallback
				? {
						fallback_reason:
							'The 24-hour window was closed, so the template was sent instead of the text',
					}
				: {}),
			...walked,
			...repeatFields(ctx, isReplayed(answer.headers), SEND_WORDS),
		},
	];
	// Window closed, and a template is to go instead: the text's refusal (fresh, or stored by an
	// earlier run) diverts to the template, which has a key chain of its own; so a re-run never
	// sends both, whatever the window does in between.
	const windowClosed = (error: unknown) => apiFailureOf(error)?.code === 'bizchat_window_closed';
	// The same message with the template in place of the text, under an Idempotency-Key made from
	// the text's: it goes once however often the item is run again (and again per execution under
	// Every Execution Sends).
	const instead: IDataObject = { ...body, template: fallback };
	delete instead.text;
	const sendInstead = async (textKey: string, payload: IDataObject) =>
		(await sendThroughChain(
			ctx,
			itemIndex,
			windowFallbackKey(textKey),
			poster(payload, 'messages:template'),
		))!;
	if (walk) {
		const on = (payload: IDataObject, messenger: string) => ({
			...payload,
			messenger_type: messenger,
		});
		// The template goes on the messenger whose window is closed, not on the next one.
		const { answer, via, tried, diverted } = await walkMessengers(ctx, itemIndex, {
			key,
			order: walk.order,
			send: async (messenger, linkKey) => await poster(out.body(messenger), scope)(linkKey),
			fallsThrough,
			divert: (messenger, error) =>
				fallback && windowClosed(error)
					? async () => await sendInstead(messengerKey(key, messenger), on(instead, messenger))
					: undefined,
		});
		return output(answer, diverted ? 'template' : 'text', {
			sent_via: via,
			tried: tried as unknown as IDataObject[],
		});
	}
	const answer = await sendThroughChain(
		ctx,
		itemIndex,
		key,
		poster(body, scope),
		fallback ? windowClosed : undefined,
	);
	if (answer) return output(answer, 'text');
	return output(await sendInstead(key, instead), 'template');
}
