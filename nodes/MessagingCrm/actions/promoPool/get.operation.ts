import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiRequest } from '../../transport/request';
import { poolLocator, resolvePoolId } from '../../shared/pool';
import type { OperationOption } from '../node.type';
import { paths } from '../../transport/paths';

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Get',
	action: 'Get a promo pool',
	description: 'Get a pool with its counters and threshold. Scope: promo:read.',
};

export const description: INodeProperties[] = [poolLocator];

/** Reads: several items at once. */
export const concurrency = 8;

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const { body } = await apiRequest<IDataObject>(this, {
		method: 'GET',
		path: paths.pool(resolvePoolId(this, itemIndex)),
		scope: 'promo:read',
		itemIndex,
	});
	return [body];
}
