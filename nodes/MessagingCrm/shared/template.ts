import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../helpers/validate';

/** The fields that pick and fill a business-chat template; `prefix` keeps follow-up fields apart. */
export function templateFields(prefix: string, show: IDataObject): INodeProperties[] {
	const displayOptions = { show } as INodeProperties['displayOptions'];
	return [
		{
			displayName: 'Template Name or ID',
			name: `${prefix}Name`,
			type: 'options',
			typeOptions: { loadOptionsMethod: 'getApprovedTemplates', loadOptionsDependsOn: ['agentId'] },
			default: '',
			required: true,
			displayOptions,
			description:
				'An APPROVED template of the agent. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		{
			displayName: 'Template Language',
			name: `${prefix}Language`,
			type: 'string',
			default: 'en',
			displayOptions,
			placeholder: 'e.g. en',
		},
		{
			displayName: 'Template Variables',
			name: `${prefix}Variables`,
			type: 'fixedCollection',
			typeOptions: { multipleValues: true, sortable: true },
			placeholder: 'Add Variable',
			default: {},
			displayOptions,
			description: 'The values of {{1}}, {{2}} … in order',
			builderHint: {
				propertyHint:
					"Positional values for the template's numbered placeholders {{1}}, {{2}} … in that order, one row each: { variable: [{ value: 'Jane' }, { value: 'A-17' }] } fills {{1}} with Jane and {{2}} with A-17. Not named fields and not a JSON object of names; give exactly as many rows as the template has placeholders (Template Get Many lists each template's variables). A value may be an expression such as expr('{{ $json.full_name }}').",
			},
			options: [
				{
					displayName: 'Variable',
					name: 'variable',
					values: [{ displayName: 'Value', name: 'value', type: 'string', default: '' }],
				},
			],
		},
		{
			displayName: 'Button Parameter',
			name: `${prefix}ButtonParam`,
			type: 'string',
			default: '',
			displayOptions,
			description: "The dynamic part of the template's button, if it has one",
		},
	];
}

/** The `TemplateSendIn` object for the fields of `prefix`. */
export function readTemplate(
	ctx: IExecuteFunctions,
	itemIndex: number,
	prefix: string,
	label: string,
): IDataObject {
	const name = String(ctx.getNodeParameter(`${prefix}Name`, itemIndex, '') ?? '').trim();
	if (!name)
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			`${label} Name`,
			'is empty',
			'Pick an approved template from the list.',
		);
	const lang = String(ctx.getNodeParameter(`${prefix}Language`, itemIndex, 'en') ?? '').trim();
	if (!lang)
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			`${label} Language`,
			'is empty',
			"Enter the template's language code, for example en.",
		);
	const rows =
		(
			ctx.getNodeParameter(`${prefix}Variables`, itemIndex, {}) as {
				variable?: Array<{ value?: unknown }>;
			}
		).variable ?? [];
	const template: IDataObject = {
		name,
		lang,
		variables: rows.map((r) => (r.value === undefined || r.value === null ? '' : r.value)),
	};
	const button = String(ctx.getNodeParameter(`${prefix}ButtonParam`, itemIndex, '') ?? '').trim();
	if (button) template.button_param = button;
	return template;
}
