import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { customerLocator, resolveCustomerId } from '../../shared/customer';
import { dealSelector, resolveDealId } from '../../shared/deal';
import { paths } from '../../transport/paths';

/** Whose variables: a customer's or a deal's. */
export const targetProperties: INodeProperties[] = [
	{
		displayName: 'Variables Of',
		name: 'target',
		type: 'options',
		default: 'customer',
		options: [
			{ name: 'Customer', value: 'customer' },
			{ name: 'Deal', value: 'deal' },
		],
	},
	{ ...customerLocator, displayOptions: { show: { target: ['customer'] } } },
	...dealSelector.map((p) => ({
		...p,
		displayOptions: { show: { ...p.displayOptions?.show, target: ['deal'] } },
	})),
];

/** The variables path of the chosen customer or deal, and the id in the output. */
export async function variablesPath(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Promise<{ path: string; owner: Record<string, string> }> {
	if (ctx.getNodeParameter('target', itemIndex, 'customer') === 'deal') {
		const dealId = await resolveDealId(ctx, itemIndex);
		return { path: paths.deal(dealId, '/variables'), owner: { deal_id: dealId } };
	}
	const customerId = await resolveCustomerId(ctx, itemIndex);
	return { path: paths.customer(customerId, '/variables'), owner: { customer_id: customerId } };
}
