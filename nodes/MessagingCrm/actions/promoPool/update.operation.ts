import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../../helpers/validate';
import { apiRequest } from '../../transport/request';
import { outputFields, outputOf, POOL_OUTPUT } from '../../shared/output';
import { poolLocator, resolvePoolId } from '../../shared/pool';
import type { OperationOption } from '../node.type';
import { paths } from '../../transport/paths';

/** Its fields. */
export const description: INodeProperties[] = [
	poolLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Only the fields added here are sent; counters cannot be set',
		options: [
			{ displayName: 'Description', name: 'description', type: 'string', default: '' },
			{
				displayName: 'Enabled',
				name: 'isEnabled',
				type: 'boolean',
				default: true,
				description:
					'Whether the pool issues codes; off stops issuing at once and the agent offers the exhausted instruction',
			},
			{
				displayName: 'Exhausted Instruction',
				name: 'exhaustedInstruction',
				type: 'string',
				typeOptions: { rows: 3 },
				default: '',
				description:
					"What the agent offers when codes run out, as an instruction in meaning; delivered in the customer's language",
			},
			{
				displayName: 'Low Threshold Minimum',
				name: 'lowThresholdMin',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 5,
				description: 'The low-stock alert never fires later than at this many codes left',
			},
			{
				displayName: 'Low Threshold Percent',
				name: 'lowThresholdPct',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 100 },
				default: 10,
				description: 'Low stock when the remaining codes fall to this share of the total',
			},
			{
				displayName: 'Strict Follow Gate',
				name: 'strictFollowGate',
				type: 'boolean',
				default: false,
				description:
					"Whether the pool's strict follow gate is on (the API's strict_follow_gate setting, as the CRM's pool settings show it)",
			},
			{ displayName: 'Title', name: 'title', type: 'string', default: '' },
		],
	},
	...outputFields(POOL_OUTPUT),
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Update',
	action: 'Update a promo pool',
	description: "Change a pool's settings; only the fields set are sent. Scope: promo:write.",
};

const FIELDS: Record<
	string,
	[api: string, kind: 'boolean' | 'string' | 'percent' | 'count', label: string]
> = {
	isEnabled: ['is_enabled', 'boolean', 'Enabled'],
	title: ['title', 'string', 'Title'],
	description: ['description', 'string', 'Description'],
	lowThresholdPct: ['low_threshold_pct', 'percent', 'Low Threshold Percent'],
	lowThresholdMin: ['low_threshold_min', 'count', 'Low Threshold Minimum'],
	strictFollowGate: ['strict_follow_gate', 'boolean', 'Strict Follow Gate'],
	exhaustedInstruction: ['exhausted_instruction', 'string', 'Exhausted Instruction'],
};

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const poolId = resolvePoolId(this, itemIndex);
	const shaped = outputOf(this, itemIndex, POOL_OUTPUT);
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = {};
	for (const [name, value] of Object.entries(fields)) {
		const spec = FIELDS[name];
		if (!spec) continue;
		const [api, kind, label] = spec;
		if (kind === 'boolean' && typeof value !== 'boolean')
			throw invalidInput(
				node,
				itemIndex,
				label,
				'must be true or false',
				`Set "${label}" on or off.`,
			);
		if (kind === 'string' && typeof value !== 'string')
			throw invalidInput(node, itemIndex, label, 'must be text', `Map text into "${label}".`);
		if (kind === 'string' && api === 'title' && !(value as string).trim())
			throw invalidInput(
				node,
				itemIndex,
				label,
				'is empty',
				'Give the pool a title, or remove the field.',
			);
		if (
			(kind === 'percent' || kind === 'count') &&
			(!Number.isInteger(value) ||
				(value as number) < 0 ||
				(kind === 'percent' && (value as number) > 100))
		) {
			throw invalidInput(
				node,
				itemIndex,
				label,
				`must be a whole number ${kind === 'percent' ? 'from 0 to 100' : 'of at least 0'}, got ${JSON.stringify(value)}`,
				`Correct "${label}".`,
			);
		}
		body[api] = value;
	}
	if (Object.keys(body).length === 0)
		throw invalidInput(
			node,
			itemIndex,
			'Update Fields',
			'is empty',
			'Add at least one field to change.',
		);
	const { body: pool } = await apiRequest<IDataObject>(this, {
		method: 'PATCH',
		path: paths.pool(poolId),
		body,
		idempotent: true,
		scope: 'promo:write',
		itemIndex,
	});
	return [shaped(pool)];
}
