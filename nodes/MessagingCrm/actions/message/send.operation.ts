import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeProperties,
	NodeExecutionHint,
	NodeOperationError,
} from 'n8n-workflow';

import { invalidInput, itemError } from '../../helpers/validate';
import { apiFailureOf } from '../../transport/errors';
import { apiRequest, isReplayed } from '../../transport/request';
import { agentSelect, optionalAgentId } from '../../shared/descriptions';
import { customerLocator, resolveCustomerId } from '../../shared/customer';
import {
	customKey,
	derivedKey,
	idempotencyKeyOption,
	repeatFields,
	repeatHints,
	repeatProtectionHint,
	repeatProtectionOption,
	messengerKey,
	SEND_WORDS,
	windowFallbackKey,
} from '../../shared/idempotency';
import { sendRetryRule, sendThroughChain, walkMessengers } from '../../shared/keyChain';
import { readTemplate, templateFields } from '../../shared/template';
import type { OperationOption, PanelHint } from '../node.type';
import { paths } from '../../transport/paths';
import type { Scope } from '../../helpers/scopes';
import { customerMessengers } from '../../shared/reads';
import { BEST_AVAILABLE } from '../../shared/messengers';
import { fallsThrough, messengerOrderField, messengersToTry } from './bestAvailable';

const MARKDOWN_HINT =
	'Markdown, written once for every messenger. Parsed: **bold**, *italic*, ***bold italic***, ~~strikethrough~~, `inline code`, [label](https://example.com). Delivered literally: _underscore emphasis_, bullet lists, tables, > quotes, # headings. A marker must touch the text: "** bold**" is not bold.';

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

/** Its fields. */
export const description: INodeProperties[] = [
	customerLocator,
	messengerField,
	messengerOrderField,
	agentField,
	{
		displayName: 'Content',
		name: 'content',
		type: 'options',
		default: 'text',
		options: [
			{
				name: 'Text',
				value: 'text',
				description:
					"Free-form text. On WhatsApp Business, Instagram and Facebook only within 24 hours of the customer's last message.",
			},
			{
				name: 'Business-Chat Template',
				value: 'template',
				description: 'An approved template, allowed outside the 24-hour window',
			},
		],
	},
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		hint: MARKDOWN_HINT,
		displayOptions: { show: { content: ['text'] } },
	},
	...templateFields('template', { content: ['template'] }),
	{
		displayName: 'If the 24-Hour Window Is Closed',
		name: 'windowClosed',
		type: 'options',
		default: 'fail',
		displayOptions: { show: { content: ['text'] } },
		options: [
			{
				name: 'Fail',
				value: 'fail',
				description: 'The item fails with bizchat_window_closed and what to do',
			},
			{
				name: 'Send a Template Instead',
				value: 'template',
				description:
					'Send the approved template below once, instead of the text, when the window is closed (messengers without a window, such as Telegram Bot, never fall back)',
			},
		],
		description:
			"On WhatsApp Business, Instagram and Facebook, free-form text needs the customer's message within 24 hours",
	},
	...templateFields('fallbackTemplate', { content: ['text'], windowClosed: ['template'] }),
	{
		displayName: 'Follow-Up',
		name: 'followUp',
		type: 'options',
		default: 'none',
		options: [
			{ name: 'None', value: 'none' },
			{
				name: 'Text',
				value: 'text',
				description: 'Nudge with a text if the customer stays silent',
			},
			{
				name: 'Template',
				value: 'template',
				description: 'Nudge with a template if the customer stays silent',
			},
		],
		description:
			'A reminder sent after some minutes unless the customer replies (any reply cancels it)',
	},
	{
		displayName: 'Follow-Up After (Minutes)',
		name: 'followUpMinutes',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 60,
		displayOptions: { show: { followUp: ['text', 'template'] } },
	},
	{
		displayName: 'Follow-Up Text',
		name: 'followUpText',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		required: true,
		displayOptions: { show: { followUp: ['text'] } },
	},
	...templateFields('followUpTemplate', { followUp: ['template'] }),
	{
		displayName: 'Pause AI Agent After Sending',
		name: 'pauseAgent',
		type: 'boolean',
		default: false,
		description:
			'Whether to pause the AI agent in this dialog once the message is confirmed sent, like the pause button in the CRM',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Check 24-Hour Window First',
				name: 'checkWindow',
				type: 'boolean',
				default: false,
				description:
					"Whether to read the customer's messengers first (one extra request) and fail the item locally when free-form text is not allowed right now",
			},
			idempotencyKeyOption,
			repeatProtectionOption,
		],
	},
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Send',
	action: 'Send a message',
	description:
		"Send text or a business-chat template to a customer's messenger, exactly once. A refusal (blocked, window closed …) fails the item with its code and what to do next. Scope: messages:send (text) or messages:template (template).",
};

