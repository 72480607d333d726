import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiRequest } from '../../transport/request';
import { customerLocator, resolveCustomerId } from '../../shared/customer';
import type { OperationOption } from '../node.type';
import { paths } from '../../transport/paths';

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Get',
	action: 'Get a customer',
	description:
		'Get a customer by ID, phone, email or messenger identity, with their current stage, messengers and deal. Scope: customers:read.',
};

export const description: INodeProperties[] = [customerLocator];

/** Reads: several items at once. */
export const concurrency = 8;

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const id = await resolveCustomerId(this, itemIndex);
	const { body } = await apiRequest<IDataObject>(this, {
		method: 'GET',
		path: paths.customer(id),
		scope: 'customers:read',
		itemIndex,
	});
	return [body];
}
