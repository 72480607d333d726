import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { listAgents } from '../../shared/reads';
import { limitOf, returnAllOrLimit } from '../../shared/descriptions';
import type { OperationOption } from '../node.type';

/** Its fields. */
export const description: INodeProperties[] = [
	...returnAllOrLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Active Only',
				name: 'activeOnly',
				type: 'boolean',
				default: true,
				description: 'Whether to leave out agents that are switched off',
			},
			{
				displayName: 'Messenger',
				name: 'messenger',
				type: 'string',
				default: '',
				placeholder: 'e.g. telegram',
				description: 'Only agents with this messenger connected',
			},
		],
	},
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Get Many',
	action: 'Get many agents',
	description: "List the company's agents and their messengers. Scope: agents:read.",
};

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const limit = limitOf(this, itemIndex);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as {
		activeOnly?: boolean;
		messenger?: string;
	};
	let agents = await listAgents(this, itemIndex);
	if (filters.activeOnly) agents = agents.filter((a) => a.is_active);
	const messenger = filters.messenger?.trim().toLowerCase();
	if (messenger)
		agents = agents.filter((a) => (a.messengers ?? []).some((m) => m.toLowerCase() === messenger));
	return agents.slice(0, limit) as unknown as IDataObject[];
}
