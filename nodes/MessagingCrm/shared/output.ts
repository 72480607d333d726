/**
 * Output: Simplified, Raw or Selected Fields, for the answers of more than 10 fields (a promo pool,
 * a merge report), as n8n's UX guidelines ask of a node that is also an AI Agent's tool: fewer
 * fields for a workflow's data and a model's context. Raw is the default, so a saved workflow keeps
 * the answer it had.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../helpers/validate';

/** An answer's fields: all of them, its ten most used (in that order), and its identifier. */
export interface OutputShape {
	/** What the answer is, for the descriptions ("pool"). */
	noun: string;
	id: string;
	simplified: readonly string[];
	all: readonly string[];
}

export const POOL_OUTPUT: OutputShape = {
	noun: 'pool',
	id: 'id',
	simplified: [
		'id',
		'title',
		'remaining',
		'total',
		'issued',
		'is_enabled',
		'low_threshold',
		'exhausted_requests',
		'agent_id',
		'description',
	],
	all: [
		'id',
		'agent_id',
		'title',
		'description',
		'is_enabled',
		'total',
		'issued',
		'remaining',
		'low_threshold',
		'low_alert_sent_at',
		'empty_alert_sent_at',
		'exhausted_requests',
		'code_word_titles',
		'created_at',
	],
};

export const MERGE_OUTPUT: OutputShape = {
	noun: 'merge report',
	id: 'winner_id',
	simplified: [
		'winner_id',
		'donor_id',
		'already_merged',
		'messengers_moved',
		'conversations_moved',
		'messages_moved',
		'deals_moved',
		'variables_moved',
		'promo_codes_moved',
		'warnings',
	],
	all: [
		'winner_id',
		'donor_id',
		'already_merged',
		'messengers_moved',
		'conversations_moved',
		'conversations_archived',
		'conversations_dropped',
		'messages_moved',
		'deals_moved',
		'deals_closed_as_duplicate',
		'variables_moved',
		'promo_codes_moved',
		'notes_moved',
		'warnings',
	],
};

/** The Output dropdown and, for Selected Fields, the fields to keep. */
export function outputFields(shape: OutputShape): INodeProperties[] {
	return [
		{
			displayName: 'Output',
			name: 'output',
			type: 'options',
			default: 'raw',
			options: [
				{
					name: 'Raw',
					value: 'raw',
					description: `Every field of the ${shape.noun}, as the API returns it`,
				},
				{
					name: 'Selected Fields',
					value: 'fields',
					description: `Only the fields picked below, always with ${shape.id}`,
				},
				{
					name: 'Simplified',
					value: 'simplified',
					description: `The ${shape.simplified.length} most used fields: ${shape.simplified.join(', ')}`,
				},
			],
		},
		{
			displayName: 'Fields',
			name: 'outputFields',
			type: 'multiOptions',
			default: [],
			displayOptions: { show: { output: ['fields'] } },
			description: `The fields to keep; ${shape.id} is always kept`,
			options: [...shape.all].sort().map((field) => ({ name: field, value: field })),
		},
	];
}

function pick(answer: IDataObject, fields: readonly string[]): IDataObject {
	const kept: IDataObject = {};
	for (const field of fields) if (field in answer) kept[field] = answer[field];
	return kept;
}

/** The answers as the item's Output asks, checked before any request. */
export function outputOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	shape: OutputShape,
): (answer: IDataObject) => IDataObject {
	const output = ctx.getNodeParameter('output', itemIndex, 'raw') as unknown;
	if (output === 'raw') return (answer) => answer;
	if (output === 'simplified') return (answer) => pick(answer, shape.simplified);
	if (output !== 'fields')
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			'Output',
			`must be Raw, Simplified or Selected Fields, got ${JSON.stringify(output)}`,
			'Pick Raw, Simplified or Selected Fields.',
		);
	const picked = ctx.getNodeParameter('outputFields', itemIndex, []) as unknown;
	const fields = Array.isArray(picked) ? picked.map(String) : [];
	const unknown = fields.filter((field) => !shape.all.includes(field));
	if (unknown.length)
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			'Fields',
			`names fields the ${shape.noun} does not have: ${unknown.join(', ')}`,
			`Pick fields from the list: ${shape.all.join(', ')}.`,
		);
	const kept = [shape.id, ...fields.filter((field) => field !== shape.id)];
	return (answer) => pick(answer, kept);
}
