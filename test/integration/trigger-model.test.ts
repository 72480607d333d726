/**
 * Model-based: random mutations of the sandbox and polls (some failing), in a seeded order. After
 * every successful poll, the events must equal the changes since the last successful poll, taken
 * from the sandbox's own state; in total, the issued counts must add up to the codes issued.
 */
import { useSandbox } from '../harness/fixtures';
import { prng } from '../harness/prng';
import { createTrigger } from '../harness/triggerRuns';
import { createPool, upload } from '../sandbox/promoPools';
import { DEMO } from '../sandbox/store';

const env = useSandbox();

type PoolTruth = Record<
	string,
	{ issued: number; remaining: number; enabled: boolean; exhausted: number }
>;
type DealTruth = Record<string, { customer: string; stage: string; status: string }>;
/** Each template's status, by name and language (as the trigger keys them). */
type TemplateTruth = Record<string, string>;

function runModel(
	seed: number,
	steps: number,
	options: { restarts?: boolean; concurrent?: boolean; overlap?: boolean } = {},
) {
	return async () => {
		const random = prng(seed);
		const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
		const store = env.sandbox.store;
		// Hundreds of polls: the rate limit is not what is under test here.
		env.sandbox.rateLimit = { ...env.sandbox.rateLimit, limit: 1_000_000 };
		const at = () => new Date().toISOString();
		const extra = createPool(
			store,
			{ agent_id: DEMO.salesChat, title: 'Model pool', low_threshold_min: 2 },
			at(),
		);
		upload(extra, { codes: Array.from({ length: 30 }, (_, i) => `M-${i}`) });
		const poolIds = [DEMO.welcomePool, DEMO.vipPool, extra.id];
		const customerIds: string[] = [];
		for (let i = 0; i < 5; i++) {
			const [c] = await env.ok({
				resource: 'customer',
				operation: 'upsert',
				phone: `+1555030${String(i).padStart(4, '0')}`,
			});
			customerIds.push(String(c.id));
		}
		const pools = await createTrigger(
			{
				watch: 'pools',
				poolEvents: [
					'codesIssued',
					'poolRestocked',
					'poolDisabled',
					'poolEnabled',
					'exhaustedRequestsRose',
				],
			},
			env.creds(),
		);
		const deals = await createTrigger(
			{
				watch: 'deals',
				dealEvents: ['dealCreated', 'dealMoved', 'dealWon', 'dealLost'],
				customerIds: customerIds.join('\n'),
			},
			env.creds(),
		);
		const templates = await createTrigger(
			{
				events: ['templateApproved', 'templateRejected', 'templateNew', 'templateStatusChanged'],
			},
			env.creds(),
			2,
		);
		const triggers = { pools, deals, templates };

		const poolTruth = (): PoolTruth => {
			const out: PoolTruth = {};
			for (const id of poolIds) {
				const p = store.promoPools.get(id)!;
				const live = p.rows.filter((r) => !r.revoked_at);
				const issued = live.filter((r) => r.issued_at).length;
				out[id] = {
					issued,
					remaining: live.length - issued,
					enabled: p.is_enabled,
					exhausted: p.exhausted_requests,
				};
			}
			return out;
		};
		const dealTruth = (): DealTruth => {
			const out: DealTruth = {};
			for (const d of store.deals.values())
				if (customerIds.includes(d.customer_id))
					out[d.id] = { customer: d.customer_id, stage: d.stage_id, status: d.status };
			return out;
		};
		const templateTruth = (): TemplateTruth =>
			Object.fromEntries(store.templates.map((t) => [`${t.name}|${t.language}`, t.status]));
		const expectedTemplateEvents = (a: TemplateTruth, b: TemplateTruth) => {
			const out: string[] = [];
			for (const [key, status] of Object.entries(b)) {
				if (!(key in a)) out.push(`templateNew ${key}`);
				else if (a[key] !== status) out.push(`templateStatusChanged ${key}`);
				// Approved or Rejected whenever it is so now and was not, new ones included.
				if (a[key] !== status && status === 'APPROVED') out.push(`templateApproved ${key}`);
				if (a[key] !== status && status === 'REJECTED') out.push(`templateRejected ${key}`);
			}
			return out.sort();
		};
		const describeTemplate = (e: Record<string, unknown>) => {
			const t = e.template as { name: string; language: string };
			return `${String(e.event)} ${t.name}|${t.language}`;
		};
		const expectedPoolEvents = (a: PoolTruth, b: PoolTruth) => {
			const out: string[] = [];
			for (const id of poolIds) {
				if (b[id].issued > a[id].issued)
					out.push(`codesIssued ${id} ${b[id].issued - a[id].issued}`);
				if (b[id].remaining > a[id].remaining) out.push(`poolRestocked ${id}`);
				if (a[id].enabled && !b[id].enabled) out.push(`poolDisabled ${id}`);
				if (!a[id].enabled && b[id].enabled) out.push(`poolEnabled ${id}`);
				if (b[id].exhausted > a[id].exhausted) out.push(`exhaustedRequestsRose ${id}`);
			}
			return out.sort();
		};
		const expectedDealEvents = (a: DealTruth, b: DealTruth) => {
			const out: string[] = [];
			for (const [id, deal] of Object.entries(b)) {
				const before = a[id];
				if (!before) out.push(`dealCreated ${id}`);
				else if (before.stage !== deal.stage && before.status === 'active')
					out.push(`dealMoved ${id}`);
				if (deal.status !== 'active' && before?.status !== deal.status)
					out.push(`${deal.status === 'won' ? 'dealWon' : 'dealLost'} ${id}`);
			}
			return out.sort();
		};
		const describePool = (e: Record<string, unknown>) => {
			const pool = e.pool as { id: string };
			return e.event === 'codesIssued'
				? `codesIssued ${pool.id} ${String(e.count)}`
				: `${String(e.event)} ${pool.id}`;
		};

		await pools.poll();
		await deals.poll();
		await templates.poll();
		let poolsSeen = poolTruth();
		let dealsSeen = dealTruth();
		let templatesSeen = templateTruth();
		let newTemplates = 0;
		let templateEvents = 0;
		let issuedByMutations = 0;
		let issuedReported = 0;
		const dealEventKeys = new Set<string>();
		let failures = 0;
		let polls = 0;
		let overlaps = 0;

		const mutate = async () => {
			const kind = pick([
				'issue',
				'issue',
				'upload',
				'toggle',
				'move',
				'move',
				'close',
				'create',
				'moderate',
				'template',
			]);
			const poolId = pick(poolIds);
			const customerId = pick(customerIds);
			if (kind === 'moderate') {
				pick(store.templates).status = pick(['APPROVED', 'REJECTED', 'PENDING'] as const);
			} else if (kind === 'template') {
				newTemplates++;
				store.templates.push({
					...store.templates[0],
					id: `model-template-${newTemplates}`,
					name: `model_${newTemplates}`,
					status: 'PENDING',
				});
			} else if (kind === 'issue') {
				const before = poolTruth()[poolId].issued;
				env.sandbox.issueCodes(poolId, 1 + Math.floor(random() * 4));
				issuedByMutations += poolTruth()[poolId].issued - before;
			} else if (kind === 'upload') {
				upload(store.promoPools.get(poolId)!, {
					codes: Array.from(
						{ length: 1 + Math.floor(random() * 5) },
						() => `U-${Math.floor(random() * 1e9)}`,
					),
				});
			} else if (kind === 'toggle') {
				const p = store.promoPools.get(poolId)!;
				p.is_enabled = !p.is_enabled;
			} else {
				const active = store.activeDeals(customerId);
				if (kind === 'create' && !active.some((d) => d.pipeline_id === DEMO.onboardingPipeline)) {
					const pipeline = store.pipelines.get(DEMO.onboardingPipeline)!;
					const { createDeal } = await import('../sandbox/crm');
					createDeal(store, customerId, pipeline, pipeline.stages[0], null, at());
				} else if (active.length && kind === 'move') {
					const deal = pick(active);
					deal.stage_id = pick(store.pipelines.get(deal.pipeline_id)!.stages).id;
					deal.moved_at = at();
					deal.order = store.tick();
				} else if (active.length && kind === 'close') {
					pick(active).status = random() < 0.5 ? 'won' : 'lost';
				}
			}
		};
		// Reported stage of each deal, in order, to check the concurrent variant as a whole.
		const reported = new Map<string, string[]>();
		if (options.concurrent) {
			// Changes land between the reads of one poll (between pools and deals, and between customers).
			env.sandbox.onRequest = (_method, path) => {
				if (!path.endsWith('/deals') && path !== '/promo-pools') return;
				if (random() < 0.3) {
					const poolId = pick(poolIds);
					const before = poolTruth()[poolId].issued;
					env.sandbox.issueCodes(poolId, 1);
					issuedByMutations += poolTruth()[poolId].issued - before;
				}
				if (random() < 0.3) {
					const active = store.activeDeals(pick(customerIds));
					if (active.length) {
						const deal = pick(active);
						deal.stage_id = pick(store.pipelines.get(deal.pipeline_id)!.stages).id;
						deal.moved_at = new Date().toISOString();
						deal.order = store.tick();
					}
				}
			};
		}
		for (let step = 0; step < steps; step++) {
			const roll = random();
			if (roll < 0.6) {
				await mutate();
				continue;
			}
			// A poll, sometimes failing midway.
			polls++;
			if (options.restarts && random() < 0.3) {
				pools.restart();
				deals.restart();
				templates.restart();
			}
			const fail = random() < 0.25;
			const target = pick(['pools', 'deals', 'templates'] as const);
			if (fail) {
				failures++;
				const path =
					target === 'pools'
						? '/promo-pools'
						: target === 'templates'
							? '/bizchat/templates'
							: `/customers/${customerIds[1 + Math.floor(random() * 4)]}/deals`;
				env.sandbox.injectFault({
					path,
					count: 1,
					kind: 'status',
					status: 401,
					body: { error: { code: 'unauthorized', message: 'injected', details: {} } },
				});
				await expect(triggers[target].poll()).rejects.toThrow(/unauthorized/);
				env.sandbox.clearFaults();
				continue;
			}
			if (options.concurrent) {
				const events = (await triggers[target].poll()) ?? [];
				issuedReported += events
					.filter((e) => e.event === 'codesIssued')
					.reduce((n, e) => n + Number(e.count), 0);
				for (const e of events) {
					if (e.event !== 'dealMoved' && e.event !== 'dealCreated') continue;
					const id = String((e.deal as { id: string }).id);
					reported.set(id, [
						...(reported.get(id) ?? []),
						String((e.stage_after as { id: string }).id),
					]);
					const key = `${String(e.event)} ${id} ${String(e.moved_at)} ${JSON.stringify(e.stage_after)}`;
					expect(dealEventKeys.has(key)).toBe(false);
					dealEventKeys.add(key);
				}
				continue;
			}
			// Two polls of one trigger in flight at once (a tick while the last poll still runs).
			const overlap = options.overlap === true && random() < 0.4;
			const poll = async (trigger: typeof pools) => {
				if (!overlap) return (await trigger.poll()) ?? [];
				overlaps++;
				const [first, second] = await Promise.all([trigger.poll(), trigger.poll()]);
				return [...(first ?? []), ...(second ?? [])];
			};
			if (target === 'pools') {
				const truth = poolTruth();
				const events = await poll(pools);
				expect(events.map(describePool).sort()).toEqual(expectedPoolEvents(poolsSeen, truth));
				issuedReported += events
					.filter((e) => e.event === 'codesIssued')
					.reduce((n, e) => n + Number(e.count), 0);
				poolsSeen = truth;
			} else if (target === 'templates') {
				const truth = templateTruth();
				const events = await poll(templates);
				expect(events.map(describeTemplate).sort()).toEqual(
					expectedTemplateEvents(templatesSeen, truth),
				);
				templateEvents += events.length;
				templatesSeen = truth;
			} else {
				const truth = dealTruth();
				const events = await poll(deals);
				const keys = events.map(
					(e) => `${String(e.event)} ${String((e.deal as { id: string }).id)}`,
				);
				expect([...keys].sort()).toEqual(expectedDealEvents(dealsSeen, truth));
				for (const e of events) {
					const key = `${String(e.event)} ${String((e.deal as { id: string }).id)} ${String(e.moved_at)} ${JSON.stringify(e.stage_after)}`;
					expect(dealEventKeys.has(key)).toBe(false);
					dealEventKeys.add(key);
				}
				dealsSeen = truth;
			}
		}
		if (options.concurrent) {
			env.sandbox.onRequest = undefined;
			for (const trigger of [pools, deals]) {
				for (const e of (await trigger.poll()) ?? []) {
					if (e.event === 'codesIssued') issuedReported += Number(e.count);
					if (e.event === 'dealMoved' || e.event === 'dealCreated') {
						const id = String((e.deal as { id: string }).id);
						reported.set(id, [
							...(reported.get(id) ?? []),
							String((e.stage_after as { id: string }).id),
						]);
					}
				}
			}
			// Nothing lost: every deal that moved since the baseline was last reported at its final stage.
			let moved = 0;
			for (const [id, deal] of Object.entries(dealTruth())) {
				const was = dealsSeen[id];
				if (deal.status !== 'active') continue;
				if (!was || was.stage !== deal.stage) {
					moved++;
					expect([id, reported.get(id)?.at(-1)]).toEqual([id, deal.stage]);
				}
			}
			// The check above compared something: deals did move during the run.
			expect(moved).toBeGreaterThan(0);
			expect(issuedReported).toBe(issuedByMutations);
			expect(failures).toBeGreaterThan(5);
			return;
		}
		// A last successful poll of both settles everything.
		const finalPools = poolTruth();
		const last = (await pools.poll()) ?? [];
		expect(last.map(describePool).sort()).toEqual(expectedPoolEvents(poolsSeen, finalPools));
		issuedReported += last
			.filter((e) => e.event === 'codesIssued')
			.reduce((n, e) => n + Number(e.count), 0);
		expect(issuedReported).toBe(issuedByMutations);
		const finalTemplates = templateTruth();
		const lastTemplates = (await templates.poll()) ?? [];
		expect(lastTemplates.map(describeTemplate).sort()).toEqual(
			expectedTemplateEvents(templatesSeen, finalTemplates),
		);
		expect(newTemplates).toBeGreaterThan(0);
		// The template checks compared something: moderations were reported during the run.
		expect(templateEvents).toBeGreaterThan(5);
		expect(failures).toBeGreaterThan(5);
		expect(polls).toBeGreaterThan(50);
		if (options.overlap) expect(overlaps).toBeGreaterThan(10);
	};
}

describe('Messaging CRM Trigger, model-based', () => {
	it(
		'300 random steps with random poll failures: events equal the changes, none twice, none missing',
		runModel(20261122, 300),
		120_000,
	);
	it(
		'the same with restarts: static data serialized and restored between polls as n8n does',
		runModel(7, 300, { restarts: true }),
		120_000,
	);
	it(
		'with polls that overlap (a tick while the last poll still runs): every change reported once',
		runModel(23, 300, { overlap: true }),
		120_000,
	);
	it(
		'with restarts and changes landing between the reads of a poll: every change reported once, at its final state',
		runModel(11, 300, { restarts: true, concurrent: true }),
		120_000,
	);
});