/** Before a run: a repeat sends nothing. */
export const panelHint: PanelHint = repeatProtectionHint(SEND_WORDS);

/** After a run: which items the API marked as repeats, or that a repeat may not be marked. */
export function hints(this: IExecuteFunctions, output: INodeExecutionData[]): NodeExecutionHint[] {
	return repeatHints(this, output, SEND_WORDS);
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

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const messengerType = messengerOf(this, itemIndex);
	const content = this.getNodeParameter('content', itemIndex, 'text') as string;
	const body: IDataObject = {
		messenger_type: messengerType,
		agent_id: optionalAgentId(this, itemIndex),
		pause_agent: this.getNodeParameter('pauseAgent', itemIndex, false) as boolean,
	};
	if (content === 'template') {
		body.template = readTemplate(this, itemIndex, 'template', 'Template');
	} else {
		const text = this.getNodeParameter('text', itemIndex, '') as unknown;
		if (typeof text !== 'string' || text.trim() === '')
			throw invalidInput(
				node,
				itemIndex,
				'Text',
				'is empty',
				'Write the message, or map it from a previous node.',
			);
		body.text = text;
	}
	const followUp = this.getNodeParameter('followUp', itemIndex, 'none') as string;
	if (followUp !== 'none') {
		const minutes = this.getNodeParameter('followUpMinutes', itemIndex, 60) as number;
		if (!Number.isInteger(minutes) || minutes < 1) {
			throw invalidInput(
				node,
				itemIndex,
				'Follow-Up After (Minutes)',
				`must be a whole number of at least 1, got ${String(minutes)}`,
				'Enter the minutes to wait for a reply.',
			);
		}
		const reminder: IDataObject = { after_minutes: minutes };
		if (followUp === 'template')
			reminder.template = readTemplate(this, itemIndex, 'followUpTemplate', 'Follow-Up Template');
		else {
			const text = String(this.getNodeParameter('followUpText', itemIndex, '') ?? '');
			if (!text.trim())
				throw invalidInput(
					node,
					itemIndex,
					'Follow-Up Text',
					'is empty',
					'Write the reminder, or set Follow-Up to None.',
				);
			reminder.text = text;
		}
		body.follow_up = reminder;
	}
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const ownKey = customKey(this, itemIndex, options.idempotencyKey);
	// The template to send instead of text when the window is closed, read before any request.
	const fallback =
		content === 'text' && this.getNodeParameter('windowClosed', itemIndex, 'fail') === 'template'
			? readTemplate(this, itemIndex, 'fallbackTemplate', 'Fallback Template')
			: undefined;
	const customerId = await resolveCustomerId(this, itemIndex);
	return await deliver(this, itemIndex, customerId, {
		messengerType,
		body: (messenger) => ({ ...body, messenger_type: messenger }),
		keyBody: body,
		purpose: 'message-send',
		scope: content === 'template' ? 'messages:template' : 'messages:send',
		ownKey,
		protection: options.repeatProtection,
		fallback,
		checkWindow: options.checkWindow === true && content === 'text',
	});
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
