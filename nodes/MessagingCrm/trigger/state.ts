/**
 * The Messaging CRM Trigger's state logic, free of n8n and HTTP: snapshots, the events between two
 * snapshots, the rotation of watched customers under a request budget. The trigger reads, calls
 * these, and only then stores the new state, so a failed poll changes nothing.
 */
import type { IDataObject } from 'n8n-workflow';

import { CODES_PAGE_MAX, isClosed } from '../helpers/types';

export const POOL_EVENTS = [
	'poolLow',
	'poolEmpty',
	'poolRestocked',
	'codesIssued',
	'exhaustedRequestsRose',
	'poolDisabled',
	'poolEnabled',
	'anyCounterChanged',
	'codeIssuedToCustomer',
] as const;
export type PoolEvent = (typeof POOL_EVENTS)[number];

/**
 * Where the issued codes of a pool were last read to: the queue position of the last one seen,
 * and its place in the list of issued codes then (where the next read starts). `behind`: the last
 * read stopped at the poll's request budget, so the next poll reads on even if no counter moved.
 */
export interface IssuedCursor {
	position: number;
	index: number;
	behind?: boolean;
}

export const DEAL_EVENTS = ['dealCreated', 'dealMoved', 'dealWon', 'dealLost'] as const;
export type DealEvent = (typeof DEAL_EVENTS)[number];

export const TEMPLATE_EVENTS = [
	'templateApproved',
	'templateRejected',
	'templateNew',
	'templateStatusChanged',
] as const;
export type TemplateEvent = (typeof TEMPLATE_EVENTS)[number];

/** What is kept of a pool between polls. */
export interface PoolSnapshot {
	total: number;
	issued: number;
	remaining: number;
	low_threshold: number;
	exhausted_requests: number;
	is_enabled: boolean;
}

/** What is kept of a deal between polls. */
export interface DealSnapshot {
	stage_id: string;
	stage_code: string | null;
	status: string;
	moved_at: string | null;
}

export interface TriggerState {
	/** The configuration the state belongs to; another one starts from a new baseline. */
	config: string;
	pools?: Record<string, PoolSnapshot>;
	/** Per watched customer that has been read at least once: its deals. */
	deals?: Record<string, Record<string, DealSnapshot>>;
	/** Per pool: how far its issued codes were read (Code Issued to a Customer). */
	issued?: Record<string, IssuedCursor>;
	/** Business-chat templates by name and language: their moderation status. */
	templates?: Record<string, string>;
	/** Where the next rotation of watched customers starts. */
	cursor?: number;
	/** The key's rate limit as last read from the headers. */
	rateLimit?: number;
}

export interface Emitted {
	event: string;
	[key: string]: unknown;
}

const COUNTERS = ['total', 'issued', 'remaining', 'low_threshold', 'exhausted_requests'] as const;

export function poolSnapshot(pool: IDataObject): PoolSnapshot {
	const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
	return {
		total: n(pool.total),
		issued: n(pool.issued),
		remaining: n(pool.remaining),
		low_threshold: n(pool.low_threshold),
		exhausted_requests: n(pool.exhausted_requests),
		is_enabled: pool.is_enabled !== false,
	};
}

/**
 * Whether a pool shows the state an event leads to (at or below the threshold for Pool Became
 * Low); null for an event about a change (Codes Issued …), which no single reading shows.
 */
export function poolShows(event: string, pool: PoolSnapshot): boolean | null {
	switch (event) {
		case 'poolLow':
			return pool.remaining <= pool.low_threshold;
		case 'poolEmpty':
			return pool.remaining === 0;
		case 'poolDisabled':
			return !pool.is_enabled;
		case 'poolEnabled':
			return pool.is_enabled;
		default:
			return null;
	}
}

/** The events of one pool between two snapshots, in a stable order, only those asked for. */
export function poolEvents(
	before: PoolSnapshot,
	pool: IDataObject,
	wanted: ReadonlySet<string>,
): Emitted[] {
	const after = poolSnapshot(pool);
	const deltas: IDataObject = {};
	for (const key of COUNTERS) deltas[key] = after[key] - before[key];
	// A state event: the pool did not show it before and shows it now.
	const became = (event: PoolEvent) =>
		poolShows(event, before) === false && poolShows(event, after) === true;
	const happened: Array<[PoolEvent, boolean]> = [
		['poolLow', became('poolLow')],
		['poolEmpty', became('poolEmpty')],
		['poolRestocked', after.remaining > before.remaining],
		['codesIssued', after.issued > before.issued],
		['exhaustedRequestsRose', after.exhausted_requests > before.exhausted_requests],
		['poolDisabled', became('poolDisabled')],
		['poolEnabled', became('poolEnabled')],
		['anyCounterChanged', COUNTERS.some((k) => after[k] !== before[k])],
	];
	const out: Emitted[] = [];
	for (const [event, yes] of happened as Array<[string, boolean]>) {
		if (!yes || !wanted.has(event)) continue;
		const item: Emitted = { event, pool, before: { ...before }, deltas };
		if (event === 'codesIssued') item.count = after.issued - before.issued;
		if (event === 'exhaustedRequestsRose')
			item.count = after.exhausted_requests - before.exhausted_requests;
		out.push(item);
	}
	return out;
}

