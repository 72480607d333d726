import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import { invalidInput } from '../../helpers/validate';
import { listTemplates } from '../../shared/reads';
import { paths } from '../../transport/paths';
import { apiRequest, failureError } from '../../transport/request';
import { agentSelect, optionalAgentId } from '../../shared/descriptions';
import type { OperationOption } from '../node.type';

/** Its fields. */
export const description: INodeProperties[] = [
	agentSelect(
		{
			description:
				'The agent with the business chat. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		'defaultAgent',
	),
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. order_update',
		description: 'Lowercase letters, digits and underscores',
	},
	{
		displayName: 'Category',
		name: 'category',
		type: 'options',
		default: 'UTILITY',
		options: [
			{ name: 'Authentication', value: 'AUTHENTICATION' },
			{ name: 'Marketing', value: 'MARKETING' },
			{ name: 'Utility', value: 'UTILITY' },
		],
	},
	{ displayName: 'Language', name: 'language', type: 'string', default: 'en', required: true },
	{
		displayName: 'Components',
		name: 'componentsInput',
		type: 'options',
		default: 'fields',
		options: [
			{
				name: 'Using Fields Below',
				value: 'fields',
				description: 'Header, body, footer and buttons',
			},
			{
				name: 'Using JSON',
				value: 'json',
				description: "The platform owner's component array as is",
			},
		],
	},
	{
		displayName: 'Header Text',
		name: 'headerText',
		type: 'string',
		default: '',
		displayOptions: { show: { componentsInput: ['fields'] } },
	},
	{
		displayName: 'Body Text',
		name: 'bodyText',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: 'e.g. Hi {{1}}, your order {{2}} has shipped.',
		description: 'Use {{1}}, {{2}} … for the variables filled in at send time',
		displayOptions: { show: { componentsInput: ['fields'] } },
	},
	{
		displayName: 'Footer Text',
		name: 'footerText',
		type: 'string',
		default: '',
		displayOptions: { show: { componentsInput: ['fields'] } },
	},
	{
		displayName: 'Buttons',
		name: 'buttonsUi',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Button',
		default: {},
		displayOptions: { show: { componentsInput: ['fields'] } },
		options: [
			{
				displayName: 'Button',
				name: 'button',
				values: [
					{
						displayName: 'Phone Number',
						name: 'phoneNumber',
						type: 'string',
						default: '',
						displayOptions: { show: { type: ['PHONE_NUMBER'] } },
					},
					{ displayName: 'Text', name: 'text', type: 'string', default: '' },
					{
						displayName: 'Type',
						name: 'type',
						type: 'options',
						default: 'QUICK_REPLY',
						options: [
							{ name: 'Phone Number', value: 'PHONE_NUMBER' },
							{ name: 'Quick Reply', value: 'QUICK_REPLY' },
							{ name: 'URL', value: 'URL' },
						],
					},
					{
						displayName: 'URL',
						name: 'url',
						type: 'string',
						default: '',
						displayOptions: { show: { type: ['URL'] } },
					},
				],
			},
		],
	},
	{
		displayName: 'Components (JSON)',
		name: 'componentsJson',
		type: 'json',
		default: '[\n  { "type": "BODY", "text": "Hi {{1}}" }\n]',
		displayOptions: { show: { componentsInput: ['json'] } },
	},
	{
		displayName: 'If the Template Exists',
		name: 'ifExists',
		type: 'options',
		default: 'returnExisting',
		options: [
			{
				name: 'Return the Existing Template',
				value: 'returnExisting',
				description:
					'The template of that name and language comes back as it is now (with its status) and created: false, so a retried workflow goes on. Reading it needs messages:template or agents:read.',
			},
			{
				name: 'Fail',
				value: 'fail',
				description: "The item fails with the API's validation error",
			},
		],
		description:
			'What to do when a template of this name and language already exists, for example on a retry of a run whose first attempt created it',
	},
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Create',
	action: 'Create a template',
	description:
		'Submit a business-chat template for moderation (it starts PENDING). Scope: templates:manage.',
};

