import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiRequest } from '../../transport/request';
import { outputFields, outputOf, POOL_OUTPUT } from '../../shared/output';
import { poolLocator, resolvePoolId } from '../../shared/pool';
import type { OperationOption } from '../node.type';
import { paths } from '../../transport/paths';

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Get',
	action: 'Get a promo pool',
	description: 'Get a pool with its counters and threshold. Scope: promo:read.',
};

export const description: INodeProperties[] = [poolLocator, ...outputFields(POOL_OUTPUT)];

/** Reads: several items at once. */
export const concurrency = 8;

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const poolId = resolvePoolId(this, itemIndex);
	const shaped = outputOf(this, itemIndex, POOL_OUTPUT);
	const { body } = await apiRequest<IDataObject>(this, {
		method: 'GET',
		path: paths.pool(poolId),
		scope: 'promo:read',
		itemIndex,
	});
	return [shaped(body)];
}
