import type {
	IDataObject,
	IExecuteFunctions,
	INodeParameterResourceLocator,
	INodeProperties,
} from 'n8n-workflow';

import { uuidParam } from '../helpers/validate';
import { uuidModeFields } from './descriptions';

/** A pool in words: "VIP gifts: 2 left of 10, low at 3". */
export function poolLabel(pool: IDataObject): string {
	return `${String(pool.title)}: ${String(pool.remaining)} left of ${String(pool.total)}, low at ${String(pool.low_threshold)}`;
}

/** A promo pool: picked from the company's pools (title, remaining/total), or by ID. */
export const poolLocator: INodeProperties = {
	displayName: 'Promo Pool',
	name: 'poolId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a pool...',
			typeOptions: { searchListMethod: 'searchPools', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			...uuidModeFields('Not a pool ID (a UUID)'),
		},
	],
};

export function resolvePoolId(ctx: IExecuteFunctions, itemIndex: number): string {
	const locator = ctx.getNodeParameter('poolId', itemIndex) as
		INodeParameterResourceLocator | string;
	const value = typeof locator === 'object' && locator !== null ? locator.value : locator;
	return uuidParam(ctx, value, itemIndex, 'Promo Pool', true) as string;
}