export function dealSnapshot(deal: IDataObject): DealSnapshot {
	return {
		stage_id: String(deal.stage_id ?? ''),
		stage_code: typeof deal.stage_code === 'string' ? deal.stage_code : null,
		status: String(deal.status ?? ''),
		moved_at: typeof deal.moved_at === 'string' ? deal.moved_at : null,
	};
}

export interface MoveFilter {
	/** Only moves into these stage codes … */
	stageCodes: string[];
	/** … of this pipeline (empty: any). */
	pipelineId: string;
}

/** The events of one customer's deals between two reads. */
export function dealEvents(
	customerId: string,
	before: Record<string, DealSnapshot>,
	deals: IDataObject[],
	wanted: ReadonlySet<string>,
	filter: MoveFilter,
): Emitted[] {
	const out: Emitted[] = [];
	const emit = (event: DealEvent, deal: IDataObject, previous: DealSnapshot | undefined) => {
		if (!wanted.has(event)) return;
		out.push({
			event,
			customer_id: customerId,
			deal,
			stage_before: previous ? { id: previous.stage_id, code: previous.stage_code } : null,
			stage_after: { id: deal.stage_id ?? null, code: deal.stage_code ?? null },
			moved_at: deal.moved_at ?? null,
		});
	};
	for (const deal of deals) {
		const id = String(deal.id ?? '');
		if (!id) continue;
		const previous = before[id];
		const now = dealSnapshot(deal);
		if (!previous) {
			emit('dealCreated', deal, undefined);
		} else if (now.stage_id !== previous.stage_id && !isClosed(previous.status)) {
			const intoChosen =
				(filter.pipelineId === '' || deal.pipeline_id === filter.pipelineId) &&
				(filter.stageCodes.length === 0 ||
					(now.stage_code !== null && filter.stageCodes.includes(now.stage_code)));
			if (intoChosen) emit('dealMoved', deal, previous);
		}
		if (isClosed(now.status) && (!previous || previous.status !== now.status)) {
			emit(now.status === 'won' ? 'dealWon' : 'dealLost', deal, previous);
		}
	}
	return out;
}

/** Customers to read this poll: all when they fit the budget, otherwise a rotating window. */
export function planReads(
	customerIds: string[],
	cursor: number,
	budget: number,
): { read: string[]; nextCursor: number; rotating: boolean } {
	const n = customerIds.length;
	const size = Math.max(1, Math.floor(budget));
	if (n <= size) return { read: [...customerIds], nextCursor: 0, rotating: false };
	const start = ((cursor % n) + n) % n;
	const read: string[] = [];
	for (let i = 0; i < size; i++) read.push(customerIds[(start + i) % n]);
	return { read, nextCursor: (start + size) % n, rotating: true };
}

/** Requests a poll may spend: a share of the key's limit per window (at least 1). */
export function requestBudget(rateLimit: number | undefined, sharePercent: number): number {
	const limit = rateLimit && rateLimit > 0 ? rateLimit : 120;
	const share = Math.min(100, Math.max(1, sharePercent));
	return Math.max(1, Math.floor((limit * share) / 100));
}

/** Watched customer IDs from a list, a comma/line separated text or an array expression. */
export function parseCustomerIds(value: unknown): string[] {
	const raw = Array.isArray(value)
		? value.map((v) => String(v ?? ''))
		: String(value ?? '').split(/[\s,;]+/);
	return [...new Set(raw.map((v) => v.trim()).filter((v) => v !== ''))];
}

/**
 * The next state and the events of a poll of pools. A pool seen for the first time is baselined
 * quietly; a pool that disappeared is forgotten.
 */
