import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { LIMITS, optionalText } from '../../helpers/bounds';
import { apiRequest, failureError } from '../../transport/request';
import { agentSelect, pipelineSelect, stageCodeSelect } from '../../shared/descriptions';
import { customerLocator, resolveCustomerId } from '../../shared/customer';
import { placementOf } from '../../shared/deal';
import type { OperationOption } from '../node.type';
import { paths } from '../../transport/paths';
import { isClosed } from '../../helpers/apiShapes';
import { customerDeals } from '../../shared/reads';

/** Its fields. */
export const description: INodeProperties[] = [
	customerLocator,
	{
		...agentSelect({}, 'defaultAgent'),
		description:
			'Optional: the agent whose default pipeline is used when no pipeline is picked. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	pipelineSelect(
		{
			description:
				'Empty: the agent\'s (or the company\'s) default pipeline. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		{ ofAgent: true, empty: 'defaultPipeline' },
	),
	stageCodeSelect(
		{
			description:
				'Empty: the first stage. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		{ firstIfEmpty: true },
	),
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		default: '',
		description: 'Up to 255 characters',
	},
	{
		displayName: 'If an Active Deal Exists',
		name: 'ifExists',
		type: 'options',
		default: 'returnExisting',
		options: [
			{
				name: 'Return the Existing Deal',
				value: 'returnExisting',
				description:
					"The customer's active deal in that pipeline comes back with created: false, so a retried or re-run workflow goes on",
			},
			{
				name: 'Fail',
				value: 'fail',
				description: 'The item fails with conflict (409), naming the pipeline',
			},
		],
		description:
			'The API allows one active deal per customer per pipeline. What to do when there is one already, for example on a retry of a run whose first attempt created it.',
	},
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Create',
	action: 'Create a deal',
	description: 'Create a deal at a pipeline and stage. Scope: customers:write.',
};

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const body: IDataObject = {
		...placementOf(this, itemIndex),
		title: optionalText(
			this,
			itemIndex,
			'Title',
			this.getNodeParameter('title', itemIndex, ''),
			LIMITS.dealTitle,
		),
	};
	const ifExists = this.getNodeParameter('ifExists', itemIndex, 'returnExisting') as string;
	const customerId = await resolveCustomerId(this, itemIndex);
	const answer = await apiRequest<IDataObject>(this, {
		method: 'POST',
		path: paths.customer(customerId, '/deals'),
		body,
		scope: 'customers:write',
		// An active deal in that pipeline: returned instead, when asked (the default).
		acceptStatus: ifExists === 'returnExisting' ? [409] : [],
		itemIndex,
	});
	const { failure } = answer;
	if (!failure) return [{ customer_id: customerId, ...answer.body, created: true }];
	const conflict = failureError(this, failure, 'customers:write', itemIndex);
	// The conflict names the pipeline (and the deal, where the API says so); else the one asked for.
	const pipelineId = String(failure.details.pipeline_id ?? body.pipeline_id ?? '') || undefined;
	if (!pipelineId && failure.details.deal_id === undefined) throw conflict;
	const { deals } = await customerDeals(this, customerId, { pipelineId, itemIndex });
	const existing = deals.find(
		(d) =>
			!isClosed(d.status) &&
			(failure.details.deal_id === undefined || d.id === failure.details.deal_id),
	);
	if (!existing) throw conflict;
	return [{ customer_id: customerId, ...existing, created: false }];
}
