import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { outputFields, outputOf, POOL_OUTPUT } from '../../shared/output';
import { listPools } from '../../shared/reads';
import { agentSelect, limitOf, optionalAgentId, returnAllOrLimit } from '../../shared/descriptions';
import type { OperationOption } from '../node.type';

/** Its fields. */
export const description: INodeProperties[] = [
	agentSelect(
		{
			description:
				'Only this agent\'s pools; empty for all. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		'allAgents',
	),
	...returnAllOrLimit,
	...outputFields(POOL_OUTPUT),
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Get Many',
	action: 'Get many promo pools',
	description: "List the company's promo pools. Scope: promo:read.",
};

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const limit = limitOf(this, itemIndex);
	const agentId = optionalAgentId(this, itemIndex);
	const shaped = outputOf(this, itemIndex, POOL_OUTPUT);
	const { pools } = await listPools(this, { agentId, itemIndex });
	return pools.slice(0, limit).map(shaped);
}
