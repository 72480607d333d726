import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	NodeExecutionHint,
} from 'n8n-workflow';

import { invalidInput } from '../../helpers/validate';
import { optionalAgentId } from '../../shared/descriptions';
import { customerLocator, resolveCustomerId } from '../../shared/customer';
import {
	customKey,
	idempotencyKeyOption,
	repeatHints,
	repeatProtectionHint,
	repeatProtectionOption,
	SEND_WORDS,
} from '../../shared/idempotency';
import { readTemplate, templateFields } from '../../shared/template';
import type { OperationOption, PanelHint } from '../node.type';
import { messengerOrderField } from './bestAvailable';
import { agentField, deliver, messengerField, messengerOf } from './delivery';

const MARKDOWN_HINT =
	'Markdown, written once for every messenger. Parsed: **bold**, *italic*, ***bold italic***, ~~strikethrough~~, `inline code`, [label](https://example.com). Delivered literally: _underscore emphasis_, bullet lists, tables, > quotes, # headings. A marker must touch the text: "** bold**" is not bold.';

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
