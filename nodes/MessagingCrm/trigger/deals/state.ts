/**
 * The deal events' state logic, free of n8n and HTTP: a deal's snapshot, the events of one
 * customer's deals between two reads, and the rotation of watched customers under a request budget.
 */
import type { IDataObject } from 'n8n-workflow';

import { isClosed } from '../../helpers/apiShapes';
import type { Emitted, TriggerState } from '../state';

export const DEAL_EVENTS = ['dealCreated', 'dealMoved', 'dealWon', 'dealLost'] as const;
export type DealEvent = (typeof DEAL_EVENTS)[number];

declare module '../state' {
	interface TriggerState {
		/** Per watched customer that has been read at least once: its deals. */
		deals?: Record<string, Record<string, DealSnapshot>>;
		/** Where the next rotation of watched customers starts (an index into Customer IDs). */
		rotationStart?: number;
	}
}

/** What is kept of a deal between polls. */
export interface DealSnapshot {
	stage_id: string;
	stage_code: string | null;
	status: string;
	moved_at: string | null;
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

/** The next state and the events after reading the deals of some watched customers. */
export function pollDeals(
	state: TriggerState,
	reads: Array<{ customerId: string; deals: IDataObject[] }>,
	watched: string[],
	wanted: ReadonlySet<string>,
	filter: MoveFilter,
	nextStart: number,
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
	return { state: { ...state, deals, rotationStart: nextStart }, events };
}
