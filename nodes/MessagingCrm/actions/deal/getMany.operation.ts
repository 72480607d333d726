import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { uuidParam } from '../../helpers/validate';
import { limitOf, pipelineSelect, returnAllOrLimit } from '../../shared/descriptions';
import { customerLocator, resolveCustomerId } from '../../shared/customer';
import type { OperationOption } from '../node.type';
import { isClosed } from '../../helpers/apiShapes';
import { customerDeals } from '../../shared/reads';

/** Its fields. */
export const description: INodeProperties[] = [
	customerLocator,
	pipelineSelect(
		{
			description:
				'Only deals in this pipeline; empty for all. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		{ empty: 'allPipelines' },
	),
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		default: 'all',
		options: [
			{ name: 'All', value: 'all' },
			{ name: 'Open', value: 'open', description: 'Neither won nor lost' },
			{ name: 'Won', value: 'won' },
			{ name: 'Lost', value: 'lost' },
		],
		description: 'Filters the answer here; the API lists closed deals too',
	},
	...returnAllOrLimit,
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Get Many',
	action: 'Get many deals',
	description: "List a customer's deals, closed ones included. Scope: customers:read.",
};

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const limit = limitOf(this, itemIndex);
	const pipelineId = uuidParam(
		this,
		this.getNodeParameter('pipelineId', itemIndex, ''),
		itemIndex,
		'Pipeline',
		false,
	);
	const status = this.getNodeParameter('status', itemIndex, 'all') as string;
	const customerId = await resolveCustomerId(this, itemIndex);
	const { deals: all } = await customerDeals(this, customerId, { pipelineId, itemIndex });
	const deals = all.filter((d) =>
		status === 'all' ? true : status === 'open' ? !isClosed(d.status) : d.status === status,
	);
	return deals.slice(0, limit).map((d) => ({ customer_id: customerId, ...d }));
}
