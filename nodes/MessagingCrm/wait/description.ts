/**
 * The fields of a message that waits for the customer's answer (Message → Send and Wait for
 * Response): what the answer is (an approval, free text or a form), how long to wait, and the
 * page's words. Their names are n8n's own (`message`, `responseType`, `approvalOptions`,
 * `formFields`, `options.limitWaitTime`), so that n8n 2.x offers the node as an AI Agent's
 * human review step and a builder who knows n8n's Send and Wait finds them where they are there.
 */
import type { INodeProperties, IWebhookDescription } from 'n8n-workflow';

import { idempotencyKeyOption, repeatProtectionOption } from '../shared/idempotency';

/**
 * Where a waiting message's links come back: n8n's waiting webhooks at the node's ID (GET shows
 * the page, POST answers), as n8n's own Send and Wait nodes declare them.
 */
export const waitWebhooks: IWebhookDescription[] = ['GET', 'POST'].map((httpMethod) => ({
	name: 'default',
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
}));

export const RESPONSE_TYPES = ['approval', 'freeText', 'customForm'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

/** The form field types a Custom Form offers, as n8n's Form node names them. */
export const FIELD_TYPES = ['text', 'textarea', 'number', 'email', 'date', 'dropdown'] as const;

const limitWaitTime: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'days' } },
	description:
		"Without an answer by then, the workflow goes on with the input items unchanged (they carry no data.approved), as n8n's own Send and Wait does. Without a limit it waits until answered.",
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Limit Type',
					name: 'limitType',
					type: 'options',
					default: 'afterTimeInterval',
					options: [
						{ name: 'After Time Interval', value: 'afterTimeInterval' },
						{ name: 'At Specified Time', value: 'atSpecifiedTime' },
					],
				},
				{
					displayName: 'Amount',
					name: 'resumeAmount',
					type: 'number',
					typeOptions: { minValue: 0, numberPrecision: 2 },
					default: 1,
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
				},
				{
					displayName: 'Unit',
					name: 'resumeUnit',
					type: 'options',
					default: 'days',
					options: [
						{ name: 'Seconds', value: 'seconds' },
						{ name: 'Minutes', value: 'minutes' },
						{ name: 'Hours', value: 'hours' },
						{ name: 'Days', value: 'days' },
					],
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
				},
				{
					displayName: 'Max Date and Time',
					name: 'maxDateAndTime',
					type: 'dateTime',
					default: '',
					description: 'Continue execution after the specified date and time',
					displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
				},
			],
		},
	],
};

/** Shown for the forms (Free Text, Custom Form) only. */
const forForms = { show: { '/responseType': ['freeText', 'customForm'] } };

