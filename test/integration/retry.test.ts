/**
 * What a repeat does, through n8n's engine: n8n's Retry of a failed execution (a new execution ID,
 * the same input items, mode "retry"), a new event, a deliberate repeat, Retry On Fail.
 * Acceptance is the sandbox's state: messages per customer, customers.
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { useSandbox } from '../harness/fixtures';
import { createDeal } from '../sandbox/crm';
import { DEMO } from '../sandbox/store';

const env = useSandbox();

/** N customers with a bot messenger; the send's input items name them as a form or a sheet would. */
function customers(count: number): { ids: string[]; items: INodeExecutionData[] } {
	const ids = Array.from({ length: count }, (_, i) =>
		env.sandbox.demoCustomer(`Retry customer ${i + 1}`),
	);
	return { ids, items: ids.map((id, i) => ({ json: { customerId: id, row: i + 1 } })) };
}

const sendEach = (fields: INodeParameters = {}): INodeParameters => ({
	resource: 'message',
	operation: 'send',
	customerId: { __rl: true, mode: 'id', value: '={{ $json.customerId }}' },
	messengerType: 'telegram',
	text: 'Your order has shipped',
	...fields,
});

/** Sent messages per customer, in the order of the ids. */
const sentTo = (ids: string[]) => env.sandbox.sentTo(ids);

/** The next `count` sends to this customer are refused with `reason` (a final refusal). */
const refuse = (customerId: string, reason = 'channel_unavailable', count = 1) =>
	env.sandbox.store.sendFailures.set(
		customerId,
		Array.from({ length: count }, () => reason),
	);

describe("n8n's Retry of a failed execution", () => {
	it('a run of 6 sends that stops at item 4, retried after the cause is fixed: every customer messaged exactly once', async () => {
		const { ids, items } = customers(6);
		refuse(ids[3]);
		const first = await env.run(sendEach(), { items, executionId: 'exec-original' });
		expect(first.error?.message).toMatch(/^channel_unavailable: /);
		expect(sentTo(ids)).toEqual([1, 1, 1, 0, 0, 0]);
		// The operator reconnects the channel (nothing refused any more) and presses Retry.
		const retried = await env.run(sendEach(), {
			items,
			executionId: 'exec-retry-1',
			mode: 'retry',
		});
		expect(retried.error).toBeUndefined();
		expect(sentTo(ids)).toEqual([1, 1, 1, 1, 1, 1]);
		// The first three came back as the API's stored answers, marked so.
		expect(retried.items.map((i) => i.json.replayed === true)).toEqual([
			true,
			true,
			true,
			false,
			false,
			false,
		]);
		expect(retried.items.map((i) => i.pairedItem)).toEqual(items.map((_, item) => ({ item })));
	});

	it('retried before the cause is fixed, it fails again at the same item and sends nothing twice; the next Retry gets through', async () => {
		const { ids, items } = customers(3);
		refuse(ids[1], 'channel_unavailable', 2);
		expect((await env.run(sendEach(), { items, executionId: 'e1' })).error?.message).toMatch(
			/^channel_unavailable/,
		);
		expect(
			(await env.run(sendEach(), { items, executionId: 'e2', mode: 'retry' })).error?.message,
		).toMatch(/^channel_unavailable/);
		expect(sentTo(ids)).toEqual([1, 0, 0]);
		expect(
			(await env.run(sendEach(), { items, executionId: 'e3', mode: 'retry' })).error,
		).toBeUndefined();
		expect(sentTo(ids)).toEqual([1, 1, 1]);
	});

	it("a re-run that is not n8n's Retry (Execute workflow in the editor) sends it too: a refusal delivered nothing", async () => {
		const { ids, items } = customers(2);
		refuse(ids[0]);
		await env.run(sendEach(), { items, executionId: 'm1' });
		const again = await env.run(sendEach(), { items, executionId: 'm2' });
		expect(again.error).toBeUndefined();
		expect(sentTo(ids)).toEqual([1, 1]);
	});

	it('a workflow of upserts, retried: no second customer, the original answers returned', async () => {
		const items = Array.from({ length: 4 }, (_, i) => ({ json: { phone: `+1555077000${i}` } }));
		const upsert: INodeParameters = {
			resource: 'customer',
			operation: 'upsert',
			phone: '={{ $json.phone }}',
			email: '={{ $json.phone === "+15550770002" ? "not-an-email" : "" }}',
		};
		const first = await env.run(upsert, { items, executionId: 'u1' });
		expect(first.error?.message).toMatch(/ \[item 3\]$/);
		const before = env.sandbox.store.customers.size;
		const fixed: INodeParameters = { ...upsert, email: '' };
		const retried = await env.run(fixed, { items, executionId: 'u2', mode: 'retry' });
		expect(retried.error).toBeUndefined();
		expect(env.sandbox.store.customers.size).toBe(before + 2);
		expect(retried.items.map((i) => i.json.created)).toEqual([true, true, true, true]);
		const posts = env.sandbox
			.requests()
			.filter((r) => r.method === 'POST' && r.path === '/customers');
		expect(posts.map((r) => r.replayed === true)).toEqual([false, false, true, true, false, false]);
	});
});

