/* eslint-disable @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { INodeParameters } from 'n8n-workflow';

import { byId, useSandbox } from '../harness/fixtures';
import { createTrigger } from '../harness/triggerRuns';
import { DEMO } from '../sandbox/store';

const env = useSandbox();

const poolsTrigger = (events: string[], extra: INodeParameters = {}) =>
	createTrigger({ watch: 'pools', poolEvents: events, ...extra }, env.creds());

async function customers(n: number): Promise<string[]> {
	const ids: string[] = [];
	for (let i = 0; i < n; i++) {
		const [c] = await env.ok({
			resource: 'customer',
			operation: 'upsert',
			phone: `+1555020${String(i).padStart(4, '0')}`,
		});
		ids.push(String(c.id));
	}
	return ids;
}

describe('Messaging CRM Trigger: a poll never overlaps itself', () => {
	const slowPools = () =>
		env.sandbox.injectFault({ path: '/promo-pools', count: 1, kind: 'delay', delayMs: 400 });

	it('a tick while the last poll still runs emits nothing, changes nothing and says so in the log; the change is emitted once', async () => {
		const trigger = await poolsTrigger(['codesIssued']);
		await trigger.poll();
		env.sandbox.issueCodes(DEMO.vipPool, 2);
		slowPools();
		// The node logs through n8n's own logger, as every node context does.
		const info = jest.spyOn(Container.get(Logger), 'info').mockImplementation(() => undefined);
		const first = trigger.poll();
		try {
			const stateBefore = JSON.stringify(trigger.staticData());
			expect(await trigger.poll()).toBeNull();
			expect(JSON.stringify(trigger.staticData())).toBe(stateBefore);
			expect(info.mock.calls.map((call) => String(call[0])).join('\n')).toMatch(
				/still running; this one is skipped/,
			);
		} finally {
			// Also when a check above fails: n8n's logger is the next test's too.
			info.mockRestore();
		}
		expect((await first)!.map((e) => [e.event, e.count])).toEqual([['codesIssued', 2]]);
		// The mark is gone: the next poll runs (and finds nothing new).
		expect(await trigger.poll()).toBeNull();
		expect(env.sandbox.requests().filter((r) => r.path === '/promo-pools')).toHaveLength(3);
	});

	it('leaves no mark behind across a restart of n8n: the restored trigger polls at once', async () => {
		const trigger = await poolsTrigger(['codesIssued']);
		await trigger.poll();
		env.sandbox.issueCodes(DEMO.vipPool, 1);
		slowPools();
		const inFlight = trigger.poll();
		// n8n stops and starts again while the poll is out: static data as stored (JSON).
		trigger.restart();
		expect((await trigger.poll())!.map((e) => e.event)).toEqual(['codesIssued']);
		await inFlight;
	});
});

describe('Messaging CRM Trigger: promo pools', () => {
	it('records a baseline on the first poll and emits nothing, with one request per poll', async () => {
		const trigger = await poolsTrigger(['anyCounterChanged']);
		expect(await trigger.poll()).toBeNull();
		expect(trigger.staticData()).toHaveProperty([
			'node:Trigger',
			'state',
			'pools',
			DEMO.welcomePool,
		]);
		expect(await trigger.poll()).toBeNull();
		expect(env.sandbox.requests().filter((r) => r.path === '/promo-pools')).toHaveLength(2);
	});

	it('emits each pool event from a real change: issued, low, empty, exhausted, restocked, disabled, enabled', async () => {
		const all = [
			'codesIssued',
			'poolLow',
			'poolEmpty',
			'exhaustedRequestsRose',
			'poolRestocked',
			'poolDisabled',
			'poolEnabled',
		];
		const trigger = await poolsTrigger(all, { poolIds: [DEMO.vipPool] });
		await trigger.poll();
		env.sandbox.issueCodes(DEMO.vipPool, 3);
		expect(await trigger.poll()).toEqual([
			expect.objectContaining({
				event: 'codesIssued',
				count: 3,
				before: expect.objectContaining({ issued: 0, remaining: 10 }),
				deltas: expect.objectContaining({ issued: 3, remaining: -3 }),
			}),
		]);
		env.sandbox.issueCodes(DEMO.vipPool, 4);
		expect((await trigger.poll())!.map((e) => e.event)).toEqual(['poolLow', 'codesIssued']);
		env.sandbox.issueCodes(DEMO.vipPool, 5);
		const drained = await trigger.poll();
		expect(drained!.map((e) => [e.event, e.count])).toEqual([
			['poolEmpty', undefined],
			['codesIssued', 3],
			['exhaustedRequestsRose', 2],
		]);
		await env.ok({
			resource: 'promoCode',
			operation: 'upload',
			poolId: { __rl: true, mode: 'id', value: DEMO.vipPool },
			codes: 'R-1\nR-2\nR-3',
		});
		expect(
			(await trigger.poll())!.map((e) => [e.event, (e.deltas as { remaining: number }).remaining]),
		).toEqual([['poolRestocked', 3]]);
		await env.ok({
			resource: 'promoPool',
			operation: 'update',
			poolId: { __rl: true, mode: 'id', value: DEMO.vipPool },
			updateFields: { isEnabled: false },
		});
		expect((await trigger.poll())!.map((e) => e.event)).toEqual(['poolDisabled']);
		await env.ok({
			resource: 'promoPool',
			operation: 'update',
			poolId: { __rl: true, mode: 'id', value: DEMO.vipPool },
			updateFields: { isEnabled: true },
		});
		expect((await trigger.poll())!.map((e) => e.event)).toEqual(['poolEnabled']);
		expect(await trigger.poll()).toBeNull();
	});

	it('returns a sample in manual mode without touching the stored state', async () => {
		const trigger = await poolsTrigger(['codesIssued']);
		await trigger.poll();
		const before = trigger.staticData();
		env.sandbox.issueCodes(DEMO.welcomePool, 2);
		const sample = await trigger.poll('manual');
		expect(sample).toEqual([
			expect.objectContaining({
				event: 'codesIssued',
				sample: true,
				pool: expect.objectContaining({ id: expect.any(String) }),
			}),
		]);
		expect(trigger.staticData()).toEqual(before);
		expect((await trigger.poll())!.map((e) => e.count)).toEqual([2]);
	});

	it('loses nothing and repeats nothing across a failed poll', async () => {
		const trigger = await poolsTrigger(['codesIssued']);
		await trigger.poll();
		env.sandbox.issueCodes(DEMO.welcomePool, 2);
		env.sandbox.injectFault({
			path: '/promo-pools',
			count: 10,
			kind: 'status',
			status: 401,
			body: { error: { code: 'unauthorized', message: 'x', details: {} } },
		});
		await expect(trigger.poll()).rejects.toThrow(/unauthorized/);
		env.sandbox.clearFaults();
		env.sandbox.issueCodes(DEMO.welcomePool, 1);
		expect((await trigger.poll())!.map((e) => e.count)).toEqual([3]);
		expect(await trigger.poll()).toBeNull();
	});

	it('starts a new baseline when the events or filters change', async () => {
		const trigger = await poolsTrigger(['codesIssued']);
		await trigger.poll();
		env.sandbox.issueCodes(DEMO.welcomePool, 1);
		trigger.setParameters({ watch: 'pools', poolEvents: ['anyCounterChanged'] });
		expect(await trigger.poll()).toBeNull();
		env.sandbox.issueCodes(DEMO.welcomePool, 1);
		expect((await trigger.poll())!.map((e) => e.event)).toEqual(['anyCounterChanged']);
	});
});

describe('Messaging CRM Trigger: deals of watched customers', () => {
	it('emits created, moved (filtered by pipeline and stage codes), won and lost with the stage before and after', async () => {
		const [a, b] = await customers(2);
		const trigger = await createTrigger(
			{
				watch: 'deals',
				dealEvents: ['dealCreated', 'dealMoved', 'dealWon', 'dealLost'],
				customerIds: `${a}\n${b}`,
				pipelineId: DEMO.salesPipeline,
				stageCodes: ['proposal'],
			},
			env.creds(),
		);
		expect(await trigger.poll()).toBeNull();
		const sales = env.sandbox.store.pipelines.get(DEMO.salesPipeline)!.stages;
		await env.ok({
			resource: 'deal',
			operation: 'moveStage',
			customerId: { __rl: true, mode: 'id', value: a },
			stageBy: 'code',
			stageCode: 'qualified',
		});
		expect(await trigger.poll()).toBeNull();
		await env.ok({
			resource: 'deal',
			operation: 'moveStage',
			customerId: { __rl: true, mode: 'id', value: a },
			stageBy: 'code',
			stageCode: 'proposal',
		});
		const [onboarding] = await env.ok({
			resource: 'deal',
			operation: 'create',
			customerId: { __rl: true, mode: 'id', value: b },
			pipelineId: DEMO.onboardingPipeline,
		});
		const moved = await trigger.poll();
		expect(moved).toEqual([
			expect.objectContaining({
				event: 'dealMoved',
				customer_id: a,
				stage_before: { id: sales[1].id, code: 'qualified' },
				stage_after: { id: sales[2].id, code: 'proposal' },
				moved_at: expect.any(String),
			}),
			expect.objectContaining({
				event: 'dealCreated',
				customer_id: b,
				deal: expect.objectContaining({ id: onboarding.id }),
			}),
		]);
		await env.ok({
			resource: 'deal',
			operation: 'close',
			dealBy: 'id',
			dealId: String(onboarding.id),
			closeStatus: 'lost',
		});
		await env.ok({
			resource: 'deal',
			operation: 'close',
			dealBy: 'customer',
			customerId: { __rl: true, mode: 'id', value: a },
			pipelineId: DEMO.salesPipeline,
			closeStatus: 'won',
		});
		expect((await trigger.poll())!.map((e) => [e.event, e.customer_id])).toEqual([
			['dealWon', a],
			['dealLost', b],
		]);
		expect(await trigger.poll()).toBeNull();
	});

	it('reads watched customers in rotation within the budget, each within a bounded number of polls', async () => {
		const ids = await customers(7);
		env.sandbox.rateLimit = { ...env.sandbox.rateLimit, limit: 6, windowMs: 400 };
		const trigger = await createTrigger(
			{
				watch: 'deals',
				dealEvents: ['dealMoved'],
				customerIds: ids.join(','),
				options: { rateBudgetPercent: 50 },
			},
			env.creds(),
		);
		env.sandbox.clearRequests();
		await trigger.poll(); // learns the limit of 6 from the headers: 3 reads per poll from now on
		// Each poll reads 3 of the 7 (its budget); three polls read them all.
		const readPerPoll: string[][] = [];
		for (let i = 0; i < 3; i++) {
			env.sandbox.clearRequests();
			await trigger.poll();
			const reads = env.sandbox
				.requests()
				.filter((r) => r.method === 'GET' && r.path.endsWith('/deals') && r.status === 200);
			readPerPoll.push([...new Set(reads.map((r) => r.path))]);
		}
		expect(readPerPoll.map((paths) => paths.length)).toEqual([3, 3, 3]);
		expect(new Set(readPerPoll.flat()).size).toBe(7);
		for (const id of ids)
			await env.ok({
				resource: 'deal',
				operation: 'moveStage',
				customerId: { __rl: true, mode: 'id', value: id },
				stageBy: 'code',
				stageCode: 'proposal',
			});
		const seen: unknown[] = [];
		for (let i = 0; i < 3; i++)
			seen.push(...((await trigger.poll()) ?? []).map((e) => e.customer_id));
		expect(seen.sort()).toEqual([...ids].sort());
	});
});

describe('Messaging CRM Trigger: template approvals', () => {
	const templates = (events: string[], extra: INodeParameters = {}) =>
		createTrigger({ events, ...extra }, env.creds(), 2);
	const moderate = (name: string, status: 'APPROVED' | 'REJECTED') => {
		const template = env.sandbox.store.templates.find((t) => t.name === name);
		if (!template) throw new Error(`No template ${name}`);
		template.status = status;
	};
	const ALL = ['templateApproved', 'templateRejected', 'templateNew', 'templateStatusChanged'];

	it('baselines first, then reports a moderation once, with the status before and after', async () => {
		const trigger = await templates(ALL);
		expect(await trigger.poll()).toBeNull();
		moderate('spring_sale', 'APPROVED');
		const events = await trigger.poll();
		expect(events?.map((e) => e.event).sort()).toEqual([
			'templateApproved',
			'templateStatusChanged',
		]);
		expect(events?.[0]).toMatchObject({
			template: { name: 'spring_sale', language: 'en', status: 'APPROVED' },
			status_before: 'PENDING',
			status_after: 'APPROVED',
		});
		expect(await trigger.poll()).toBeNull();
	});

	it('a template created through the node is New (PENDING); a rejection is Rejected, not Approved', async () => {
		const trigger = await templates(['templateNew', 'templateRejected', 'templateApproved']);
		await trigger.poll();
		await env.ok({
			resource: 'template',
			operation: 'create',
			agentId: DEMO.salesChat,
			name: 'restock_notice',
			category: 'UTILITY',
			language: 'en',
			componentsInput: 'fields',
			bodyText: 'Hi {{1}}, your code is back.',
		});
		expect(await trigger.poll()).toEqual([
			expect.objectContaining({
				event: 'templateNew',
				template: expect.objectContaining({ name: 'restock_notice', status: 'PENDING' }),
				status_before: null,
			}),
		]);
		moderate('restock_notice', 'REJECTED');
		expect((await trigger.poll())?.map((e) => e.event)).toEqual(['templateRejected']);
	});

	it('a template created and approved between two polls is New and Approved at once', async () => {
		const trigger = await templates(['templateNew', 'templateApproved']);
		await trigger.poll();
		env.sandbox.store.templates.push({
			...env.sandbox.store.templates[0],
			id: 'between-polls',
			name: 'quick_one',
			status: 'APPROVED',
		});
		expect((await trigger.poll())?.map((e) => [e.event, e.status_before])).toEqual([
			['templateNew', null],
			['templateApproved', null],
		]);
	});

	it('two agents with a template of the same name and language: each kept apart, nothing reported again and again', async () => {
		const trigger = await templates(ALL);
		const twin = env.sandbox.store.templates.find((t) => t.name === 'spring_sale')!;
		env.sandbox.store.templates.push({
			...twin,
			id: 'twin',
			agent_id: DEMO.supportBot,
			status: 'APPROVED',
		});
		await trigger.poll();
		expect(await trigger.poll()).toBeNull();
		moderate('spring_sale', 'REJECTED');
		expect((await trigger.poll())?.map((e) => e.event).sort()).toEqual([
			'templateRejected',
			'templateStatusChanged',
		]);
		expect(await trigger.poll()).toBeNull();
	});

	it('a failed poll emits nothing and changes nothing; a restart keeps the state; the next poll reports once', async () => {
		const trigger = await templates(['templateApproved']);
		await trigger.poll();
		moderate('spring_sale', 'APPROVED');
		env.sandbox.injectFault({ path: '/bizchat/templates', count: 10, kind: 'status', status: 500 });
		const before = JSON.stringify(trigger.staticData());
		await expect(trigger.poll()).rejects.toThrow();
		expect(JSON.stringify(trigger.staticData())).toBe(before);
		env.sandbox.clearFaults();
		trigger.restart();
		expect((await trigger.poll())?.map((e) => e.event)).toEqual(['templateApproved']);
		expect(await trigger.poll()).toBeNull();
	});

	it('Fetch Test Event gives an approved template for Template Approved, marked as a sample, and stores nothing', async () => {
		const trigger = await templates(['templateApproved']);
		const [event] = (await trigger.poll('manual')) ?? [];
		expect(event).toMatchObject({
			event: 'templateApproved',
			sample: true,
			template: { status: 'APPROVED' },
			status_after: 'APPROVED',
		});
		expect(String(event.sample_template)).toMatch(/^\w+ \(en\): APPROVED$/);
		expect(trigger.staticData()['node:Trigger']).toEqual({});
	});

	it('one trigger with template and pool events reads both, one request each per poll', async () => {
		const trigger = await templates(['templateApproved', 'codesIssued']);
		await trigger.poll();
		env.sandbox.clearRequests();
		moderate('spring_sale', 'APPROVED');
		env.sandbox.issueCodes(DEMO.vipPool, 1);
		expect((await trigger.poll())?.map((e) => e.event).sort()).toEqual([
			'codesIssued',
			'templateApproved',
		]);
		expect(
			env.sandbox
				.requests()
				.map((r) => `${r.method} ${r.path}`)
				.sort(),
		).toEqual(['GET /bizchat/templates', 'GET /promo-pools']);
	});
});

describe('Messaging CRM Trigger: each issued code, with its customer', () => {
	const codesTrigger = (extra: INodeParameters = {}) =>
		createTrigger({ events: ['codeIssuedToCustomer'], ...extra }, env.creds(), 2);
	const codeReads = () =>
		env.sandbox
			.requests()
			.filter((r) => r.method === 'GET' && /^\/promo-pools\/[^/]+\/codes/.test(r.path)).length;
	const uploadCodes = async (poolId: string, prefix: string, count: number) =>
		await env.ok({
			resource: 'promoCode',
			operation: 'upload',
			poolId: byId(poolId),
			codesFrom: 'list',
			codes: Array.from({ length: count }, (_, i) => `${prefix}-${i}`).join('\n'),
		});
	const issuedRows = (poolId: string) =>
		env.sandbox.store.promoPools.get(poolId)!.rows.filter((r) => r.issued_at && !r.revoked_at);

	it('one item per newly issued code, with the code, the customer, when, and the pool; once', async () => {
		const trigger = await codesTrigger();
		expect(await trigger.poll()).toBeNull();
		const { outcomes } = env.sandbox.issueCodes(DEMO.vipPool, 3)!;
		const events = (await trigger.poll()) ?? [];
		expect(events.map((e) => [e.event, e.code, e.customer_id])).toEqual(
			outcomes.map((o) => ['codeIssuedToCustomer', o.code, o.customer_id]),
		);
		expect(events[0]).toMatchObject({ pool: { id: DEMO.vipPool } });
		expect(typeof events[0].issued_at).toBe('string');
		expect(await trigger.poll()).toBeNull();
	});

	it('a revoke of earlier issued codes between two polls shifts the list: nothing is missed or repeated', async () => {
		const trigger = await codesTrigger({ poolIds: [DEMO.welcomePool] });
		await trigger.poll();
		env.sandbox.issueCodes(DEMO.welcomePool, 5);
		expect((await trigger.poll())?.length).toBe(5);
		// Two earlier issued codes revoked and two new ones issued: the issued count stays put.
		const earlier = issuedRows(DEMO.welcomePool)
			.slice(0, 2)
			.map((r) => r.code);
		await env.ok({
			resource: 'promoCode',
			operation: 'revoke',
			poolId: byId(DEMO.welcomePool),
			codesFrom: 'list',
			codes: earlier.join('\n'),
		});
		const { outcomes } = env.sandbox.issueCodes(DEMO.welcomePool, 2)!;
		const events = (await trigger.poll()) ?? [];
		expect(events.map((e) => e.code)).toEqual(outcomes.map((o) => o.code));
		expect(await trigger.poll()).toBeNull();
	});

	it.each([
		[1, 1],
		[100, 1],
		[1_200, 3],
		[10_000, 21],
	])('%i new codes: %i page(s) of 500, in one poll within the budget', async (count, pages) => {
		const pool = DEMO.welcomePool;
		await uploadCodes(pool, 'BULK', count);
		const trigger = await codesTrigger({ poolIds: [pool] });
		await trigger.poll();
		env.sandbox.clearRequests();
		env.sandbox.issueCodes(pool, count);
		const events = (await trigger.poll()) ?? [];
		expect(events.map((e) => e.code)).toEqual(
			issuedRows(pool)
				.slice(-count)
				.map((r) => r.code),
		);
		expect(codeReads()).toBe(pages);
		// Within the poll's budget: half of the demo key's 120 a minute.
		expect(env.sandbox.requests().length).toBeLessThanOrEqual(60);
	});

	it('more new codes than the budget allows: read on by the next polls, none skipped, none twice', async () => {
		// Budget 2 (half of 4): the pools, then one page of codes; windows of a second keep it quick.
		env.sandbox.rateLimit = { ...env.sandbox.rateLimit, limit: 4, windowMs: 1_000 };
		const pool = DEMO.welcomePool;
		await uploadCodes(pool, 'MANY', 1_200);
		const trigger = await codesTrigger({ poolIds: [pool] });
		await trigger.poll();
		await trigger.poll(); // learns the limit from the headers
		env.sandbox.issueCodes(pool, 1_200);
		const seen: string[] = [];
		for (let poll = 0; poll < 5; poll++) {
			env.sandbox.clearRequests();
			seen.push(...((await trigger.poll()) ?? []).map((e) => String(e.code)));
			expect(codeReads()).toBeLessThanOrEqual(1);
		}
		expect(seen).toEqual(
			issuedRows(pool)
				.slice(-1_200)
				.map((r) => r.code),
		);
	});
});
