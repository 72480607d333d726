import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { LIMITS, optionalText } from '../helpers/bounds';
import { itemError, uuidParam } from '../helpers/validate';
import { isClosed } from '../helpers/apiShapes';
import { customerDeals } from './reads';
import { optionalAgentId, pipelineSelect } from './descriptions';
import { customerLocator, resolveCustomerId } from './customer';

/**
 * Which deal: by ID, or the active deal of a customer in a pipeline (the API has one active deal
 * per customer per pipeline, so the pair names it).
 */
export const dealSelector: INodeProperties[] = [
	{
		displayName: 'Deal',
		name: 'dealBy',
		type: 'options',
		default: 'customer',
		options: [
			{ name: "Customer's Active Deal in a Pipeline", value: 'customer' },
			{ name: 'By Deal ID', value: 'id' },
		],
	},
	{
		displayName: 'Deal ID',
		name: 'dealId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 8c7d2f4e-1b3a-4c5d-9e8f-0a1b2c3d4e5f',
		displayOptions: { show: { dealBy: ['id'] } },
	},
	{ ...customerLocator, displayOptions: { show: { dealBy: ['customer'] } } },
	pipelineSelect({
		description:
			'The pipeline whose active deal is meant. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		required: true,
		displayOptions: { show: { dealBy: ['customer'] } },
	}),
];

export async function resolveDealId(ctx: IExecuteFunctions, itemIndex: number): Promise<string> {
	const by = ctx.getNodeParameter('dealBy', itemIndex, 'id') as string;
	if (by === 'id')
		return uuidParam(
			ctx,
			ctx.getNodeParameter('dealId', itemIndex, ''),
			itemIndex,
			'Deal ID',
			true,
		) as string;
	const pipelineId = uuidParam(
		ctx,
		ctx.getNodeParameter('pipelineId', itemIndex, ''),
		itemIndex,
		'Pipeline',
		true,
	) as string;
	const customerId = await resolveCustomerId(ctx, itemIndex);
	const { deals } = await customerDeals(ctx, customerId, { pipelineId, itemIndex });
	const active = deals.find((d) => !isClosed(d.status));
	if (!active || typeof active.id !== 'string') {
		throw itemError(
			ctx.getNode(),
			itemIndex,
			`the customer has no active deal in pipeline ${pipelineId}`,
			'Create one with Deal → Create, or pick the deal by its ID.',
			{
				code: 'not_found',
				details: { resource: 'deal', pipeline_id: pipelineId },
				caller: `the customer has no active deal in pipeline ${pipelineId}`,
				next: 'Nothing was changed: create a deal for the customer first, or name the deal by its ID.',
				when: "after reading the customer's deals, changing nothing",
			},
		);
	}
	return active.id;
}

/** Agent, pipeline and stage code as the fields agentId, pipelineId and stageCode give them, checked. */
export function placementOf(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	return {
		agent_id: optionalAgentId(ctx, itemIndex),
		pipeline_id: uuidParam(
			ctx,
			ctx.getNodeParameter('pipelineId', itemIndex, ''),
			itemIndex,
			'Pipeline',
			false,
		),
		stage_code: optionalText(
			ctx,
			itemIndex,
			'Stage',
			ctx.getNodeParameter('stageCode', itemIndex, ''),
			LIMITS.stageCode,
		),
	};
}

/** The Reason of a deal's close or stage move, checked (the API keeps up to 500 characters); undefined when empty. */
export function reasonOf(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	return optionalText(
		ctx,
		itemIndex,
		'Reason',
		ctx.getNodeParameter('reason', itemIndex, ''),
		LIMITS.closeReason,
	);
}
