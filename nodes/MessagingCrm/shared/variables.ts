import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import { chunk } from '../helpers/lists';
import { invalidInput } from '../helpers/validate';
import type { ApiContext } from '../transport/request';
import { apiRequest } from '../transport/request';

export const VARIABLE_TYPES = [
	'text',
	'select',
	'number',
	'date',
	'datetime',
	'time',
	'phone',
	'email',
];

/**
 * The variables editor: rows of name, value, optional type and list mode, or a JSON object for
 * mapped data. `withNone` adds a "None" choice (for Create or Update, where variables are optional).
 */
const INPUT_MODES = [
	{ name: 'Using Fields Below', value: 'fields', description: 'One row per variable' },
	{
		name: 'Using JSON',
		value: 'json',
		description: 'An object from variable name to value, for mapped data',
	},
];

export function variablesEditor(withNone: boolean): INodeProperties[] {
	// Two literal defaults: the linter checks that a default is written out.
	const input: INodeProperties = withNone
		? {
				displayName: 'Variables',
				name: 'variablesInput',
				type: 'options',
				default: 'none',
				options: [{ name: 'None', value: 'none' }, ...INPUT_MODES],
			}
		: {
				displayName: 'Variables',
				name: 'variablesInput',
				type: 'options',
				default: 'fields',
				options: INPUT_MODES,
			};
	return [
		input,
		{
			displayName: 'Variables',
			name: 'variablesUi',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true, sortable: true },
			placeholder: 'Add Variable',
			default: {},
			displayOptions: { show: { variablesInput: ['fields'] } },
			options: [
				{
					displayName: 'Variable',
					name: 'variable',
					values: [
						{
							displayName: 'Change',
							name: 'change',
							type: 'options',
							default: 'set',
							options: [
								{ name: 'Set Value', value: 'set' },
								{
									name: 'Delete Variable',
									value: 'delete',
									description: 'Sends null: the variable is removed',
								},
								{
									name: 'Clear Value',
									value: 'clear',
									description: 'Sends {"value": null}: the value is emptied, the field stays',
								},
							],
						},
						{
							displayName: 'Mode',
							name: 'mode',
							type: 'options',
							default: 'replace',
							displayOptions: { show: { change: ['set'] } },
							options: [
								{ name: 'Replace', value: 'replace' },
								{
									name: 'Append to List',
									value: 'append',
									description: 'Adds elements not yet in the list, keeping order',
								},
								{ name: 'Remove From List', value: 'remove' },
							],
						},
						{
							displayName: 'Name',
							name: 'name',
							type: 'string',
							default: '',
							required: true,
							placeholder: 'e.g. plan',
						},
						{
							displayName: 'Type',
							name: 'type',
							type: 'options',
							default: '',
							displayOptions: { show: { change: ['set'] } },
							options: [
								{ name: 'Keep Existing or From Value', value: '' },
								...VARIABLE_TYPES.map((t) => ({
									name: t.charAt(0).toUpperCase() + t.slice(1),
									value: t,
								})),
							],
							description:
								"Leave as is to keep an existing variable's type; a new one takes it from the value (a number gives Number, text gives Text)",
						},
						{
							displayName: 'Value',
							name: 'value',
							type: 'string',
							default: '',
							displayOptions: { show: { change: ['set'] } },
							description:
								'Typed text stays text even when it looks like a number; map a number (or pick the Number type) to store a number. Dates may be written day.month.year.',
						},
						{
							displayName: 'Value Is a List',
							name: 'isList',
							type: 'boolean',
							default: false,
							displayOptions: { show: { change: ['set'] } },
							description:
								'Whether the value holds several elements separated by commas (or is a mapped array)',
						},
					],
				},
			],
		},
		{
			displayName: 'Variables (JSON)',
			name: 'variablesJson',
			type: 'json',
			default: '{\n  "plan": "pro",\n  "seats": 5\n}',
			displayOptions: { show: { variablesInput: ['json'] } },
			description:
				'Name to value. A value is text, a number, true/false, a list, null (deletes the variable) or {"value": …, "type": …, "mode": "replace|append|remove"}.',
		},
	];
}

type Row = {
	name?: string;
	change?: string;
	value?: unknown;
	isList?: boolean;
	type?: string;
	mode?: string;
};

