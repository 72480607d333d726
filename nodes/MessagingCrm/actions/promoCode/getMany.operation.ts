import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { CODES_PAGE_MAX } from '../../helpers/bounds';
import { paths } from '../../transport/paths';
import { pagesByOffset } from '../../transport/paging';
import { limitOf, returnAllOrLimit } from '../../shared/descriptions';
import { poolLocator, resolvePoolId } from '../../shared/pool';
import type { OperationOption } from '../node.type';

/** Its fields. */
export const description: INodeProperties[] = [
	poolLocator,
	...returnAllOrLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Issued Only',
				name: 'issuedOnly',
				type: 'boolean',
				default: true,
				description: 'Whether to return only codes handed out to customers',
			},
			{
				displayName: 'Search',
				name: 'search',
				type: 'string',
				default: '',
				description: 'Part of a code',
			},
		],
	},
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Get Many',
	action: 'Get many promo codes',
	description: "List a pool's codes in queue order. Scope: promo:read.",
};

/** Pages of 500 by offset until a short page (or the limit), each code an item as it arrives. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const poolId = resolvePoolId(this, itemIndex);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as {
		issuedOnly?: boolean;
		search?: string;
	};
	const limit = limitOf(this, itemIndex);
	const codes = await pagesByOffset(
		this,
		{
			path: paths.pool(poolId, '/codes'),
			query: {
				issued_only: filters.issuedOnly ? true : undefined,
				search: filters.search?.trim() || undefined,
			},
			scope: 'promo:read',
			itemIndex,
		},
		{ pageSize: CODES_PAGE_MAX, limit, items: (body) => body.codes as IDataObject[] | undefined },
	);
	return codes.map((code) => ({ pool_id: poolId, ...code }));
}