export function pollPools(
	state: TriggerState,
	pools: IDataObject[],
	wanted: ReadonlySet<string>,
): { state: TriggerState; events: Emitted[] } {
	const previous = state.pools;
	const next: Record<string, PoolSnapshot> = {};
	const events: Emitted[] = [];
	for (const pool of pools) {
		const id = String(pool.id ?? '');
		if (!id) continue;
		if (previous?.[id]) events.push(...poolEvents(previous[id], pool, wanted));
		next[id] = poolSnapshot(pool);
	}
	return { state: { ...state, pools: next }, events };
}

/** The next state and the events after reading the deals of some watched customers. */
export function pollDeals(
	state: TriggerState,
	reads: Array<{ customerId: string; deals: IDataObject[] }>,
	watched: string[],
	wanted: ReadonlySet<string>,
	filter: MoveFilter,
	nextCursor: number,
): { state: TriggerState; events: Emitted[] } {
	const keep = new Set(watched);
	const deals: Record<string, Record<string, DealSnapshot>> = {};
	for (const [customerId, snapshot] of Object.entries(state.deals ?? {}))
		if (keep.has(customerId)) deals[customerId] = snapshot;
	const events: Emitted[] = [];
	for (const { customerId, deals: list } of reads) {
		const before = deals[customerId];
		if (before) events.push(...dealEvents(customerId, before, list, wanted, filter));
		deals[customerId] = Object.fromEntries(
			list.filter((d) => d.id).map((d) => [String(d.id), dealSnapshot(d)]),
		);
	}
	return { state: { ...state, deals, cursor: nextCursor }, events };
}

/**
 * Each template's key between polls: its name and language (the list names no ID), and `#2`, `#3`
 * … for a later one with the same name and language (two agents can each have one; the list
 * keeps its order).
 */
export function templateKeys(templates: IDataObject[]): string[] {
	const seen = new Map<string, number>();
	return templates.map((template) => {
		const key = `${String(template.name ?? '')}|${String(template.language ?? '')}`;
		const n = (seen.get(key) ?? 0) + 1;
		seen.set(key, n);
		return n === 1 ? key : `${key}#${n}`;
	});
}

/**
 * The next state and the events of a poll of templates: a template not seen before is New, and
 * also Approved or Rejected when it already is (created and moderated between two polls); a
 * status that differs is Status Changed, and Approved or Rejected when that is the new status.
 * The first poll is a baseline (nothing emitted); a template that disappeared is forgotten.
 */
export function pollTemplates(
	state: TriggerState,
	templates: IDataObject[],
	wanted: ReadonlySet<string>,
): { state: TriggerState; events: Emitted[] } {
	const previous = state.templates;
	const next: Record<string, string> = {};
	const events: Emitted[] = [];
	const emit = (event: TemplateEvent, template: IDataObject, before: string | null) => {
		if (wanted.has(event))
			events.push({ event, template, status_before: before, status_after: template.status });
	};
	const keys = templateKeys(templates);
	templates.forEach((template, i) => {
		const key = keys[i];
		const status = String(template.status ?? '');
		const known = previous !== undefined && key in previous;
		const before = known ? previous[key] : null;
		if (previous && !known) emit('templateNew', template, null);
		else if (known && before !== status) emit('templateStatusChanged', template, before);
		if (previous && before !== status) {
			if (status === 'APPROVED') emit('templateApproved', template, before);
			if (status === 'REJECTED') emit('templateRejected', template, before);
		}
		next[key] = status;
	});
	return { state: { ...state, templates: next }, events };
}

/**
 * Whether a pool's issued codes need reading this poll: its issued counter rose, a code was
 * revoked (its total fell: a revoke and a new issue can leave the issued counter where it was),
 * or the last read stopped at the budget.
 */
export function issuedNeedsRead(
	before: PoolSnapshot | undefined,
	pool: IDataObject,
	cursor: IssuedCursor,
): boolean {
	if (cursor.behind || !before) return true;
	return Number(pool.issued) > before.issued || Number(pool.total) < before.total;
}

/**
 * One page of issued codes read from `offset`, against the cursor: the codes issued after it (in
 * queue order), or that the page starts past the cursor and the read must step back (a revoke of
 * an earlier issued code shifted the list to the left).
 */
export function readIssuedPage(
	cursor: IssuedCursor,
	offset: number,
	page: IDataObject[],
	firstPage: boolean,
): { stepBack: boolean; fresh: IDataObject[]; done: boolean } {
	const position = (c: IDataObject) => Number(c.position);
	if (firstPage && offset > 0 && (page.length === 0 || position(page[0]) > cursor.position))
		return { stepBack: true, fresh: [], done: false };
	return {
		stepBack: false,
		fresh: page.filter((c) => position(c) > cursor.position),
		done: page.length < CODES_PAGE_MAX,
	};
}