export const waitFields: INodeProperties[] = [
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: 'e.g. Can you make it on Tuesday at 10:00?',
		hint: 'Markdown, as in Send. The links (Approve, Decline or Respond) are added below it, each on a line of its own: a hyperlink on Telegram and the web widget, "Approve: https://…" on business chat, VK, MAX and the social networks.',
	},
	{
		displayName: 'Sender Name',
		name: 'senderName',
		type: 'string',
		default: '',
		placeholder: 'e.g. Northside Dental',
		description:
			'Who asks: your company\'s or the agent\'s name, the heading of the page a link opens. Empty: the page says "A question for you".',
	},
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		default: 'approval',
		builderHint: {
			propertyHint:
				"What the customer answers, and so what the next node reads. 'approval' for yes or no: the output is data.approved (true or false); set approvalOptions.values.approvalType to 'double' (Approve and Decline) when an If node branches on it, since 'single' only ever answers true. 'freeText' for a written reply: data.text. 'customForm' for several answers: define formFields, and each answer is under data by its field label. The execution pauses until the customer answers or Limit Wait Time runs out; it sends one message per run, so put Loop Over Items before it for several customers.",
		},
		options: [
			{
				name: 'Approval',
				value: 'approval',
				description: 'The customer opens a link and presses Approve (or Decline)',
			},
			{
				name: 'Free Text',
				value: 'freeText',
				description: 'The customer opens a link and writes an answer',
			},
			{
				name: 'Custom Form',
				value: 'customForm',
				description: 'The customer opens a link and fills in the fields you define',
			},
		],
	},
	{
		displayName: 'Approval Options',
		name: 'approvalOptions',
		type: 'fixedCollection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: { responseType: ['approval'] } },
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
					{
						displayName: 'Type of Approval',
						name: 'approvalType',
						type: 'options',
						default: 'single',
						options: [
							{ name: 'Approve Only', value: 'single' },
							{ name: 'Approve and Decline', value: 'double' },
						],
					},
					{
						displayName: 'Approve Button Label',
						name: 'approveLabel',
						type: 'string',
						default: 'Approve',
					},
					{
						displayName: 'Decline Button Label',
						name: 'disapproveLabel',
						type: 'string',
						default: 'Decline',
						displayOptions: { show: { approvalType: ['double'] } },
					},
				],
			},
		],
	},
	{
		displayName: 'Form Fields',
		name: 'formFields',
		type: 'fixedCollection',
		placeholder: 'Add Form Field',
		default: {},
		typeOptions: { multipleValues: true, sortable: true },
		displayOptions: { show: { responseType: ['customForm'] } },
		description:
			"The form's fields, as n8n's Form node defines them: the answer holds each by its label",
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
					{
						displayName: 'Element Type',
						name: 'fieldType',
						type: 'options',
						default: 'text',
						options: [
							{ name: 'Date', value: 'date' },
							{ name: 'Dropdown List', value: 'dropdown' },
							{ name: 'Email', value: 'email' },
							{ name: 'Number', value: 'number' },
							{ name: 'Text', value: 'text' },
							{ name: 'Textarea', value: 'textarea' },
						],
					},
					{
						displayName: 'Field Label',
						name: 'fieldLabel',
						type: 'string',
						default: '',
						placeholder: 'e.g. Preferred time',
						required: true,
					},
					{
						displayName: 'Field Options',
						name: 'fieldOptions',
						placeholder: 'Add Field Option',
						type: 'fixedCollection',
						default: { values: [{ option: '' }] },
						required: true,
						displayOptions: { show: { fieldType: ['dropdown'] } },
						typeOptions: { multipleValues: true, sortable: true },
						options: [
							{
								displayName: 'Values',
								name: 'values',
								values: [{ displayName: 'Option', name: 'option', type: 'string', default: '' }],
							},
						],
					},
					{
						displayName: 'Placeholder',
						name: 'placeholder',
						type: 'string',
						default: '',
						displayOptions: { hide: { fieldType: ['dropdown', 'date'] } },
					},
					{
						displayName: 'Required Field',
						name: 'requiredField',
						type: 'boolean',
						default: false,
						description: 'Whether the customer must fill in this field to send the form',
					},
				],
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			limitWaitTime,
			{
				displayName: 'Message Button Label',
				name: 'messageButtonLabel',
				type: 'string',
				default: 'Respond',
				description: "The link's label in the message, which opens the form",
				displayOptions: forForms,
			},
			{
				displayName: 'Response Form Title',
				name: 'responseFormTitle',
				type: 'string',
				default: '',
				description: "The form page's title (empty: none)",
				displayOptions: forForms,
			},
			{
				displayName: 'Response Form Description',
				name: 'responseFormDescription',
				type: 'string',
				default: '',
				description: 'Text above the form (empty: the message)',
				displayOptions: forForms,
			},
			{
				displayName: 'Response Form Button Label',
				name: 'responseFormButtonLabel',
				type: 'string',
				default: 'Submit',
				displayOptions: forForms,
			},
			idempotencyKeyOption,
			repeatProtectionOption,
		],
	},
];
