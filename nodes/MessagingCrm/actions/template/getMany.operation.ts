import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { listTemplates } from '../../shared/reads';
import { agentSelect, limitOf, optionalAgentId, returnAllOrLimit } from '../../shared/descriptions';
import type { OperationOption } from '../node.type';

/** Its fields. */
export const description: INodeProperties[] = [
	agentSelect(
		{
			description:
				'Only this agent\'s templates; empty for all. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		'allAgents',
	),
	{
		displayName: 'Status',
		name: 'templateStatus',
		type: 'multiOptions',
		default: [],
		options: [
			{ name: 'Approved', value: 'APPROVED' },
			{ name: 'Pending', value: 'PENDING' },
			{ name: 'Rejected', value: 'REJECTED' },
		],
		description: 'Keep only these statuses (applied here; empty keeps all)',
	},
	...returnAllOrLimit,
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Get Many',
	action: 'Get many templates',
	description:
		'List business-chat templates with their status. Scope: messages:template or agents:read.',
};

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const limit = limitOf(this, itemIndex);
	const agentId = optionalAgentId(this, itemIndex);
	const statuses = this.getNodeParameter('templateStatus', itemIndex, []) as string[];
	const templates = (await listTemplates(this, { agentId, itemIndex })).filter(
		(t) => statuses.length === 0 || statuses.includes(String(t.status)),
	);
	return templates.slice(0, limit);
}
