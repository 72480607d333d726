import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	NodeExecutionHint,
} from 'n8n-workflow';

import { LIMITS, optionalEmail, optionalPhone, optionalText } from '../../helpers/bounds';
import { invalidInput, itemError } from '../../helpers/validate';
import { apiRequest, isReplayed } from '../../transport/request';
import { agentSelect, pipelineSelect, stageCodeSelect } from '../../shared/descriptions';
import { readMessengers, tagsOf } from '../../shared/customer';

import {
	customKey,
	derivedKey,
	idempotencyKeyOption,
	repeatFields,
	repeatHints,
	repeatProtectionHint,
	repeatProtectionOption,
	UPSERT_WORDS,
} from '../../shared/idempotency';
import { placementOf } from '../../shared/deal';
import { MESSENGER_ID_HINT, MESSENGER_TYPE_OPTIONS } from '../../shared/messengers';
import {
	chunkVariables,
	patchVariables,
	readVariables,
	variablesEditor,
} from '../../shared/variables';
import type { OperationOption, PanelHint } from '../node.type';
import { paths } from '../../transport/paths';

/** Its fields. */
export const description: INodeProperties[] = [
	{
		displayName:
			'A customer with the same phone, email or messenger is updated; otherwise a new one is created',
		name: 'upsertNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Phone',
		name: 'phone',
		type: 'string',
		default: '',
		placeholder: 'e.g. +15551234567',
		description:
			'Customers are matched on the phone in international form, the email, or any messenger identity. At least one of the three is needed.',
	},
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'e.g. nathan@example.com',
		default: '',
	},
	{
		displayName: 'Messengers',
		name: 'messengersUi',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Messenger',
		default: {},
		options: [
			{
				displayName: 'Messenger',
				name: 'messenger',
				values: [
					{
						displayName: 'Type',
						name: 'type',
						type: 'options',
						options: MESSENGER_TYPE_OPTIONS,
						default: 'telegram',
					},
					{
						displayName: 'ID in the Messenger',
						name: 'id',
						type: 'string',
						default: '',
						required: true,
						placeholder: 'e.g. 123456789',
						hint: MESSENGER_ID_HINT,
					},
					{
						displayName: 'Username',
						name: 'username',
						type: 'string',
						default: '',
						placeholder: 'e.g. jane_doe',
					},
				],
			},
		],
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Full Name',
				name: 'fullName',
				type: 'string',
				default: '',
				description: 'Up to 255 characters',
			},
			{
				displayName: 'Language',
				name: 'language',
				type: 'string',
				default: '',
				placeholder: 'e.g. en',
				description: 'Preferred language as a two-letter ISO 639-1 code',
			},
			{
				displayName: 'Source',
				name: 'source',
				type: 'string',
				default: '',
				placeholder: 'e.g. website-form',
				description: 'Where the customer came from, up to 100 characters',
			},
			{
				displayName: 'Tags',
				name: 'tags',
				type: 'string',
				default: '',
				placeholder: 'e.g. vip, newsletter',
				description: 'Comma-separated, or map a list',
			},
		],
	},
	...variablesEditor(true),
	{
		displayName: 'Placement of a New Customer',
		name: 'placement',
		type: 'options',
		default: 'default',
		options: [
			{
				name: 'Company Default',
				value: 'default',
				description: 'The default pipeline and its first stage',
			},
			{ name: 'Choose Agent, Pipeline and Stage', value: 'choose' },
		],
		description: 'Where the deal of a new customer starts. An existing customer is never moved.',
	},
	{ ...agentSelect({}, 'defaultAgent'), displayOptions: { show: { placement: ['choose'] } } },
	pipelineSelect(
		{
			description:
				'Empty: the agent\'s default pipeline. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			displayOptions: { show: { placement: ['choose'] } },
		},
		{ ofAgent: true, empty: 'defaultPipeline' },
	),
	stageCodeSelect(
		{
			description:
				'Empty: the first stage. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			displayOptions: { show: { placement: ['choose'] } },
		},
		{ firstIfEmpty: true },
	),
	{
		displayName: 'Avatar',
		name: 'avatar',
		type: 'options',
		default: 'none',
		options: [
			{ name: 'Leave As Is', value: 'none' },
			{
				name: 'From a URL',
				value: 'url',
				description: 'The service downloads the picture once and keeps its own copy',
			},
			{
				name: 'Fetch From the Messenger',
				value: 'fetch',
				description: 'The service pulls the profile photo itself where the messenger allows it',
			},
		],
		description:
			"A photo that cannot be fetched never fails the call: it is reported in the output's warnings",
	},
	{
		displayName: 'Avatar URL',
		name: 'avatarUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://example.com/image.png',
		displayOptions: { show: { avatar: ['url'] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [idempotencyKeyOption, repeatProtectionOption],
	},
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Create or Update',
	action: 'Create or update a customer',
	description:
		'Create a new record, or update the current one if it already exists (upsert). Scope: customers:write.',
};

/** Before a run: a repeat changes nothing. */
export const panelHint: PanelHint = repeatProtectionHint(UPSERT_WORDS);

/** After a run: which items the API marked as repeats, or that a repeat may not be marked. */
export function hints(this: IExecuteFunctions, output: INodeExecutionData[]): NodeExecutionHint[] {
	return repeatHints(this, output, UPSERT_WORDS);
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const phone = optionalPhone(
		this,
		itemIndex,
		'Phone',
		this.getNodeParameter('phone', itemIndex, ''),
	);
	const email = optionalEmail(
		this,
		itemIndex,
		'Email',
		this.getNodeParameter('email', itemIndex, ''),
	);
	const messengers = readMessengers(this, itemIndex);
	if (!phone && !email && messengers.length === 0) {
		throw itemError(
			node,
			itemIndex,
			`no identifier: "Phone", "Email" and "Messengers" are all empty`,
			'Give at least one identifier: a phone, an email or a messenger. Customers are matched on them.',
			{
				// What the API answers for a customer without one (422).
				code: 'validation_error',
				caller: 'no identifier was given: no phone, email or messenger',
				next: 'Nothing was written: call again with at least a phone, an email or a messenger of the customer (customers are matched on them).',
			},
		);
	}
	const language = optionalText(this, itemIndex, 'Language', extra.language);
	if (language !== undefined && !/^[a-zA-Z]{2}$/.test(language)) {
		throw invalidInput(
			node,
			itemIndex,
			'Language',
			`must be a two-letter ISO 639-1 code, got ${JSON.stringify(language)}`,
			'Use a code such as en, de or es.',
		);
	}
	const tags = tagsOf(extra.tags);

	const body: IDataObject = {
		full_name: optionalText(this, itemIndex, 'Full Name', extra.fullName, LIMITS.fullName),
		phone,
		email,
		source: optionalText(this, itemIndex, 'Source', extra.source, LIMITS.source),
		language: language?.toLowerCase(),
	};
	if (messengers.length) body.messengers = messengers;
	if (tags?.length) body.tags = tags;

	if (this.getNodeParameter('placement', itemIndex, 'default') === 'choose') {
		const placement = placementOf(this, itemIndex);
		for (const key of Object.keys(placement))
			if (placement[key] === undefined) delete placement[key];
		if (Object.keys(placement).length) body.placement = placement;
	}

	const avatar = this.getNodeParameter('avatar', itemIndex, 'none') as string;
	if (avatar === 'url') {
		const url = optionalText(
			this,
			itemIndex,
			'Avatar URL',
			this.getNodeParameter('avatarUrl', itemIndex, ''),
			2048,
		);
		if (!url || !/^https?:\/\/\S+$/i.test(url)) {
			throw invalidInput(
				node,
				itemIndex,
				'Avatar URL',
				`must be an http(s) link, got ${JSON.stringify(url ?? '')}`,
				'Enter a link such as https://example.com/photo.jpg, or set Avatar to Leave As Is.',
			);
		}
		body.avatar_url = url;
	} else if (avatar === 'fetch') {
		body.fetch_avatar = true;
	}

	const variables = readVariables(this, itemIndex);
	const chunks = variables ? chunkVariables(variables) : [];
	if (chunks.length) body.variables = chunks[0];

	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const key =
		customKey(this, itemIndex, options.idempotencyKey) ??
		derivedKey(this, itemIndex, {
			protection: options.repeatProtection,
			purpose: 'customer-upsert',
			path: paths.customers(),
			body,
		});
	const { body: customer, headers } = await apiRequest<IDataObject>(this, {
		method: 'POST',
		path: paths.customers(),
		body,
		idempotencyKey: key,
		scope: 'customers:write',
		itemIndex,
	});
	// Variables beyond the first 50 follow in PATCH calls of at most 50, in order, also on a repeat:
	// they set the same values again, and finish what a first run that failed among them left.
	await patchVariables(
		this,
		paths.customer(String(customer.id), '/variables'),
		chunks.slice(1),
		itemIndex,
	);
	if (chunks.length > 1) customer.variables_written = Object.keys(variables ?? {}).length;
	const replayed = isReplayed(headers);
	const result = replayed ? 'repeated' : customer.created === true ? 'created' : 'updated';
	// First in the output (where a builder looks), and ours whatever the answer holds.
	const output: IDataObject = {
		result,
		...customer,
		...repeatFields(this, replayed, UPSERT_WORDS),
	};
	output.result = result;
	return [output];
}
