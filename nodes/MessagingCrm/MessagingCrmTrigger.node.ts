import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { isUuid } from './helpers/validate';
import { loadOptions } from './methods';
import { agentSelect, pipelineSelect } from './shared/descriptions';
import { customerDeals, listPools } from './shared/reads';
import type { RateLimitReading } from './transport/rateLimit';
import type { Emitted, TriggerState } from './trigger/state';
import { parseCustomerIds, planReads, pollDeals, pollPools, requestBudget } from './trigger/state';

interface Settings {
	watch: 'pools' | 'deals';
	events: string[];
	agentId: string;
	poolIds: string[];
	customerIds: string[];
	pipelineId: string;
	stageCodes: string[];
	budgetPercent: number;
}

function readSettings(ctx: IPollFunctions): Settings {
	const watch = ctx.getNodeParameter('watch', 'pools') as Settings['watch'];
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const settings: Settings = {
		watch,
		events: [
			...((ctx.getNodeParameter(watch === 'pools' ? 'poolEvents' : 'dealEvents', []) as string[]) ??
				[]),
		].sort(),
		agentId: watch === 'pools' ? String(ctx.getNodeParameter('agentId', '') ?? '').trim() : '',
		poolIds:
			watch === 'pools'
				? [...((ctx.getNodeParameter('poolIds', []) as string[]) ?? [])].sort()
				: [],
		customerIds: watch === 'deals' ? parseCustomerIds(ctx.getNodeParameter('customerIds', '')) : [],
		pipelineId:
			watch === 'deals' ? String(ctx.getNodeParameter('pipelineId', '') ?? '').trim() : '',
		stageCodes:
			watch === 'deals'
				? [...((ctx.getNodeParameter('stageCodes', []) as string[]) ?? [])].sort()
				: [],
		budgetPercent: typeof options.rateBudgetPercent === 'number' ? options.rateBudgetPercent : 50,
	};
	const node = ctx.getNode();
	if (settings.events.length === 0) {
		throw new NodeOperationError(node, 'No event is selected', {
			description: 'Pick at least one event to trigger on.',
		});
	}
	if (settings.agentId && !isUuid(settings.agentId))
		throw new NodeOperationError(
			node,
			`"Agent" must be a UUID, got ${JSON.stringify(settings.agentId)}`,
		);
	for (const id of settings.poolIds)
		if (!isUuid(id))
			throw new NodeOperationError(
				node,
				`"Pools" holds ${JSON.stringify(id)}, which is not a pool ID`,
			);
	if (settings.pipelineId && !isUuid(settings.pipelineId))
		throw new NodeOperationError(
			node,
			`"Pipeline" must be a UUID, got ${JSON.stringify(settings.pipelineId)}`,
		);
	if (watch === 'deals') {
		if (settings.customerIds.length === 0) {
			throw new NodeOperationError(node, '"Customer IDs" is empty', {
				description:
					'Give the IDs of the customers whose deals to watch: a list, or text with one ID per line or separated by commas.',
			});
		}
		const bad = settings.customerIds.find((id: string): boolean => !isUuid(id));
		if (bad)
			throw new NodeOperationError(
				node,
				`"Customer IDs" holds ${JSON.stringify(bad.slice(0, 60))}, which is not a customer ID (a UUID)`,
			);
	}
	if (
		!Number.isFinite(settings.budgetPercent) ||
		settings.budgetPercent < 1 ||
		settings.budgetPercent > 100
	) {
		throw new NodeOperationError(node, '"Share of the Rate Limit" must be from 1 to 100');
	}
	return settings;
}

/** The part of the settings a baseline belongs to; the watched customers are handled one by one. */
function configKey(s: Settings): string {
	return JSON.stringify([s.watch, s.events, s.agentId, s.poolIds, s.pipelineId, s.stageCodes]);
}

/** The key's limit from an answer's rate-limit reading, when the API sent one. */
const keyLimitOf = (reading: RateLimitReading): number | undefined =>
	reading.limit && reading.limit > 0 ? reading.limit : undefined;

async function readPools(ctx: IPollFunctions, s: Settings) {
	const { pools, rateLimit } = await listPools(ctx, { agentId: s.agentId });
	return {
		pools: pools.filter((p) => s.poolIds.length === 0 || s.poolIds.includes(String(p.id))),
		rateLimit: keyLimitOf(rateLimit),
	};
}

