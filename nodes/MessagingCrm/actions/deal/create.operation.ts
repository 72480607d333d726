import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { LIMITS, optionalText } from '../../helpers/bounds';
import { uuidParam } from '../../helpers/validate';
import { apiRequest } from '../../transport/request';
import { agentSelect, pipelineSelect, stageCodeSelect } from '../common/descriptions';
import { customerLocator, resolveCustomerId } from '../common/customer';
import type { OperationOption } from '../node.type';
import { paths } from '../../transport/endpoints';

const properties: INodeProperties[] = [
	customerLocator,
	{
		...agentSelect(),
		description:
			'Optional: the agent whose default pipeline is used when no pipeline is picked. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	pipelineSelect({
		description:
			'Empty: the agent\'s (or the company\'s) default pipeline. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	}),
	stageCodeSelect({
		description:
			'Empty: the first stage. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	}),
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		default: '',
		description: 'Up to 255 characters',
	},
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Create',
	value: 'create',
	action: 'Create a deal',
	description: 'Create a deal at a pipeline and stage. Scope: customers:write.',
};

export const description = updateDisplayOptions(
	{ show: { resource: ['deal'], operation: ['create'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const body: IDataObject = {
		agent_id: uuidParam(
			this,
			this.getNodeParameter('agentId', itemIndex, ''),
			itemIndex,
			'Agent',
			false,
		),
		pipeline_id: uuidParam(
			this,
			this.getNodeParameter('pipelineId', itemIndex, ''),
			itemIndex,
			'Pipeline',
			false,
		),
		stage_code: optionalText(
			this,
			itemIndex,
			'Stage',
			this.getNodeParameter('stageCode', itemIndex, ''),
			LIMITS.stageCode,
		),
		title: optionalText(
			this,
			itemIndex,
			'Title',
			this.getNodeParameter('title', itemIndex, ''),
			LIMITS.dealTitle,
		),
	};
	const customerId = await resolveCustomerId(this, itemIndex);
	const { body: deal } = await apiRequest<IDataObject>(this, {
		method: 'POST',
		path: paths.customer(customerId, '/deals'),
		body,
		scope: 'customers:write',
		itemIndex,
	});
	return [{ customer_id: customerId, ...deal }];
}
