/**
 * The messenger events' state logic, free of n8n and HTTP: what is kept of each watched
 * customer's messengers between reads (the last message in, the 24-hour window and which of its
 * events were reported), and the events between two reads.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Emitted, TriggerState } from '../state';

export const MESSENGER_EVENTS = ['customerWrote', 'windowClosingSoon', 'windowClosed'] as const;
export type MessengerEvent = (typeof MESSENGER_EVENTS)[number];

declare module '../state' {
	interface TriggerState {
		/** Per watched customer that has been read at least once: its messengers. */
		messengers?: Record<string, Record<string, MessengerSnapshot>>;
		/** Where the next rotation of watched customers starts (messenger events; deals keep theirs). */
		messengerRotationStart?: number;
	}
}

/** What is kept of one messenger of a customer between reads. */
export interface MessengerSnapshot {
	last_inbound_at: string | null;
	window_expires_at: string | null;
	/** The window (its closing time) Window Closing Soon was reported for. */
	soon?: string;
	/** The window (its closing time) Window Closed was reported for. */
	closed?: string;
}

/** A messenger's key among the customer's: its type and the customer's ID in it. */
export const messengerKey = (entry: IDataObject): string =>
	`${String(entry.type ?? '')}:${String(entry.id ?? '')}`;

/** Whole minutes from `now` until a window closes at `closesAt` (0 once it has). */
export const minutesLeft = (closesAt: number, now: number): number =>
	Math.max(0, Math.round((closesAt - now) / 60_000));

const time = (value: unknown): number | undefined => {
	const ms = typeof value === 'string' ? Date.parse(value) : NaN;
	return Number.isFinite(ms) ? ms : undefined;
};

/**
 * The events of one customer's messengers between two reads, and what to keep of them. `before`
 * undefined: the customer's first read (a baseline: nothing is reported, and a window already
 * within the lead time or closed counts as reported). `now`: the server's clock when it answered.
 *
 * - Customer Wrote: the last message in moved forward (several messages between two reads: one
 *   event, with the latest time); a messenger that appears with a message in counts too.
 * - Window Closing Soon: a window-bound messenger (one whose entry has `window_expires_at`) whose
 *   window closes within `leadMs` and is still open; once per window (per `window_expires_at`),
 *   also when the read that finds it comes late.
 * - Window Closed: once per window, after it passed (or the API says free-form text is no longer
 *   allowed); a read that comes after the close reports Closed only, not Closing Soon as well.
 */
export function messengerEvents(
	customerId: string,
	before: Record<string, MessengerSnapshot> | undefined,
	entries: IDataObject[],
	now: number,
	leadMs: number,
	wanted: ReadonlySet<string>,
): { events: Emitted[]; snapshot: Record<string, MessengerSnapshot> } {
	const events: Emitted[] = [];
	const snapshot: Record<string, MessengerSnapshot> = {};
	for (const entry of entries) {
		const key = messengerKey(entry);
		const previous = before?.[key];
		const inbound = typeof entry.last_inbound_at === 'string' ? entry.last_inbound_at : null;
		const expires = typeof entry.window_expires_at === 'string' ? entry.window_expires_at : null;
		const next: MessengerSnapshot = { last_inbound_at: inbound, window_expires_at: expires };
		const emit = (event: MessengerEvent, extra: IDataObject = {}) => {
			if (!wanted.has(event)) return;
			events.push({
				event,
				customer_id: customerId,
				messenger: { type: entry.type, id: entry.id, username: entry.username ?? null },
				last_inbound_at: inbound,
				window_expires_at: expires,
				can_send_freeform: entry.can_send_freeform ?? null,
				...extra,
			});
		};
		// Reported only for a customer read before; a messenger new to that customer is reported
		// when it brings a message in, and its window is reported from the next read on.
		const report = before !== undefined;
		const wrote =
			inbound !== null &&
			(previous?.last_inbound_at == null ||
				(time(inbound) ?? 0) > (time(previous.last_inbound_at) ?? 0));
		if (report && wrote) emit('customerWrote');
		const closesAt = time(expires);
		if (expires !== null && closesAt !== undefined) {
			if (previous?.soon === expires) next.soon = expires;
			if (previous?.closed === expires) next.closed = expires;
			const closed = now >= closesAt || entry.can_send_freeform === false;
			if (closed && next.closed !== expires) {
				if (report && previous) emit('windowClosed');
				next.closed = expires;
				next.soon = expires;
			} else if (!closed && now >= closesAt - leadMs && next.soon !== expires) {
				if (report && previous)
					emit('windowClosingSoon', {
						minutes_left: minutesLeft(closesAt, now),
					});
				next.soon = expires;
			}
		}
		snapshot[key] = next;
	}
	return { events, snapshot };
}

/** The next state and the events after reading the messengers of some watched customers. */
export function pollMessengers(
	state: TriggerState,
	reads: Array<{ customerId: string; messengers: IDataObject[]; now: number }>,
	watched: string[],
	wanted: ReadonlySet<string>,
	leadMs: number,
	nextStart: number,
): { state: TriggerState; events: Emitted[] } {
	const keep = new Set(watched);
	const messengers: Record<string, Record<string, MessengerSnapshot>> = {};
	for (const [customerId, snapshot] of Object.entries(state.messengers ?? {}))
		if (keep.has(customerId)) messengers[customerId] = snapshot;
	const events: Emitted[] = [];
	for (const read of reads) {
		const result = messengerEvents(
			read.customerId,
			messengers[read.customerId],
			read.messengers,
			read.now,
			leadMs,
			wanted,
		);
		events.push(...result.events);
		messengers[read.customerId] = result.snapshot;
	}
	return { state: { ...state, messengers, messengerRotationStart: nextStart }, events };
}
