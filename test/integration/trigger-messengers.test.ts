/* eslint-disable no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The trigger's messenger events in n8n's engine against the sandbox, whose clock is moved
 * forward as time passing would move it: Customer Wrote, Window Closing Soon, Window Closed.
 */
import { useSandbox } from '../harness/fixtures';
import { createTrigger } from '../harness/triggerRuns';
import { prng } from '../harness/prng';
import { demoPersonId, seedDemoPeople } from '../sandbox/demo';

const env = useSandbox();
beforeEach(() => seedDemoPeople(env.sandbox));
const MIN = 60_000;
const HOUR = 60 * MIN;
const eva = () => demoPersonId('Eva Novak'); // Facebook: her window closes 63 minutes after the seed
const anna = () => demoPersonId('Anna Petrova'); // Telegram 1 h ago, WhatsApp 2 h ago

const messengerTrigger = (customerIds: string[], extra: Record<string, unknown> = {}) =>
	createTrigger(
		{
			events: ['customerWrote', 'windowClosingSoon', 'windowClosed'],
			customerIds: customerIds.join('\n'),
			...extra,
		},
		env.creds(),
		2,
	);

const kinds = (items: Array<Record<string, unknown>> | null) =>
	(items ?? []).map((i) => `${String(i.event)}:${String((i.messenger as { type: string }).type)}`);

describe('Messaging CRM Trigger: messenger events of watched customers', () => {
	it('a window crossing the lead time between polls: Closing Soon once, then Closed once; a restart keeps the state', async () => {
		const trigger = await messengerTrigger([eva()]);
		expect(await trigger.poll()).toBeNull();
		env.sandbox.advanceClock(5 * MIN);
		const soon = await trigger.poll();
		expect(soon).toEqual([
			expect.objectContaining({
				event: 'windowClosingSoon',
				customer_id: eva(),
				messenger: { type: 'facebook', id: '500000005', username: null },
				can_send_freeform: true,
				minutes_left: 58,
				detected_at: expect.any(String),
			}),
		]);
		expect(await trigger.poll()).toBeNull();
		trigger.restart();
		expect(await trigger.poll()).toBeNull();
		env.sandbox.advanceClock(HOUR);
		expect(kinds(await trigger.poll())).toEqual(['windowClosed:facebook']);
		expect(await trigger.poll()).toBeNull();
	});

	it('a poll that comes late: inside the lead time it still says Closing Soon; after the close, Closed only', async () => {
		const late = await messengerTrigger([eva()], { windowLeadMinutes: 30 });
		expect(await late.poll()).toBeNull();
		env.sandbox.advanceClock(40 * MIN);
		expect(kinds(await late.poll())).toEqual(['windowClosingSoon:facebook']);
		const later = await messengerTrigger([eva()]);
		expect(await later.poll()).toBeNull();
		env.sandbox.advanceClock(5 * HOUR);
		expect(kinds(await later.poll())).toEqual(['windowClosed:facebook']);
	});

	it('a customer who wrote twice between polls, on two messengers: one Customer Wrote per messenger, with the latest time', async () => {
		const trigger = await messengerTrigger([anna(), eva()]);
		expect(await trigger.poll()).toBeNull();
		env.sandbox.inbound(anna(), 'whatsapp', 'Hello');
		env.sandbox.advanceClock(MIN);
		const latest = env.sandbox.inbound(anna(), 'whatsapp', 'Are you there?').last_inbound_at;
		env.sandbox.inbound(anna(), 'telegram', 'Hi');
		const wrote = await trigger.poll();
		expect(wrote).toEqual([
			expect.objectContaining({
				event: 'customerWrote',
				customer_id: anna(),
				messenger: expect.objectContaining({ type: 'telegram' }),
			}),
			expect.objectContaining({
				event: 'customerWrote',
				customer_id: anna(),
				messenger: expect.objectContaining({ type: 'whatsapp' }),
				last_inbound_at: latest,
				window_expires_at: new Date(Date.parse(latest) + 24 * HOUR).toISOString(),
				can_send_freeform: true,
			}),
		]);
		expect(await trigger.poll()).toBeNull();
	});

	it('a failed poll changes nothing: the next one reports the event once', async () => {
		const trigger = await messengerTrigger([eva()]);
		expect(await trigger.poll()).toBeNull();
		const before = JSON.stringify(trigger.staticData());
		env.sandbox.advanceClock(5 * MIN);
		env.sandbox.injectFault({
			path: `/customers/${eva()}/messengers`,
			count: 10,
			kind: 'status',
			status: 500,
		});
		await expect(trigger.poll()).rejects.toThrow();
		expect(JSON.stringify(trigger.staticData())).toBe(before);
		env.sandbox.clearFaults();
		expect(kinds(await trigger.poll())).toEqual(['windowClosingSoon:facebook']);
		expect(await trigger.poll()).toBeNull();
	});

	it('Fetch Test Event gives a sample of the customer’s open window, marked as a sample, and stores nothing', async () => {
		const trigger = await messengerTrigger([eva()], { events: ['windowClosingSoon'] });
		const [event] = (await trigger.poll('manual'))!;
		expect(event).toEqual(
			expect.objectContaining({
				event: 'windowClosingSoon',
				sample: true,
				customer_id: eva(),
				messenger: expect.objectContaining({ type: 'facebook' }),
				minutes_left: 63,
			}),
		);
		expect(trigger.staticData()['node:Trigger']).toEqual({});
	});

	it('with deal events too, the customers are read for each, and the rest of the budget is split between them', async () => {
		const ids = Array.from({ length: 80 }, () =>
			env.sandbox.demoCustomer(`Watched ${Math.random()}`),
		);
		const trigger = await createTrigger(
			{ events: ['dealMoved', 'customerWrote'], customerIds: ids.join('\n') },
			env.creds(),
			2,
		);
		env.sandbox.clearRequests();
		expect(await trigger.poll()).toBeNull();
		const log = env.sandbox.requests();
		const deals = log.filter((r) => r.path.endsWith('/deals')).length;
		const messengers = log.filter((r) => r.path.endsWith('/messengers')).length;
		// 50 % of 120 is 60 requests: 30 customers' deals and 30 customers' messengers.
		expect([deals, messengers]).toEqual([30, 30]);
	});
});