function isScalar(value: unknown): boolean {
	return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function checkValue(ctx: IExecuteFunctions, itemIndex: number, name: string, value: unknown): void {
	const fail = (problem: string) =>
		invalidInput(
			ctx.getNode(),
			itemIndex,
			`Variables → ${name}`,
			problem,
			'A value is text, a number, true/false, a list of those, null, or {"value", "type", "mode"}.',
		);
	if (isScalar(value)) return;
	if (Array.isArray(value)) {
		if (!value.every(isScalar)) throw fail('is a list with nested objects or lists');
		return;
	}
	if (typeof value !== 'object') throw fail(`has an unsupported value of type ${typeof value}`);
	const { value: inner, type, mode, ...rest } = value as IDataObject;
	if (Object.keys(rest).length) throw fail(`has unknown field(s) ${Object.keys(rest).join(', ')}`);
	if (type !== undefined && !VARIABLE_TYPES.includes(String(type)))
		throw fail(`has type "${String(type)}"; use one of ${VARIABLE_TYPES.join(', ')}`);
	if (mode !== undefined && !['replace', 'append', 'remove'].includes(String(mode)))
		throw fail(`has mode "${String(mode)}"; use replace, append or remove`);
	if (!isScalar(inner) && !(Array.isArray(inner) && inner.every(isScalar)))
		throw fail('has a value that is not text, a number, true/false or a list of those');
}

/** The variables map of the request, in short form where only a value is given, full form otherwise. */
export function readVariables(ctx: IExecuteFunctions, itemIndex: number): IDataObject | undefined {
	const input = ctx.getNodeParameter('variablesInput', itemIndex, 'none') as string;
	if (input === 'none') return undefined;
	const out: IDataObject = {};
	if (input === 'json') {
		const raw = ctx.getNodeParameter('variablesJson', itemIndex, '{}') as unknown;
		let parsed: unknown = raw;
		if (typeof raw === 'string') {
			try {
				parsed = jsonParse(raw);
			} catch {
				throw invalidInput(
					ctx.getNode(),
					itemIndex,
					'Variables (JSON)',
					'is not valid JSON',
					'Write an object such as {"plan": "pro"}.',
				);
			}
		}
		if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
			throw invalidInput(
				ctx.getNode(),
				itemIndex,
				'Variables (JSON)',
				'must be an object from variable name to value',
				'Write an object such as {"plan": "pro"}.',
			);
		}
		for (const [name, value] of Object.entries(parsed as IDataObject)) {
			if (!name.trim())
				throw invalidInput(
					ctx.getNode(),
					itemIndex,
					'Variables (JSON)',
					'has an empty variable name',
					'Give every variable a name.',
				);
			checkValue(ctx, itemIndex, name, value);
			out[name] = value;
		}
		return out;
	}
	const rows = ((ctx.getNodeParameter('variablesUi', itemIndex, {}) as { variable?: Row[] })
		.variable ?? []) as Row[];
	rows.forEach((row, i) => {
		const name = typeof row.name === 'string' ? row.name.trim() : '';
		if (!name)
			throw invalidInput(
				ctx.getNode(),
				itemIndex,
				`Variables → row ${i + 1} → Name`,
				'is empty',
				'Give every variable a name, or remove the row.',
			);
		if (name in out)
			throw invalidInput(
				ctx.getNode(),
				itemIndex,
				`Variables → ${name}`,
				'appears twice',
				'Keep one row per variable.',
			);
		if (row.change === 'delete') {
			out[name] = null;
			return;
		}
		if (row.change === 'clear') {
			out[name] = { value: null };
			return;
		}
		let value = row.value ?? '';
		if (row.isList && !Array.isArray(value)) {
			value = String(value)
				.split(',')
				.map((v) => v.trim())
				.filter((v) => v !== '');
		}
		checkValue(ctx, itemIndex, name, value);
		const type = row.type ?? '';
		const mode = row.mode ?? 'replace';
		out[name] =
			type === '' && mode === 'replace'
				? (value as IDataObject[keyof IDataObject])
				: { value, ...(type ? { type } : {}), mode };
	});
	return out;
}

/** The API's variable list as one item: name to value (lists as arrays), with the full list kept. */
export function variablesItem(
	owner: Record<string, string>,
	variables: IDataObject[],
): IDataObject {
	const values: IDataObject = {};
	for (const v of variables)
		values[String(v.name)] = (v.is_list ? v.value_list : v.value) as IDataObject[keyof IDataObject];
	return { ...owner, values, variables };
}

/** The API takes at most this many variables in one call. */
export const MAX_VARIABLES_PER_CALL = 50;

/** Splits a variables map into requests of at most 50, in order. */
export function chunkVariables(variables: IDataObject): IDataObject[] {
	return chunk(Object.entries(variables), MAX_VARIABLES_PER_CALL).map(
		(entries) => Object.fromEntries(entries) as IDataObject,
	);
}

/**
 * PATCH …/variables once per chunk, in order (safe to repeat: the same PATCH gives the same state).
 * Returns the variables after the last call: the final state; empty when there was nothing to send.
 */
export async function patchVariables(
	ctx: ApiContext,
	path: string,
	chunks: IDataObject[],
	itemIndex?: number,
): Promise<IDataObject[]> {
	let latest: IDataObject[] = [];
	for (const chunk of chunks) {
		const { body } = await apiRequest<{ variables?: IDataObject[] }>(ctx, {
			method: 'PATCH',
			path,
			body: { variables: chunk },
			idempotent: true,
			scope: 'customers:write',
			itemIndex,
		});
		latest = body.variables ?? [];
	}
	return latest;
}