// The node run on its own (no trigger before it), so the request alone keys: with a trigger, the
// event counts too (event.test.ts).
describe('a node run on its own: another request, a deliberate repeat', () => {
	it('another message sends; the same message within 24 hours does not (no trigger: nothing tells two events apart)', async () => {
		const { ids } = customers(1);
		const perOrder = sendEach({ text: '=Your order {{ $json.orderId }} has shipped' });
		await env.ok(perOrder, [{ json: { customerId: ids[0], orderId: 'A-1' } }]);
		await env.ok(perOrder, [{ json: { customerId: ids[0], orderId: 'A-2' } }]);
		expect(sentTo(ids)).toEqual([2]);
		await env.ok(sendEach(), [{ json: { customerId: ids[0], orderId: 'A-1' } }]);
		const [same] = await env.ok(sendEach(), [{ json: { customerId: ids[0], orderId: 'A-2' } }]);
		expect(same.replayed).toBe(true);
		expect(sentTo(ids)).toEqual([3]);
	});

	it('a re-run whose earlier nodes answer differently the second time (Open Conversation: created, then not) sends nothing twice', async () => {
		const { ids } = customers(1);
		// What an Open Conversation before the send passes on: the first run creates the dialog,
		// a re-run of the same event finds it.
		await env.ok(sendEach(), [{ json: { customerId: ids[0], created: true } }]);
		const [again] = await env.ok(sendEach(), [{ json: { customerId: ids[0], created: false } }]);
		expect(again.replayed).toBe(true);
		expect(sentTo(ids)).toEqual([1]);
	});

	it('an identical repeat within 24 hours returns the first answer, marked replayed; Every Execution Sends sends it again', async () => {
		const { ids, items } = customers(1);
		await env.ok(sendEach(), items);
		const [repeat] = await env.ok(sendEach(), items);
		expect(repeat.replayed).toBe(true);
		expect(sentTo(ids)).toEqual([1]);
		await env.ok(sendEach({ options: { repeatProtection: 'execution' } }), items);
		await env.ok(sendEach({ options: { repeatProtection: 'execution' } }), items);
		expect(sentTo(ids)).toEqual([3]);
	});

	it("with Every Execution Sends, n8n's Retry sends again what had gone through (the old behaviour, by choice)", async () => {
		const { ids, items } = customers(2);
		refuse(ids[1]);
		const fields = { options: { repeatProtection: 'execution' } };
		await env.run(sendEach(fields), { items, executionId: 'x1' });
		await env.run(sendEach(fields), { items, executionId: 'x2', mode: 'retry' });
		expect(sentTo(ids)).toEqual([2, 1]);
	});
});

