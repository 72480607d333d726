import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { codesFromCsv, codesFromText, codesFromValue, looksLikeText } from '../helpers/codeLists';
import { invalidInput } from '../helpers/validate';

/** Where the codes of an upload or a revoke come from. */
export function codesInput(verb: string): INodeProperties[] {
	return [
		{
			displayName: 'Codes From',
			name: 'codesFrom',
			type: 'options',
			default: 'list',
			options: [
				{
					name: 'List',
					value: 'list',
					description: 'Codes typed or mapped into one field, per input item',
				},
				{
					name: 'Field of Every Input Item',
					value: 'field',
					description: `All input items together: one ${verb}, not one per item`,
				},
				{
					name: 'Binary File',
					value: 'binary',
					description: 'A CSV column or one code per line, per input item',
				},
			],
		},
		{
			displayName: 'Codes',
			name: 'codes',
			type: 'string',
			typeOptions: { rows: 6 },
			default: '',
			required: true,
			placeholder: 'e.g. SPRING-001\nSPRING-002',
			description: 'One code per line (commas also separate), or map a list',
			displayOptions: { show: { codesFrom: ['list'] } },
		},
		{
			displayName: 'Field Name',
			name: 'codeField',
			type: 'string',
			default: 'code',
			required: true,
			description:
				'The field of each input item that holds a code (or a list of codes); dots reach nested fields',
			displayOptions: { show: { codesFrom: ['field'] } },
		},
		{
			displayName: 'Input Binary Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			displayOptions: { show: { codesFrom: ['binary'] } },
		},
		{
			displayName: 'File Format',
			name: 'fileFormat',
			type: 'options',
			default: 'csv',
			options: [
				{ name: 'CSV', value: 'csv' },
				{ name: 'One Code per Line', value: 'lines' },
			],
			displayOptions: { show: { codesFrom: ['binary'] } },
		},
		{
			displayName: 'Header Row',
			name: 'headerRow',
			type: 'boolean',
			default: true,
			description: 'Whether the first row holds column names',
			displayOptions: { show: { codesFrom: ['binary'], fileFormat: ['csv'] } },
		},
		{
			displayName: 'Column',
			name: 'csvColumn',
			type: 'string',
			default: 'code',
			required: true,
			description: 'The column name (with a header row) or its position counted from 1',
			displayOptions: { show: { codesFrom: ['binary'], fileFormat: ['csv'] } },
		},
		{
			displayName: 'Delimiter',
			name: 'csvDelimiter',
			type: 'string',
			default: '',
			placeholder: 'e.g. ;',
			description: 'Leave empty to detect comma, semicolon, tab or pipe',
			displayOptions: { show: { codesFrom: ['binary'], fileFormat: ['csv'] } },
		},
	];
}

function fieldValue(json: IDataObject, path: string): unknown {
	return path
		.split('.')
		.reduce<unknown>(
			(v, key) => (v && typeof v === 'object' ? (v as IDataObject)[key] : undefined),
			json,
		);
}

/** The codes of one input item for the "List" and "Binary File" modes, cleaned, before any request. */
export async function codesOfItem(ctx: IExecuteFunctions, itemIndex: number): Promise<string[]> {
	const node = ctx.getNode();
	const from = ctx.getNodeParameter('codesFrom', itemIndex, 'list') as string;
	let codes: string[] | null;
	if (from === 'field') {
		const path = String(ctx.getNodeParameter('codeField', itemIndex, '') ?? '').trim();
		if (!path)
			throw invalidInput(
				node,
				itemIndex,
				'Field Name',
				'is empty',
				'Enter the name of the field that holds the code.',
			);
		const value = fieldValue(ctx.getInputData()[itemIndex]?.json ?? {}, path);
		if (value === undefined || value === null) {
			throw invalidInput(
				node,
				itemIndex,
				'Field Name',
				`"${path}" is not in this item`,
				'Check the field name against the input data.',
			);
		}
		codes = codesFromValue(value);
		if (codes === null)
			throw invalidInput(
				node,
				itemIndex,
				path,
				'holds neither a code nor a list of codes',
				'Map text, a number or a list of those.',
			);
	} else if (from === 'binary') {
		const property = String(
			ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data') ?? '',
		).trim();
		const item = ctx.getInputData()[itemIndex];
		if (!property || !item?.binary?.[property]) {
			const present = Object.keys(item?.binary ?? {});
			throw invalidInput(
				node,
				itemIndex,
				'Input Binary Field',
				`"${property}" is not in this item`,
				present.length
					? `The item has binary fields: ${present.join(', ')}.`
					: 'The item has no binary data: read the file first (e.g. with Read/Write Files from Disk or an HTTP Request).',
			);
		}
		const buffer = await ctx.helpers.getBinaryDataBuffer(itemIndex, property);
		if (!looksLikeText(buffer)) {
			throw invalidInput(
				node,
				itemIndex,
				'Input Binary Field',
				`"${property}" is not a text file`,
				'Give a CSV or a text file with one code per line, in UTF-8.',
			);
		}
		const text = buffer.toString('utf8');
		if (ctx.getNodeParameter('fileFormat', itemIndex, 'csv') === 'lines')
			codes = codesFromText(text);
		else {
			const header = ctx.getNodeParameter('headerRow', itemIndex, true) as boolean;
			const columnRaw = String(ctx.getNodeParameter('csvColumn', itemIndex, '') ?? '').trim();
			const delimiter = String(ctx.getNodeParameter('csvDelimiter', itemIndex, '') ?? '');
			const index = Number(columnRaw);
			if (!header && (!Number.isInteger(index) || index < 1)) {
				throw invalidInput(
					node,
					itemIndex,
					'Column',
					`must be a position counted from 1 when there is no header row, got ${JSON.stringify(columnRaw)}`,
					'Enter 1 for the first column.',
				);
			}
			const result = codesFromCsv(
				text,
				header ? { header: true, column: columnRaw } : { header: false, index },
				delimiter || undefined,
			);
			if ('missing' in result) {
				throw invalidInput(
					node,
					itemIndex,
					'Column',
					`"${columnRaw}" does not exist in the file`,
					`The columns are: ${result.missing.join(', ') || '(none)'}.`,
				);
			}
			codes = result.codes;
		}
	} else {
		codes = codesFromValue(ctx.getNodeParameter('codes', itemIndex, ''));
		if (codes === null)
			throw invalidInput(
				node,
				itemIndex,
				'Codes',
				'holds neither text nor a list of codes',
				'Type one code per line, or map a list.',
			);
	}
	return codes;
}
