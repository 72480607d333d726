import type {
	IDataObject,
	IDisplayOptions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { isUuid } from './helpers/validate';
import { loadOptions } from './methods';
import { agentSelect, pipelineSelect } from './shared/descriptions';
import { CODES_PAGE_MAX } from './helpers/types';
import { poolLabel } from './shared/pool';
import {
	customerDeals,
	issuedCodes,
	lastIssuedCode,
	listPools,
	listTemplates,
} from './shared/reads';
import type { RateLimitReading } from './transport/rateHeaders';
import type { Emitted, IssuedCursor, PoolSnapshot, TriggerState } from './trigger/state';
import {
	DEAL_EVENTS,
	issuedNeedsRead,
	parseCustomerIds,
	planReads,
	POOL_EVENTS,
	pollDeals,
	pollPools,
	pollTemplates,
	poolShows,
	poolSnapshot,
	readIssuedPage,
	requestBudget,
	TEMPLATE_EVENTS,
} from './trigger/state';

interface Settings {
	/**
	 * What is read: set in version 1 ('pools' or 'deals'); since version 2 made from the events
	 * picked, the families joined by '+' ('deals+pools').
	 */
	watch: string;
	/** Sorted, for the baseline's key. */
	events: string[];
	/** As picked: Fetch Test Event samples the first. */
	picked: string[];
	agentId: string;
	poolIds: string[];
	customerIds: string[];
	pipelineId: string;
	stageCodes: string[];
	budgetPercent: number;
}

const FAMILIES = {
	pools: POOL_EVENTS as readonly string[],
	deals: DEAL_EVENTS as readonly string[],
	templates: TEMPLATE_EVENTS as readonly string[],
};
const isDealEvent = (event: string) => FAMILIES.deals.includes(event);
const isTemplateEvent = (event: string) => FAMILIES.templates.includes(event);
const watches = (s: Pick<Settings, 'watch'>, family: keyof typeof FAMILIES) =>
	s.watch.split('+').includes(family);

/** The events picked: version 1 in the list of its Watch, since version 2 in one list. */
function readEvents(ctx: IPollFunctions): { watch: Settings['watch']; picked: string[] } {
	const list = (name: string) => [...((ctx.getNodeParameter(name, []) as string[]) ?? [])];
	if (ctx.getNode().typeVersion === 1) {
		const watch = ctx.getNodeParameter('watch', 'pools') as 'pools' | 'deals';
		return { watch, picked: list(watch === 'pools' ? 'poolEvents' : 'dealEvents') };
	}
	const picked = list('events');
	const families = (Object.keys(FAMILIES) as Array<keyof typeof FAMILIES>).filter((family) =>
		picked.some((event) => FAMILIES[family].includes(event)),
	);
	return { watch: families.sort().join('+') || 'pools', picked };
}

function readSettings(ctx: IPollFunctions): Settings {
	const { watch, picked } = readEvents(ctx);
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const pools = watches({ watch }, 'pools');
	const deals = watches({ watch }, 'deals');
	const settings: Settings = {
		watch,
		events: [...picked].sort(),
		picked,
		agentId:
			pools || watches({ watch }, 'templates')
				? String(ctx.getNodeParameter('agentId', '') ?? '').trim()
				: '',
		poolIds: pools ? [...((ctx.getNodeParameter('poolIds', []) as string[]) ?? [])].sort() : [],
		customerIds: deals ? parseCustomerIds(ctx.getNodeParameter('customerIds', '')) : [],
		pipelineId: deals ? String(ctx.getNodeParameter('pipelineId', '') ?? '').trim() : '',
		stageCodes: deals
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
	if (deals) {
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

/** The pool events, as the Events lists show them (the picker: "On pool became low"). */
const POOL_EVENT_OPTIONS: INodePropertyOptions[] = [
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

/** The deal events of watched customers. */
const DEAL_EVENT_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Deal Created', value: 'dealCreated', description: 'A watched customer got a new deal' },
	{ name: 'Deal Lost', value: 'dealLost', description: "A watched customer's deal was lost" },
	{
		name: 'Deal Moved to Another Stage',
		value: 'dealMoved',
		description: "A watched customer's deal moved to another stage",
	},
	{ name: 'Deal Won', value: 'dealWon', description: "A watched customer's deal was won" },
];

/** The moderation of business-chat templates (by the platform owner, outside the API). */
const TEMPLATE_EVENT_OPTIONS: INodePropertyOptions[] = [
	{ name: 'New Template', value: 'templateNew', description: 'A template appeared in the list' },
	{
		name: 'Template Approved',
		value: 'templateApproved',
		description: 'A template became APPROVED: it can be sent now',
	},
	{
		name: 'Template Rejected',
		value: 'templateRejected',
		description: 'A template became REJECTED',
	},
	{
		name: 'Template Status Changed',
		value: 'templateStatusChanged',
		description: "A template's status changed, whatever to",
	},
];

const EVENT_OPTIONS = [...POOL_EVENT_OPTIONS, ...DEAL_EVENT_OPTIONS, ...TEMPLATE_EVENT_OPTIONS];

/** Each event's name, for the subtitle on the canvas. */
const EVENT_NAMES = Object.fromEntries(EVENT_OPTIONS.map((o) => [o.value, o.name]));

/**
 * The subtitle on the canvas: the first event's name, "and more" for several, nothing for none or
 * an expression (version 1: the list of its Watch).
 */
const PICKED =
	'($parameter["events"] ?? $parameter[$parameter["watch"] === "deals" ? "dealEvents" : "poolEvents"])';
const NAMES = JSON.stringify(EVENT_NAMES);
const subtitle = `={{ Array.isArray(${PICKED}) && ${NAMES}[${PICKED}[0]] ? ${NAMES}[${PICKED}[0]] + (${PICKED}.length > 1 ? " and more" : "") : "" }}`;

/**
 * Which pools: shown where pool events are picked; the agent filter also where template events
 * are (`agentDisplay`, the same as the pools' unless given).
 */
function poolFields(
	displayOptions: IDisplayOptions,
	agentDisplay: IDisplayOptions = displayOptions,
): INodeProperties[] {
	return [
		agentSelect(
			{
				displayOptions: agentDisplay,
				description:
					'Only this agent\'s pools and templates. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			'allAgents',
		),
		{
			displayName: 'Pool Names or IDs',
			name: 'poolIds',
			type: 'multiOptions',
			typeOptions: { loadOptionsMethod: 'getPools', loadOptionsDependsOn: ['agentId'] },
			default: [],
			displayOptions,
			description:
				'Only these pools; empty for all. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
	];
}

/** Whose deals, and which moves: shown where deal events are picked. */
function dealFields(displayOptions: IDisplayOptions): INodeProperties[] {
	return [
		{
			displayName: 'Customer IDs',
			name: 'customerIds',
			type: 'string',
			typeOptions: { rows: 3 },
			default: '',
			required: true,
			displayOptions,
			placeholder: 'One ID per line, or an expression giving a list',
			hint: 'The API has no company-wide deal list, so the deals of these customers are read one request each. When they do not fit the request budget of one poll, they are read in rotation: every customer at least once every ⌈customers ÷ budget⌉ polls (the budget is the share of the rate limit set below, 60 requests at 120 per minute and 50%).',
		},
		pipelineSelect(
			{
				displayName: 'Only Moves Into Pipeline Name or ID',
				displayOptions,
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
			displayOptions,
			description:
				'Report moves only into these stages (by stage code); empty for any. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
	];
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

const SAMPLE_NOTE =
	'A sample for building the workflow, not an event: nothing happened. Steps after this one run for real on its data. Real events come once the workflow is active.';

function sample(event: string, data: IDataObject): INodeExecutionData[] {
	return [{ json: { event, sample: true, sample_note: SAMPLE_NOTE, ...data } }];
}

/**
 * Fetch Test Event for pools: the pool that fits the event best, as it is now, saying in its own
 * fields that it is a sample, from which pool, and whether that pool shows the event at all.
 */
async function poolSample(ctx: IPollFunctions, settings: Settings, event: string) {
	const { pools } = await readPools(ctx, settings);
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
}

/**
 * Fetch Test Event for templates: a template in the status the event leads to where there is one
 * (APPROVED for Template Approved), as it is now.
 */
async function templateSample(ctx: IPollFunctions, settings: Settings, event: string) {
	const templates = await listTemplates(ctx, { agentId: settings.agentId });
	const wantedStatus =
		event === 'templateApproved' ? 'APPROVED' : event === 'templateRejected' ? 'REJECTED' : null;
	const template =
		templates.find((t) => wantedStatus === null || t.status === wantedStatus) ?? templates[0];
	if (!template) return sample(event, { message: 'The list of business-chat templates is empty' });
	return sample(event, {
		sample_template: `${String(template.name)} (${String(template.language)}): ${String(template.status)}`,
		template,
		status_before: null,
		status_after: template.status,
	});
}

/** Fetch Test Event for deals: the first watched customer's active deal, as it is now. */
async function dealSample(ctx: IPollFunctions, settings: Settings, event: string) {
	const customerId = settings.customerIds[0];
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
		version: [1, 2],
		defaultVersion: 2,
		subtitle,
		// Short, in the words of n8n's own triggers: the picker shows it under the app's one entry
		// also after a trigger, where n8n's Telegram and Pipedrive show theirs.
		description: 'Starts the workflow when Messaging CRM pools, deals or templates change',
		defaults: { name: 'Messaging CRM Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingCrmApi', required: true }],
		properties: [
			// First: the node picker lists its options as the trigger's events (since version 2).
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				default: ['poolLow'],
				required: true,
				displayOptions: { hide: { '@version': [1] } },
				options: [...EVENT_OPTIONS].sort((a, b) => a.name.localeCompare(b.name)),
				description:
					'Pool events read the promo pools and template events the business-chat templates (one request per poll each); deal events read the deals of the customers named below (one request per customer)',
			},
			{
				displayName: 'Watch',
				name: 'watch',
				type: 'options',
				default: 'pools',
				displayOptions: { show: { '@version': [1] } },
				options: [
					{
						name: 'Promo Pools',
						value: 'pools',
						description: "Counters of the company's promo pools: one request per poll",
					},
					{
						name: 'Deals of Watched Customers',
						value: 'deals',
						description: 'The deals of a list of customers: one request per customer',
					},
				],
			},
			{
				displayName: 'Events',
				name: 'poolEvents',
				type: 'multiOptions',
				default: ['poolLow'],
				required: true,
				displayOptions: { show: { '@version': [1], watch: ['pools'] } },
				options: POOL_EVENT_OPTIONS,
			},
			{
				displayName: 'Events',
				name: 'dealEvents',
				type: 'multiOptions',
				default: ['dealMoved'],
				required: true,
				displayOptions: { show: { '@version': [1], watch: ['deals'] } },
				options: DEAL_EVENT_OPTIONS,
			},
			...poolFields({ show: { '@version': [1], watch: ['pools'] } }),
			...poolFields(
				{ show: { events: [...POOL_EVENTS] }, hide: { '@version': [1] } },
				{ show: { events: [...POOL_EVENTS, ...TEMPLATE_EVENTS] }, hide: { '@version': [1] } },
			),
			...dealFields({ show: { '@version': [1], watch: ['deals'] } }),
			...dealFields({ show: { events: [...DEAL_EVENTS] }, hide: { '@version': [1] } }),
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
			// A realistic sample of the first event picked, from the current state; nothing stored.
			const event = settings.picked[0];
			if (isDealEvent(event)) return [await dealSample(this, settings, event)];
			if (isTemplateEvent(event)) return [await templateSample(this, settings, event)];
			return [await poolSample(this, settings, event)];
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

/**
 * Code Issued to a Customer: each pool's codes issued since its cursor, page by page in queue
 * order, within `budget` requests (what does not fit is read on by the next poll: nothing is
 * skipped). A pool without a cursor is baselined at its last issued code (one request).
 */
async function readIssuedCodes(
	ctx: IPollFunctions,
	pools: IDataObject[],
	before: Record<string, PoolSnapshot> | undefined,
	cursors: Record<string, IssuedCursor> | undefined,
	budget: number,
): Promise<{ cursors: Record<string, IssuedCursor>; events: Emitted[]; requests: number }> {
	const next: Record<string, IssuedCursor> = {};
	const events: Emitted[] = [];
	let requests = 0;
	for (const pool of pools) {
		const id = String(pool.id);
		const cursor = cursors?.[id];
		if (!cursor) {
			// The baseline of a pool: its last issued code now, read whatever the budget (once per
			// pool), so that no code issued after it can be missed.
			const issued = Number(pool.issued) || 0;
			if (issued === 0) next[id] = { position: -1, index: 0 };
			else {
				const last = await lastIssuedCode(ctx, id, issued);
				requests++;
				next[id] = { position: Number(last?.position ?? -1), index: issued };
			}
			continue;
		}
		if (!issuedNeedsRead(before?.[id], pool, cursor)) {
			next[id] = cursor;
			continue;
		}
		if (requests >= budget) {
			// No request left this poll: the cursor stays, and the next poll reads on.
			next[id] = { ...cursor, behind: true };
			continue;
		}
		let offset = Math.max(0, cursor.index - 1);
		let position = cursor.position;
		let first = true;
		let done = false;
		while (!done && requests < budget) {
			const page = await issuedCodes(ctx, id, offset, CODES_PAGE_MAX);
			requests++;
			const read = readIssuedPage({ ...cursor, position }, offset, page, first);
			if (read.stepBack) {
				offset = Math.max(0, offset - CODES_PAGE_MAX);
				continue;
			}
			first = false;
			for (const code of read.fresh)
				events.push({
					event: 'codeIssuedToCustomer',
					code: code.code,
					customer_id: code.customer_id ?? null,
					issued_at: code.issued_at ?? null,
					position: code.position,
					pool,
				});
			if (read.fresh.length) position = Number(read.fresh[read.fresh.length - 1].position);
			offset += page.length;
			done = read.done;
		}
		next[id] = { position, index: offset, ...(done ? {} : { behind: true }) };
	}
	return { cursors: next, events, requests };
}

/** One poll of an active workflow: read, compare with the stored state, store, emit. */
async function pollChanges(
	ctx: IPollFunctions,
	settings: Settings,
	state: TriggerState,
	wanted: Set<string>,
	staticData: IDataObject,
): Promise<INodeExecutionData[][] | null> {
	let next: TriggerState = state;
	const events: Emitted[] = [];
	// Requests this poll has spent, against its budget (read from the API's headers).
	let spent = 0;
	// Everything is read before anything is stored: a failure here leaves the state as it was.
	if (watches(settings, 'pools')) {
		const { pools, rateLimit } = await readPools(ctx, settings);
		spent++;
		const before = next.pools;
		const result = pollPools({ ...next, rateLimit: rateLimit ?? next.rateLimit }, pools, wanted);
		next = result.state;
		events.push(...result.events);
		if (wanted.has('codeIssuedToCustomer')) {
			// What is left once the templates' read and one deal read are set aside.
			const reserved =
				(watches(settings, 'templates') ? 1 : 0) + (watches(settings, 'deals') ? 1 : 0);
			const budget = requestBudget(next.rateLimit, settings.budgetPercent) - spent - reserved;
			const issued = await readIssuedCodes(ctx, pools, before, state.issued, budget);
			next = { ...next, issued: issued.cursors };
			events.push(...issued.events);
			spent += issued.requests;
		}
	}
	if (watches(settings, 'templates')) {
		const templates = await listTemplates(ctx, { agentId: settings.agentId });
		spent++;
		const result = pollTemplates(next, templates, wanted);
		next = result.state;
		events.push(...result.events);
	}
	if (watches(settings, 'deals')) {
		// What the pools, their codes and the templates took is not the deals' any more.
		const budget = Math.max(1, requestBudget(next.rateLimit, settings.budgetPercent) - spent);
		const plan = planReads(settings.customerIds, next.cursor ?? 0, budget);
		const reads: Array<{ customerId: string; deals: IDataObject[] }> = [];
		let rateLimit = next.rateLimit;
		for (const customerId of plan.read) {
			const read = await readDeals(ctx, customerId);
			rateLimit = read.rateLimit ?? rateLimit;
			reads.push({ customerId, deals: read.deals });
		}
		const result = pollDeals(
			{ ...next, rateLimit },
			reads,
			settings.customerIds,
			wanted,
			{ pipelineId: settings.pipelineId, stageCodes: settings.stageCodes },
			plan.nextCursor,
		);
		next = result.state;
		events.push(...result.events);
	}
	staticData.state = next;
	if (events.length === 0) return null;
	// When this poll noticed it: two events that read alike (a template approved, rejected and
	// approved again) stay two, while a Retry of the execution reuses the items n8n stored.
	const detectedAt = new Date().toISOString();
	return [
		events.map((event) => ({ json: { ...(event as IDataObject), detected_at: detectedAt } })),
	];
}
