import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { listPipelines } from '../../shared/reads';
import { agentSelect, limitOf, optionalAgentId, returnAllOrLimit } from '../../shared/descriptions';
import type { OperationOption } from '../node.type';

/** Its fields. */
export const description: INodeProperties[] = [
	agentSelect(
		{
			displayName: 'Agent Name or ID',
			description:
				'Only the pipelines of this agent. Leave empty for every agent. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		'allAgents',
	),
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'pipelines',
		options: [
			{
				name: 'One Item per Pipeline',
				value: 'pipelines',
				description: 'Each pipeline with its stages inside',
			},
			{
				name: 'One Item per Stage',
				value: 'stages',
				description: "Each stage with its pipeline's ID and name, handy for lookups by stage code",
			},
		],
	},
	...returnAllOrLimit,
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Get Many',
	action: 'Get many pipelines',
	description: 'List pipelines with their stages and stage codes. Scope: pipelines:read.',
};

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const limit = limitOf(this, itemIndex);
	const agentId = optionalAgentId(this, itemIndex);
	const output = this.getNodeParameter('output', itemIndex, 'pipelines') as string;
	const pipelines = await listPipelines(this, { agentId, itemIndex });
	if (output === 'stages') {
		const stages = pipelines.flatMap((p) =>
			(p.stages ?? []).map((s) => ({
				...s,
				pipeline_id: p.id,
				pipeline_name: p.name,
				agent_id: p.agent_id,
			})),
		);
		return stages.slice(0, limit) as unknown as IDataObject[];
	}
	return pipelines.slice(0, limit) as unknown as IDataObject[];
}