describe("n8n's Retry On Fail and the transport's retries", () => {
	it('multiply to at most 3 × 5 attempts per request, and a send still lands once', async () => {
		const { ids, items } = customers(1);
		// Every attempt of the first two node tries fails (5 each: 1 + 4 transport retries); the third gets through.
		env.sandbox.injectFault({
			path: `/customers/${ids[0]}/messages`,
			count: 12,
			kind: 'html',
			status: 502,
		});
		const run = await env.run(sendEach(), {
			items,
			node: { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
		});
		expect(run.error).toBeUndefined();
		const attempts = env.sandbox.requests().filter((r) => r.path.endsWith('/messages'));
		// The 12 faults take two node tries of 5 attempts each (1 + 4 transport retries) and the
		// third try's first two; its third attempt gets through.
		expect(attempts).toHaveLength(2 * 5 + 3);
		expect(new Set(attempts.map((r) => r.idempotencyKey)).size).toBe(1);
		expect(sentTo(ids)).toEqual([1]);
	}, 60_000);
});

describe("every other write, run again as n8n's Retry runs it", () => {
	/** The parts of the company's state a write can change; volatile stamps left out. */
	const state = () => {
		const s = env.sandbox.store;
		return {
			customers: [...s.customers.values()].map((c) => ({
				id: c.id,
				merged_into: c.merged_into,
				variables: [...c.variables.values()].map((v) => [v.name, v.value, v.value_list]),
			})),
			deals: [...s.deals.values()].map((d) => [
				d.id,
				d.customer_id,
				d.pipeline_id,
				d.stage_id,
				d.status,
			]),
			conversations: [...s.conversations.values()].map((c) => [c.id, c.customer_id, c.status]),
			messages: s.messages.size,
			templates: s.templates.map((t) => [t.name, t.language, t.status]),
			codes: [...s.promoPools.values()].map((p) =>
				p.rows.map((r) => [r.code, r.revoked_at !== null]),
			),
		};
	};

	type Case = {
		name: string;
		parameters: (ids: string[]) => INodeParameters;
		says?: (json: Record<string, unknown>) => void;
	};
	const cases: Case[] = [
		{
			name: 'Deal Create (the active deal now exists: returned, created false)',
			parameters: (ids) => ({
				resource: 'deal',
				operation: 'create',
				customerId: { __rl: true, mode: 'id', value: ids[1] },
			}),
			says: (json) => expect(json.created).toBe(false),
		},
		{
			name: 'Deal Close, the same outcome again',
			parameters: (ids) => ({
				resource: 'deal',
				operation: 'close',
				customerId: { __rl: true, mode: 'id', value: ids[0] },
				pipelineId: DEMO.salesPipeline,
				dealBy: 'id',
				dealId: dealOf(ids[0]),
				closeStatus: 'won',
			}),
		},
		{
			name: 'Template Create (the name now exists: returned, created false)',
			parameters: () => ({
				resource: 'template',
				operation: 'create',
				agentId: DEMO.salesChat,
				name: 'retry_notice',
				language: 'en',
				bodyText: 'Hello {{1}}',
			}),
			says: (json) =>
				expect(json).toMatchObject({ name: 'retry_notice', status: 'PENDING', created: false }),
		},
		{
			name: 'Conversation Open',
			parameters: (ids) => ({
				resource: 'conversation',
				operation: 'open',
				customerId: { __rl: true, mode: 'id', value: ids[0] },
				agentId: DEMO.supportBot,
			}),
		},
		{
			name: 'Deal Move to Stage',
			parameters: (ids) => ({
				resource: 'deal',
				operation: 'moveStage',
				customerId: { __rl: true, mode: 'id', value: ids[0] },
				stageCode: 'proposal',
			}),
		},
		{
			name: 'Variable Set, append',
			parameters: (ids) => ({
				resource: 'variable',
				operation: 'set',
				customerId: { __rl: true, mode: 'id', value: ids[0] },
				variablesUi: {
					variable: [{ name: 'tags', value: 'vip,early', isList: true, mode: 'append' }],
				},
			}),
		},
		{
			name: 'Variable Set, remove',
			parameters: (ids) => ({
				resource: 'variable',
				operation: 'set',
				customerId: { __rl: true, mode: 'id', value: ids[0] },
				variablesUi: { variable: [{ name: 'tags', value: 'seed', isList: true, mode: 'remove' }] },
			}),
		},
		{
			name: 'Customer Merge (already merged)',
			parameters: (ids) => ({
				resource: 'customer',
				operation: 'merge',
				customerId: { __rl: true, mode: 'id', value: ids[0] },
				donorId: { __rl: true, mode: 'id', value: ids[2] },
			}),
			says: (json) => expect(json.already_merged).toBe(true),
		},
		{
			name: 'Promo Code Upload (accepts 0)',
			parameters: () => ({
				resource: 'promoCode',
				operation: 'upload',
				poolId: { __rl: true, mode: 'id', value: DEMO.welcomePool },
				codes: 'RETRY-1\nRETRY-2',
			}),
			says: (json) => expect(json.accepted).toBe(0),
		},
		{
			name: 'Promo Code Revoke (already revoked)',
			parameters: () => ({
				resource: 'promoCode',
				operation: 'revoke',
				poolId: { __rl: true, mode: 'id', value: DEMO.welcomePool },
				codes: 'WELCOME-049\nWELCOME-050',
			}),
			says: (json) => expect(json.already_revoked).toBe(2),
		},
	];

	let dealOf: (customerId: string) => string;

	it.each(cases)(
		'$name: the second run succeeds and leaves the same state',
		async ({ parameters, says }) => {
			const { ids } = customers(3);
			const pipeline = env.sandbox.store.defaultPipeline()!;
			createDeal(
				env.sandbox.store,
				ids[0],
				pipeline,
				pipeline.stages[0],
				null,
				new Date().toISOString(),
			);
			const tags = env.sandbox.store.customers.get(ids[0])!;
			tags.variables.set('tags', {
				name: 'tags',
				type: 'text',
				is_list: true,
				value: 'seed',
				value_list: ['seed'],
				group_name: null,
				updated_at: new Date().toISOString(),
			});
			dealOf = (customerId) =>
				[...env.sandbox.store.deals.values()].find((d) => d.customer_id === customerId)!.id;
			const items = [{ json: { row: 1 } }];
			const first = await env.run(parameters(ids), { items, executionId: 'w1' });
			expect(first.error).toBeUndefined();
			const after = state();
			const again = await env.run(parameters(ids), { items, executionId: 'w2', mode: 'retry' });
			expect(again.error).toBeUndefined();
			expect(state()).toEqual(after);
			says?.(again.items[0].json as Record<string, unknown>);
		},
	);

	it('Deal Create with "Fail" still fails on the existing deal, naming the pipeline', async () => {
		const { ids } = customers(1);
		const create = {
			resource: 'deal',
			operation: 'create',
			customerId: { __rl: true, mode: 'id', value: ids[0] },
			ifExists: 'fail',
		};
		expect((await env.run(create)).error).toBeUndefined();
		expect((await env.run(create)).error?.message).toMatch(/^conflict: .*Sales/);
	});
});