async function readDeals(ctx: IPollFunctions, customerId: string) {
	const { deals, rateLimit } = await customerDeals(ctx, customerId);
	return { deals, rateLimit: keyLimitOf(rateLimit) };
}

/**
 * Marks a poll in flight on the node's static data: n8n 2.x starts a poll on each tick without
 * waiting for the one before, with the same static data, and two polls at once would report every
 * change twice. A symbol key, because n8n stores static data as JSON, which leaves it out: no mark
 * survives a restart of n8n.
 */
const POLL_IN_FLIGHT = Symbol.for('n8n-nodes-messaging-crm.pollInFlight');

/** A mark older than this is taken as left by a poll that never ended. */
const POLL_MARK_STALE_MS = 30 * 60_000;

function sample(event: string, data: IDataObject): INodeExecutionData[] {
	return [{ json: { event, sample: true, ...data } }];
}

export class MessagingCrmTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging CRM Trigger',
		name: 'messagingCrmTrigger',
		icon: {
			light: 'file:../../icons/messagingCrm.svg',
			dark: 'file:../../icons/messagingCrm.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{$parameter["watch"] === "deals" ? "Deals: " + $parameter["dealEvents"].join(", ") : "Pools: " + $parameter["poolEvents"].join(", ")}}',
		description:
			"Starts a workflow when a promo pool runs low, empties or is restocked, or when a watched customer's deal moves",
		defaults: { name: 'Messaging CRM Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingCrmApi', required: true }],
		properties: [
			{
				displayName: 'Watch',
				name: 'watch',
				type: 'options',
				default: 'pools',
				options: [
					{
						name: 'Promo Pools',
						value: 'pools',
						description:
							"Counters of the company's promo pools: one request per poll. Needs promo:read.",
					},
					{
						name: 'Deals of Watched Customers',
						value: 'deals',
						description:
							'The deals of a list of customers: one request per customer. Needs customers:read.',
					},
				],
			},
			{
				displayName: 'Events',
				name: 'poolEvents',
				type: 'multiOptions',
				default: ['poolLow'],
				required: true,
				displayOptions: { show: { watch: ['pools'] } },
				options: [
					{ name: 'Any Counter Changed', value: 'anyCounterChanged' },
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
				],
			},
			agentSelect({
				displayOptions: { show: { watch: ['pools'] } },
				description:
					'Only this agent\'s pools; empty for all. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			}),
			{
				displayName: 'Pool Names or IDs',
				name: 'poolIds',
				type: 'multiOptions',
				typeOptions: { loadOptionsMethod: 'getPools', loadOptionsDependsOn: ['agentId'] },
				default: [],
				displayOptions: { show: { watch: ['pools'] } },
				description:
					'Only these pools; empty for all. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Events',
				name: 'dealEvents',
				type: 'multiOptions',
				default: ['dealMoved'],
				required: true,
				displayOptions: { show: { watch: ['deals'] } },
				options: [
					{ name: 'Deal Created', value: 'dealCreated' },
					{ name: 'Deal Lost', value: 'dealLost' },
					{ name: 'Deal Moved to Another Stage', value: 'dealMoved' },
					{ name: 'Deal Won', value: 'dealWon' },
				],
			},
			{
				displayName: 'Customer IDs',
				name: 'customerIds',
				type: 'string',
				typeOptions: { rows: 3 },
				default: '',
				required: true,
				displayOptions: { show: { watch: ['deals'] } },
				placeholder: 'One ID per line, or an expression giving a list',
				hint: 'The API has no company-wide deal list, so the deals of these customers are read one request each. When they do not fit the request budget of one poll, they are read in rotation: every customer at least once every ⌈customers ÷ budget⌉ polls (the budget is the share of the rate limit set below, 60 requests at 120 per minute and 50%).',
			},
			pipelineSelect({
				displayName: 'Only Moves Into Pipeline Name or ID',
				displayOptions: { show: { watch: ['deals'] } },
				description:
					'Report moves only within this pipeline; empty for any. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			}),
			{
				displayName: 'Only Moves Into Stage Names or IDs',
				name: 'stageCodes',
				type: 'multiOptions',
				typeOptions: {
					loadOptionsMethod: 'getStageCodeList',
					loadOptionsDependsOn: ['pipelineId'],
				},
				default: [],
				displayOptions: { show: { watch: ['deals'] } },
				description:
					'Report moves only into these stages (by stage code); empty for any. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Share of the Rate Limit (%)',
						name: 'rateBudgetPercent',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 100 },
						default: 50,
						description:
							"The most of the key's rate limit (read from the API's headers) one poll may use, leaving the rest to your workflows",
					},
				],
			},
		],
	};

	methods = { loadOptions };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const settings = readSettings(this);
		const staticData = this.getWorkflowStaticData('node');
		const stored = staticData.state as TriggerState | undefined;
		const key = configKey(settings);
		const state: TriggerState = stored && stored.config === key ? stored : { config: key };
		const wanted = new Set(settings.events);

		if (this.getMode() === 'manual') {
			// A realistic sample from the current state; the stored state is not touched.
			if (settings.watch === 'pools') {
				const { pools } = await readPools(this, settings);
				if (pools.length === 0)
					return [sample(settings.events[0], { message: 'No promo pool matches the filters' })];
				const zero = { total: 0, issued: 0, remaining: 0, low_threshold: 0, exhausted_requests: 0 };
				return [
					sample(settings.events[0], { pool: pools[0], before: { ...pools[0] }, deltas: zero }),
				];
			}
			const customerId = settings.customerIds[0];
			const { deals } = await readDeals(this, customerId);
			const deal = deals.find((d) => d.status !== 'won' && d.status !== 'lost') ?? deals[0];
			if (!deal)
				return [
					sample(settings.events[0], {
						customer_id: customerId,
						message: 'This customer has no deal yet',
					}),
				];
			const stage = { id: deal.stage_id ?? null, code: deal.stage_code ?? null };
			return [
				sample(settings.events[0], {
					customer_id: customerId,
					deal,
					stage_before: stage,
					stage_after: stage,
					moved_at: deal.moved_at ?? null,
				}),
			];
		}

		const marks = staticData as unknown as Record<symbol, number | undefined>;
		const since = marks[POLL_IN_FLIGHT];
		if (since !== undefined && Date.now() - since < POLL_MARK_STALE_MS) {
			this.logger.info(
				`Messaging CRM Trigger: the poll started ${Math.round((Date.now() - since) / 1000)} s ago is still running; this one is skipped (nothing emitted, nothing changed)`,
			);
			return null;
		}
		const mine = Date.now();
		marks[POLL_IN_FLIGHT] = mine;
		try {
			return await pollChanges(this, settings, state, wanted, staticData);
		} finally {
			if (marks[POLL_IN_FLIGHT] === mine) delete marks[POLL_IN_FLIGHT];
		}
	}
}

