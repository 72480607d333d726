import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { customerLocator, resolveCustomerId } from '../../shared/customer';
import type { OperationOption } from '../node.type';
import { customerMessengers } from '../../shared/reads';

/** Its fields. */
export const description: INodeProperties[] = [
	customerLocator,
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'each',
		options: [
			{ name: 'One Item per Messenger', value: 'each' },
			{ name: 'One Item With All Messengers', value: 'all' },
		],
	},
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Get Messengers',
	action: 'Get the messengers of a customer',
	description:
		"List the customer's messengers, each with can_send_freeform (whether free-form text is allowed right now) and when its 24-hour window closes. Scope: customers:read.",
};

/** Reads: several items at once. */
export const concurrency = 8;

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const id = await resolveCustomerId(this, itemIndex);
	const messengers = await customerMessengers(this, id, itemIndex);
	if (this.getNodeParameter('output', itemIndex, 'each') === 'all')
		return [{ customer_id: id, messengers }];
	return messengers.map((m) => ({ customer_id: id, ...m }));
}
