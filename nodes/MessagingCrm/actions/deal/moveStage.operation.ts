import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { LIMITS, optionalText } from '../../helpers/bounds';
import { invalidInput, uuidParam } from '../../helpers/validate';
import { apiRequest } from '../../transport/request';
import { pipelineSelect, stageCodeSelect } from '../../shared/descriptions';
import { customerLocator, resolveCustomerId } from '../../shared/customer';
import { reasonOf } from '../../shared/deal';
import type { OperationOption } from '../node.type';
import { paths } from '../../transport/paths';

/** Its fields. */
export const description: INodeProperties[] = [
	customerLocator,
	{
		displayName: 'Stage By',
		name: 'stageBy',
		type: 'options',
		default: 'code',
		options: [
			{ name: 'Stage Code', value: 'code', description: 'The stable handle of a stage' },
			{ name: 'Stage ID', value: 'id' },
		],
	},
	pipelineSelect(
		{
			description:
				'The customer\'s pipeline, to list its stages (not sent). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		{ empty: 'noPipeline' },
	),
	stageCodeSelect({
		description:
			'The stage to move to. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		required: true,
		displayOptions: { show: { stageBy: ['code'] } },
	}),
	{
		displayName: 'Stage Name or ID',
		name: 'stageId',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getStageIds', loadOptionsDependsOn: ['pipelineId'] },
		default: '',
		required: true,
		displayOptions: { show: { stageBy: ['id'] } },
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
	},
	{
		displayName: 'Reason',
		name: 'reason',
		type: 'string',
		default: '',
		description: 'Why the deal moves, kept with the move',
	},
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Move to Stage',
	action: 'Move a deal to a stage',
	description:
		"Move the customer's deal to another stage of its pipeline, by stage code or ID; a stage of another pipeline is refused. Scope: customers:write.",
};

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const body: IDataObject = {
		reason: reasonOf(this, itemIndex),
	};
	if (this.getNodeParameter('stageBy', itemIndex, 'code') === 'id') {
		body.stage_id = uuidParam(
			this,
			this.getNodeParameter('stageId', itemIndex, ''),
			itemIndex,
			'Stage',
			true,
		);
	} else {
		const code = optionalText(
			this,
			itemIndex,
			'Stage',
			this.getNodeParameter('stageCode', itemIndex, ''),
			LIMITS.stageCode,
		);
		if (!code)
			throw invalidInput(
				this.getNode(),
				itemIndex,
				'Stage',
				'is empty',
				'Pick a stage, or map its stage code.',
			);
		body.stage_code = code;
	}
	const customerId = await resolveCustomerId(this, itemIndex);
	const { body: moved } = await apiRequest<IDataObject>(this, {
		method: 'POST',
		path: paths.customer(customerId, '/stage'),
		body,
		// Moving to the same stage again leaves the deal where the first try put it.
		idempotent: true,
		scope: 'customers:write',
		itemIndex,
	});
	return [{ customer_id: customerId, ...moved }];
}