/** One poll of an active workflow: read, compare with the stored state, store, emit. */
async function pollChanges(
	ctx: IPollFunctions,
	settings: Settings,
	state: TriggerState,
	wanted: Set<string>,
	staticData: IDataObject,
): Promise<INodeExecutionData[][] | null> {
	let result: { state: TriggerState; events: Emitted[] };
	if (settings.watch === 'pools') {
		const { pools, rateLimit } = await readPools(ctx, settings);
		const baseline = state.pools === undefined;
		result = pollPools({ ...state, rateLimit: rateLimit ?? state.rateLimit }, pools, wanted);
		if (baseline) result.events = [];
	} else {
		const budget = requestBudget(state.rateLimit, settings.budgetPercent);
		const plan = planReads(settings.customerIds, state.cursor ?? 0, budget);
		const reads: Array<{ customerId: string; deals: IDataObject[] }> = [];
		let rateLimit = state.rateLimit;
		// Everything is read before anything is stored: a failure here leaves the state as it was.
		for (const customerId of plan.read) {
			const read = await readDeals(ctx, customerId);
			rateLimit = read.rateLimit ?? rateLimit;
			reads.push({ customerId, deals: read.deals });
		}
		result = pollDeals(
			{ ...state, rateLimit },
			reads,
			settings.customerIds,
			wanted,
			{ pipelineId: settings.pipelineId, stageCodes: settings.stageCodes },
			plan.nextCursor,
		);
	}
	staticData.state = result.state;
	if (result.events.length === 0) return null;
	return [result.events.map((event) => ({ json: event as IDataObject }))];
}
