/** Deal events: the deals of watched customers, one request per customer, in rotation. */
import type { INodePropertyOptions, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isUuid } from '../../helpers/validate';
import { pipelineSelect } from '../../shared/descriptions';
import { customerDeals } from '../../shared/reads';
import type { EventFamily, TriggerSettings } from '../family.type';
import { keyLimitOf, readCustomerIds, readInTurn, sample, watchedCustomers } from '../fields';
import type { MoveFilter } from './state';
import { DEAL_EVENTS, pollDeals } from './state';

/** The filters of deal events, as `settings` reads them. */
interface DealFilters extends MoveFilter {
	customerIds: string[];
}

const eventOptions: INodePropertyOptions[] = [
	{ name: 'Deal Created', value: 'dealCreated', description: 'A watched customer got a new deal' },
	{ name: 'Deal Lost', value: 'dealLost', description: "A watched customer's deal was lost" },
	{
		name: 'Deal Moved to Another Stage',
		value: 'dealMoved',
		description: "A watched customer's deal moved to another stage",
	},
	{ name: 'Deal Won', value: 'dealWon', description: "A watched customer's deal was won" },
];

async function readDeals(ctx: IPollFunctions, customerId: string) {
	const { deals, rateLimit } = await customerDeals(ctx, customerId);
	return { deals, rateLimit: keyLimitOf(rateLimit) };
}

const filtersOf = (settings: TriggerSettings) => settings.filters as unknown as DealFilters;

export const deals: EventFamily = {
	name: 'deals',
	events: DEAL_EVENTS,
	eventOptions,
	fields: [
		watchedCustomers,
		pipelineSelect(
			{
				displayName: 'Only Moves Into Pipeline Name or ID',
				description:
					'Report moves only within this pipeline. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{ empty: 'allPipelines' },
		),
		{
			displayName: 'Only Moves Into Stage Names or IDs',
			name: 'stageCodes',
			type: 'multiOptions',
			typeOptions: {
				loadOptionsMethod: 'getStageCodeList',
				loadOptionsDependsOn: ['pipelineId'],
			},
			default: [],
			description:
				'Report moves only into these stages (by stage code); empty for any. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
	],
	v1Watch: 'deals',
	reserve: 1,
	takesTheRest: true,

	settings(ctx) {
		const node = ctx.getNode();
		const customerIds = readCustomerIds(ctx);
		const pipelineId = String(ctx.getNodeParameter('pipelineId', '') ?? '').trim();
		const stageCodes = [...((ctx.getNodeParameter('stageCodes', []) as string[]) ?? [])].sort();
		if (pipelineId && !isUuid(pipelineId))
			throw new NodeOperationError(
				node,
				`"Pipeline" must be a UUID, got ${JSON.stringify(pipelineId)}`,
				{
					description:
						'Pick the pipeline from the list, or give its ID (a UUID, as Pipeline → Get Many lists them); leave it empty to watch every pipeline.',
				},
			);
		return { customerIds, pipelineId, stageCodes };
	},

	/** The first watched customer's active deal, as it is now. */
	async sample(ctx, settings, event) {
		const customerId = filtersOf(settings).customerIds[0];
		const { deals } = await readDeals(ctx, customerId);
		const deal = deals.find((d) => d.status !== 'won' && d.status !== 'lost') ?? deals[0];
		if (!deal)
			return sample(event, { customer_id: customerId, message: 'This customer has no deal yet' });
		const stage = { id: deal.stage_id ?? null, code: deal.stage_code ?? null };
		return sample(event, {
			customer_id: customerId,
			deal,
			stage_before: stage,
			stage_after: stage,
			moved_at: deal.moved_at ?? null,
		});
	},

	/** As many watched customers as the rest of the budget allows (at least one), in rotation. */
	async poll(ctx, settings, step) {
		const filters = filtersOf(settings);
		const { reads, rateLimit, nextStart } = await readInTurn(
			step,
			filters.customerIds,
			step.state.rotationStart ?? 0,
			async (customerId) => await readDeals(ctx, customerId),
		);
		return pollDeals(
			{ ...step.state, rateLimit },
			reads,
			filters.customerIds,
			step.wanted,
			filters,
			nextStart,
		);
	},
};