function components(ctx: IExecuteFunctions, itemIndex: number): IDataObject[] {
	const node = ctx.getNode();
	if (ctx.getNodeParameter('componentsInput', itemIndex, 'fields') === 'json') {
		const raw = ctx.getNodeParameter('componentsJson', itemIndex, '[]') as unknown;
		let parsed: unknown = raw;
		if (typeof raw === 'string') {
			try {
				parsed = jsonParse(raw);
			} catch {
				throw invalidInput(
					node,
					itemIndex,
					'Components (JSON)',
					'is not valid JSON',
					'Write an array such as [{"type": "BODY", "text": "Hi {{1}}"}].',
				);
			}
		}
		if (
			!Array.isArray(parsed) ||
			parsed.length === 0 ||
			!parsed.every((c) => typeof c === 'object' && c !== null && !Array.isArray(c))
		) {
			throw invalidInput(
				node,
				itemIndex,
				'Components (JSON)',
				'must be a non-empty array of objects',
				'Write an array such as [{"type": "BODY", "text": "Hi {{1}}"}].',
			);
		}
		return parsed as IDataObject[];
	}
	const text = (name: string) => String(ctx.getNodeParameter(name, itemIndex, '') ?? '').trim();
	const body = text('bodyText');
	if (!body)
		throw invalidInput(node, itemIndex, 'Body Text', 'is empty', "Write the template's body.");
	const out: IDataObject[] = [];
	if (text('headerText')) out.push({ type: 'HEADER', format: 'TEXT', text: text('headerText') });
	out.push({ type: 'BODY', text: body });
	if (text('footerText')) out.push({ type: 'FOOTER', text: text('footerText') });
	const buttons = (
		(ctx.getNodeParameter('buttonsUi', itemIndex, {}) as { button?: IDataObject[] }).button ?? []
	).map((b, i) => {
		if (!String(b.text ?? '').trim())
			throw invalidInput(
				node,
				itemIndex,
				`Buttons → row ${i + 1} → Text`,
				'is empty',
				'Give every button a label.',
			);
		const button: IDataObject = { type: b.type, text: b.text };
		if (b.type === 'URL') button.url = b.url;
		if (b.type === 'PHONE_NUMBER') button.phone_number = b.phoneNumber;
		return button;
	});
	if (buttons.length) out.push({ type: 'BUTTONS', buttons });
	return out;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const agentId = optionalAgentId(this, itemIndex);
	const name = String(this.getNodeParameter('name', itemIndex, '') ?? '').trim();
	if (!/^[a-z0-9_]+$/.test(name)) {
		throw invalidInput(
			node,
			itemIndex,
			'Name',
			`must be lowercase letters, digits and underscores, got ${JSON.stringify(name.slice(0, 60))}`,
			'For example order_update.',
		);
	}
	const language = String(this.getNodeParameter('language', itemIndex, '') ?? '').trim();
	if (!language)
		throw invalidInput(
			node,
			itemIndex,
			'Language',
			'is empty',
			'Enter a language code such as en or en_US.',
		);
	const ifExists = this.getNodeParameter('ifExists', itemIndex, 'returnExisting') as string;
	const answer = await apiRequest<unknown>(this, {
		method: 'POST',
		path: paths.templates(),
		query: { agent_id: agentId },
		body: {
			name,
			category: this.getNodeParameter('category', itemIndex, 'UTILITY') as string,
			language,
			components: components(this, itemIndex),
		},
		scope: 'templates:manage',
		// A 422 on the name may mean "exists": the list says whether it does.
		acceptStatus: ifExists === 'returnExisting' ? [422] : [],
		itemIndex,
	});
	if (answer.failure) {
		const existing = await listTemplates(this, { agentId, itemIndex }).then(
			(templates) => templates.find((t) => t.name === name && t.language === language),
			() => undefined,
		);
		if (!existing) throw failureError(this, answer.failure, 'templates:manage', itemIndex);
		return [{ ...existing, created: false }];
	}
	const { body } = answer;
	// The answer's fields are not specified by the API: it is passed through as it comes.
	return [
		typeof body === 'object' && body !== null && !Array.isArray(body)
			? { ...(body as IDataObject), created: true }
			: { response: body as IDataObject[keyof IDataObject], created: true },
	];
}
