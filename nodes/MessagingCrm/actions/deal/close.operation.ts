import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../../helpers/validate';
import { apiRequest } from '../../transport/request';
import { dealSelector, reasonOf, resolveDealId } from '../../shared/deal';
import type { OperationOption } from '../node.type';
import { paths } from '../../transport/paths';

/** Its fields. */
export const description: INodeProperties[] = [
	...dealSelector,
	{
		displayName: 'Outcome',
		name: 'closeStatus',
		type: 'options',
		default: 'won',
		options: [
			{ name: 'Won', value: 'won' },
			{ name: 'Lost', value: 'lost' },
		],
	},
	{
		displayName: 'Reason',
		name: 'reason',
		type: 'string',
		default: '',
		description: "Stored as the deal's closed reason, up to 500 characters",
	},
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Close',
	action: 'Close a deal',
	description: 'Close a deal as won or lost. Scope: customers:write.',
};

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const body: IDataObject = {
		status: this.getNodeParameter('closeStatus', itemIndex, 'won') as string,
		reason: reasonOf(this, itemIndex),
	};
	if (body.status !== 'won' && body.status !== 'lost') {
		throw invalidInput(
			this.getNode(),
			itemIndex,
			'Outcome',
			`must be won or lost, got ${JSON.stringify(body.status)}`,
			'Pick Won or Lost.',
		);
	}
	const dealId = await resolveDealId(this, itemIndex);
	const { body: deal } = await apiRequest<IDataObject>(this, {
		method: 'POST',
		path: paths.deal(dealId, '/close'),
		body,
		scope: 'customers:write',
		itemIndex,
	});
	return [deal];
}
