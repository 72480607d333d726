/** Messenger events between two reads of a customer's messengers (pure; the clock is passed in). */
import { messengerEvents, pollMessengers } from '../../nodes/MessagingCrm/trigger/messengers/state';

const T0 = Date.parse('2026-11-25T10:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();
const all = new Set(['customerWrote', 'windowClosingSoon', 'windowClosed']);

/** An Instagram entry whose customer last wrote at `wroteAt` (the window closes 24 h later). */
const insta = (wroteAt: number, now: number) => ({
	type: 'instagram',
	id: 'chloe',
	username: null,
	last_inbound_at: iso(wroteAt),
	can_send_freeform: now < wroteAt + 24 * HOUR,
	window_expires_at: iso(wroteAt + 24 * HOUR),
});
const bot = (wroteAt: number | null) => ({
	type: 'telegram',
	id: '1',
	username: null,
	last_inbound_at: wroteAt === null ? null : iso(wroteAt),
	can_send_freeform: true,
	window_expires_at: null,
});

/** Reads of one customer at the given times; the events of each. */
function reads(steps: Array<{ now: number; entries: object[] }>, lead = 60 * MIN) {
	let before: ReturnType<typeof messengerEvents>['snapshot'] | undefined;
	return steps.map(({ now, entries }) => {
		const { events, snapshot } = messengerEvents('c', before, entries as never, now, lead, all);
		before = snapshot;
		return events.map((e) => `${e.event}:${(e.messenger as { type: string }).type}`);
	});
}

describe('messenger events', () => {
	const wrote = T0 - 22 * HOUR; // the window closes at T0 + 2 h

	it('the first read is a baseline; a window crossing the lead time between reads is reported once, then its close once', () => {
		expect(
			reads([
				{ now: T0, entries: [insta(wrote, T0)] },
				{ now: T0 + 30 * MIN, entries: [insta(wrote, T0 + 30 * MIN)] },
				{ now: T0 + 61 * MIN, entries: [insta(wrote, T0 + 61 * MIN)] },
				{ now: T0 + 90 * MIN, entries: [insta(wrote, T0 + 90 * MIN)] },
				{ now: T0 + 121 * MIN, entries: [insta(wrote, T0 + 121 * MIN)] },
				{ now: T0 + 200 * MIN, entries: [insta(wrote, T0 + 200 * MIN)] },
			]),
		).toEqual([[], [], ['windowClosingSoon:instagram'], [], ['windowClosed:instagram'], []]);
	});

	it('a late read inside the lead time still reports Closing Soon; one after the close reports Closed only', () => {
		expect(
			reads([
				{ now: T0, entries: [insta(wrote, T0)] },
				{ now: T0 + 110 * MIN, entries: [insta(wrote, T0 + 110 * MIN)] },
			]),
		).toEqual([[], ['windowClosingSoon:instagram']]);
		expect(
			reads([
				{ now: T0, entries: [insta(wrote, T0)] },
				{ now: T0 + 5 * HOUR, entries: [insta(wrote, T0 + 5 * HOUR)] },
			]),
		).toEqual([[], ['windowClosed:instagram']]);
	});

	it('a customer who wrote twice between reads: one Customer Wrote with the latest time; a new window is reported anew', () => {
		const later = T0 + 100 * MIN;
		let before: ReturnType<typeof messengerEvents>['snapshot'] | undefined;
		const step = (now: number, entries: object[]) => {
			const r = messengerEvents('c', before, entries as never, now, 60 * MIN, all);
			before = r.snapshot;
			return r.events;
		};
		step(T0, [insta(wrote, T0), bot(null)]);
		expect(
			step(T0 + 61 * MIN, [insta(wrote, T0 + 61 * MIN), bot(null)]).map((e) => e.event),
		).toEqual(['windowClosingSoon']);
		// Two messages, at T0 + 90 min and T0 + 100 min, and one on the bot: one event per messenger.
		const events = step(later + MIN, [insta(later, later + MIN), bot(T0 + 95 * MIN)]);
		expect(
			events.map((e) => [e.event, (e.messenger as { type: string }).type, e.last_inbound_at]),
		).toEqual([
			['customerWrote', 'instagram', iso(later)],
			['customerWrote', 'telegram', iso(T0 + 95 * MIN)],
		]);
		// The new window closes at later + 24 h: its lead time is reported again, once.
		const near = later + 23.5 * HOUR;
		expect(step(near, [insta(later, near), bot(T0 + 95 * MIN)]).map((e) => e.event)).toEqual([
			'windowClosingSoon',
		]);
		expect(step(near + MIN, [insta(later, near + MIN), bot(T0 + 95 * MIN)])).toEqual([]);
	});

	it('a window already within the lead time or closed at the baseline is not reported; a messenger without a window has no window events', () => {
		expect(
			reads([
				{ now: T0 + 90 * MIN, entries: [insta(wrote, T0 + 90 * MIN), bot(null)] },
				{ now: T0 + 100 * MIN, entries: [insta(wrote, T0 + 100 * MIN), bot(null)] },
				{ now: T0 + 30 * HOUR, entries: [insta(wrote, T0 + 30 * HOUR), bot(null)] },
			]),
		).toEqual([[], [], ['windowClosed:instagram']]);
	});

	it('only the events asked for; customers no longer watched are forgotten', () => {
		const first = pollMessengers(
			{ config: 'k' },
			[{ customerId: 'a', messengers: [insta(wrote, T0)] as never, now: T0 }],
			['a', 'b'],
			new Set(['windowClosed']),
			60 * MIN,
			1,
		);
		const second = pollMessengers(
			first.state,
			[{ customerId: 'a', messengers: [insta(wrote, T0 + 61 * MIN)] as never, now: T0 + 61 * MIN }],
			['a'],
			new Set(['windowClosed']),
			60 * MIN,
			0,
		);
		expect(second.events).toEqual([]);
		expect(Object.keys(second.state.messengers ?? {})).toEqual(['a']);
		expect(second.state.messengerRotationStart).toBe(0);
	});
});
