/**
 * The pool events' state logic, free of n8n and HTTP: a pool's snapshot, the events between two,
 * and how far the issued codes were read (Code Issued to a Customer).
 */
import type { IDataObject } from 'n8n-workflow';

import { CODES_PAGE_MAX } from '../../helpers/bounds';
import type { Emitted, TriggerState } from '../state';

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
export interface IssuedProgress {
	position: number;
	index: number;
	behind?: boolean;
}

declare module '../state' {
	interface TriggerState {
		/** Per pool: its counters. */
		pools?: Record<string, PoolSnapshot>;
		/** Per pool: how far its issued codes were read (Code Issued to a Customer). */
		issued?: Record<string, IssuedProgress>;
	}
}

/** What is kept of a pool between polls. */
export interface PoolSnapshot {
	total: number;
	issued: number;
	remaining: number;
	low_threshold: number;
	exhausted_requests: number;
	is_enabled: boolean;
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

/**
 * Whether a pool's issued codes need reading this poll: its issued counter rose, a code was
 * revoked (its total fell: a revoke and a new issue can leave the issued counter where it was),
 * or the last read stopped at the budget.
 */
export function issuedNeedsRead(
	before: PoolSnapshot | undefined,
	pool: IDataObject,
	mark: IssuedProgress,
): boolean {
	if (mark.behind || !before) return true;
	return Number(pool.issued) > before.issued || Number(pool.total) < before.total;
}

/**
 * One page of issued codes read from `offset`, against the progress mark: the codes issued after
 * it (in queue order), or that the page starts past the mark and the read must step back (a
 * revoke of an earlier issued code shifted the list to the left).
 */
export function readIssuedPage(
	mark: IssuedProgress,
	offset: number,
	page: IDataObject[],
	firstPage: boolean,
): { stepBack: boolean; fresh: IDataObject[]; done: boolean } {
	const position = (c: IDataObject) => Number(c.position);
	if (firstPage && offset > 0 && (page.length === 0 || position(page[0]) > mark.position))
		return { stepBack: true, fresh: [], done: false };
	return {
		stepBack: false,
		fresh: page.filter((c) => position(c) > mark.position),
		done: page.length < CODES_PAGE_MAX,
	};
}