/**
 * Model-based: a clock moved on by random minutes, customers writing on random messengers, polls
 * (a quarter failing midway, restarts, two in flight at once), in a seeded order. After every
 * successful poll the events must be those the model expects; over the run, no window is reported
 * Closing Soon or Closed twice, and every window that closed while watched is reported Closed.
 */
describe('Messaging CRM Trigger, messenger events, model-based', () => {
	const runModel = (seed: number, steps: number) => async () => {
		const random = prng(seed);
		const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
		// No rate-limit headers: the sandbox's clock stands still between steps while this host's runs
		// on, so its window never ends, and each poll's pacer (a new execution) takes the earlier
		// polls' requests for another client's and may wait in real time (this test took from 3 s to
		// over 120 s so). The pacer's own tests cover the limit.
		env.sandbox.rateLimit = { ...env.sandbox.rateLimit, enabled: false };
		let clock = Math.floor(Date.now() / MIN) * MIN;
		env.sandbox.now = () => clock;
		const LEAD = 60;
		const customers = Array.from({ length: 4 }, (_, i) => {
			const id = env.sandbox.demoCustomer(`Model customer ${i}`);
			for (const type of ['whatsapp', 'instagram', 'vk'])
				env.sandbox.addMessenger(id, type, `${type}-${i}`);
			return id;
		});
		const messengersOf = (id: string) => env.sandbox.store.customers.get(id)!.messengers;
		const trigger = await messengerTrigger(customers, { windowLeadMinutes: LEAD });
		type Seen = { inbound: string | null; soon?: string; closed?: string };
		const seen = new Map<string, Seen>();
		const keyOf = (id: string, type: string) => `${id} ${type}`;
		/** The events a successful poll must report now, and the model after it. */
		const expected = (baseline: boolean) => {
			const out: string[] = [];
			for (const id of customers)
				for (const m of messengersOf(id)) {
					const key = keyOf(id, m.type);
					const was = seen.get(key) ?? { inbound: null };
					const next: Seen = { inbound: m.last_inbound_at };
					if (!baseline && m.last_inbound_at && m.last_inbound_at !== was.inbound)
						out.push(`customerWrote ${key}`);
					if (m.type !== 'vk' && m.last_inbound_at) {
						const expires = new Date(Date.parse(m.last_inbound_at) + 24 * HOUR).toISOString();
						if (was.soon === expires) next.soon = expires;
						if (was.closed === expires) next.closed = expires;
						if (clock >= Date.parse(expires) && next.closed !== expires) {
							if (!baseline) out.push(`windowClosed ${key}`);
							next.closed = next.soon = expires;
						} else if (
							clock < Date.parse(expires) &&
							clock >= Date.parse(expires) - LEAD * MIN &&
							next.soon !== expires
						) {
							if (!baseline) out.push(`windowClosingSoon ${key}`);
							next.soon = expires;
						}
					}
					seen.set(key, next);
				}
			return out.sort();
		};
		const describe = (e: Record<string, unknown>) =>
			`${String(e.event)} ${keyOf(String(e.customer_id), (e.messenger as { type: string }).type)}`;
		const reportedWindows = new Map<string, number>();
		const count = (events: Array<Record<string, unknown>>) => {
			for (const e of events)
				if (e.event !== 'customerWrote') {
					const key = `${describe(e)} ${String(e.window_expires_at)}`;
					reportedWindows.set(key, (reportedWindows.get(key) ?? 0) + 1);
				}
		};
		expect(await trigger.poll()).toBeNull();
		expected(true);
		let failures = 0;
		let overlaps = 0;
		let reported = 0;
		for (let step = 0; step < steps; step++) {
			const roll = random();
			if (roll < 0.35) {
				clock += Math.floor(random() * 60) * MIN;
				continue;
			}
			if (roll < 0.42) {
				const id = pick(customers);
				const type = pick(['whatsapp', 'instagram', 'vk']);
				// A message in now (the clock's steps spread the windows out).
				messengersOf(id).find((m) => m.type === type)!.last_inbound_at = new Date(
					clock,
				).toISOString();
				continue;
			}
			if (random() < 0.3) trigger.restart();
			if (random() < 0.25) {
				failures++;
				env.sandbox.injectFault({
					path: `/customers/${pick(customers)}/messengers`,
					count: 1,
					kind: 'status',
					status: 401,
					body: { error: { code: 'unauthorized', message: 'injected', details: {} } },
				});
				await expect(trigger.poll()).rejects.toThrow(/unauthorized/);
				env.sandbox.clearFaults();
				continue;
			}
			const want = expected(false);
			let events: Array<Record<string, unknown>>;
			if (random() < 0.3) {
				overlaps++;
				const [a, b] = await Promise.all([trigger.poll(), trigger.poll()]);
				events = [...(a ?? []), ...(b ?? [])];
			} else events = (await trigger.poll()) ?? [];
			expect(events.map(describe).sort()).toEqual(want);
			count(events);
			reported += events.length;
		}
		// Every window still watched that has closed by now is reported Closed, once.
		clock += 30 * HOUR;
		const last = (await trigger.poll()) ?? [];
		expect(last.map(describe).sort()).toEqual(expected(false));
		count(last);
		expect([...reportedWindows.values()].every((n) => n === 1)).toBe(true);
		// The checks compared something: windows came near their close and closed during the run.
		const kinds = [...reportedWindows.keys()].map((key) => key.split(' ')[0]);
		console.log(
			`messenger model: ${reported} events, ${kinds.filter((k) => k === 'windowClosingSoon').length} Closing Soon, ${kinds.filter((k) => k === 'windowClosed').length} Closed, ${failures} failed polls, ${overlaps} overlapping`,
		);
		expect(kinds.filter((k) => k === 'windowClosingSoon').length).toBeGreaterThan(5);
		expect(kinds.filter((k) => k === 'windowClosed').length).toBeGreaterThan(5);
		expect(reported).toBeGreaterThan(20);
		expect(failures).toBeGreaterThan(5);
		expect(overlaps).toBeGreaterThan(5);
	};
	it(
		'600 random steps: clock moves, messages in, failed polls, restarts and overlapping polls',
		runModel(20261125, 600),
		120_000,
	);
});
