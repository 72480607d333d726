/** Pool events: the promo pools' counters, and each code issued to a customer. */
import type { INodePropertyOptions, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isUuid } from '../../helpers/validate';
import { poolLabel } from '../../shared/pool';
import { lastIssuedCode, listPools } from '../../shared/reads';
import type { EventFamily, TriggerSettings } from '../family.type';
import { agentFilter, keyLimitOf, readAgentFilter, sample } from '../fields';
import { readIssuedCodes } from './issued';
import { POOL_EVENTS, pollPools, poolShows, poolSnapshot } from './state';

/** The filters of pool events, as `settings` reads them. */
interface PoolFilters {
	agentId: string;
	poolIds: string[];
}

const eventOptions: INodePropertyOptions[] = [
	{
		name: 'Any Pool Counter Changed',
		value: 'anyCounterChanged',
		description: 'Total, issued, remaining, threshold or exhausted requests changed',
	},
	{
		name: 'Code Issued to a Customer',
		value: 'codeIssuedToCustomer',
		description:
			'One event per newly issued code, with the code, the customer and when (reads the codes of pools whose issued count rose)',
	},
	{
		name: 'Codes Issued',
		value: 'codesIssued',
		description: 'Issued rose: one event with the count',
	},
	{
		name: 'Exhausted Requests Rose',
		value: 'exhaustedRequestsRose',
		description: 'Customers asked for a code and found the pool empty',
	},
	{ name: 'Pool Became Empty', value: 'poolEmpty' },
	{
		name: 'Pool Became Low',
		value: 'poolLow',
		description: 'Remaining fell to or below the low threshold',
	},
	{ name: 'Pool Disabled', value: 'poolDisabled' },
	{ name: 'Pool Enabled', value: 'poolEnabled' },
	{ name: 'Pool Restocked', value: 'poolRestocked', description: 'Remaining rose' },
];

/** The watched pools as they are now, and the key's limit when the answer named it. */
async function readPools(ctx: IPollFunctions, filters: PoolFilters) {
	const { pools, rateLimit } = await listPools(ctx, { agentId: filters.agentId });
	return {
		pools: pools.filter(
			(p) => filters.poolIds.length === 0 || filters.poolIds.includes(String(p.id)),
		),
		rateLimit: keyLimitOf(rateLimit),
	};
}

const filtersOf = (settings: TriggerSettings) => settings.filters as unknown as PoolFilters;

export const pools: EventFamily = {
	name: 'pools',
	events: POOL_EVENTS,
	eventOptions,
	fields: [
		agentFilter,
		{
			displayName: 'Pool Names or IDs',
			name: 'poolIds',
			type: 'multiOptions',
			typeOptions: { loadOptionsMethod: 'getPools', loadOptionsDependsOn: ['agentId'] },
			default: [],
			description:
				'Only these pools; empty for all. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
	],
	v1Watch: 'pools',
	reserve: 1,

	settings(ctx) {
		const agentId = readAgentFilter(ctx);
		const poolIds = [...((ctx.getNodeParameter('poolIds', []) as string[]) ?? [])].sort();
		for (const id of poolIds)
			if (!isUuid(id))
				throw new NodeOperationError(
					ctx.getNode(),
					`"Pools" holds ${JSON.stringify(id)}, which is not a pool ID`,
					{
						description:
							'Pick the pools from the list, or give pool IDs (UUIDs, as Promo Pool → Get Many lists them); leave it empty to watch every pool.',
					},
				);
		return { agentId, poolIds };
	},

	/**
	 * The pool that fits the event best, as it is now, saying in its own fields that it is a
	 * sample, from which pool, and whether that pool shows the event at all.
	 */
	async sample(ctx, settings, event) {
		const { pools } = await readPools(ctx, filtersOf(settings));
		if (pools.length === 0)
			return sample(event, { sample_pool: null, message: 'No promo pool matches the filters' });
		if (event === 'codeIssuedToCustomer') {
			const pool = pools.find((p) => Number(p.issued) > 0);
			if (!pool) return sample(event, { message: 'No watched pool has issued a code yet' });
			const last = await lastIssuedCode(ctx, String(pool.id), Number(pool.issued));
			return sample(event, {
				sample_pool: `${String(pool.title)}: its last issued code`,
				code: last?.code ?? null,
				customer_id: last?.customer_id ?? null,
				issued_at: last?.issued_at ?? null,
				position: last?.position ?? null,
				pool,
			});
		}
		const pool = pools.find((p) => poolShows(event, poolSnapshot(p)) === true) ?? pools[0];
		const zero = { total: 0, issued: 0, remaining: 0, low_threshold: 0, exhausted_requests: 0 };
		const fits = poolShows(event, poolSnapshot(pool));
		return sample(event, {
			sample_pool: poolLabel(pool),
			sample_matches_event: fits,
			...(fits !== false
				? {}
				: {
						message: `No watched pool shows this event right now; this is ${String(pool.title)} as it is`,
					}),
			pool,
			before: { ...pool },
			deltas: zero,
		});
	},

	/** One read of the pools; then, for Code Issued to a Customer, their codes within the budget. */
	async poll(ctx, settings, step) {
		const { pools, rateLimit } = await readPools(ctx, filtersOf(settings));
		step.spent(1);
		const before = step.state.pools;
		const result = pollPools(
			{ ...step.state, rateLimit: rateLimit ?? step.state.rateLimit },
			pools,
			step.wanted,
		);
		if (!step.wanted.has('codeIssuedToCustomer')) return result;
		const budget = step.budget(result.state);
		const issued = await readIssuedCodes(ctx, pools, before, step.state.issued, budget);
		step.spent(issued.requests);
		return {
			state: { ...result.state, issued: issued.progress },
			events: [...result.events, ...issued.events],
		};
	},
};
