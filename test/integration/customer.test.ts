/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
import { byId, byMode, useSandbox } from '../harness/fixtures';
import { DEMO } from '../sandbox/store';

const env = useSandbox();

const upsert = (fields: Record<string, unknown> = {}) => ({
	resource: 'customer',
	operation: 'upsert',
	phone: '+1 (555) 010-2000',
	...fields,
});

describe('Customer → Create or Update', () => {
	it('creates a customer with every field, placed by agent, pipeline and stage code', async () => {
		const [customer] = await env.ok(
			upsert({
				email: 'Jane@Example.com',
				messengersUi: { messenger: [{ type: 'telegram', id: '7001', username: 'jane' }] },
				additionalFields: {
					fullName: 'Jane Doe',
					source: 'web-form',
					tags: 'vip, newsletter',
					language: 'EN',
				},
				variablesInput: 'fields',
				variablesUi: {
					variable: [{ name: 'plan', change: 'set', value: 'pro', type: '', mode: 'replace' }],
				},
				placement: 'choose',
				agentId: DEMO.supportBot,
				pipelineId: DEMO.salesPipeline,
				stageCode: 'qualified',
			}),
		);
		expect(customer).toMatchObject({
			created: true,
			full_name: 'Jane Doe',
			phone: '+15550102000',
			email: 'jane@example.com',
			messengers: [{ type: 'telegram', id: '7001', username: 'jane' }],
			warnings: [],
			deal: { pipeline_id: DEMO.salesPipeline, stage_code: 'qualified' },
		});
		const stored = env.sandbox.store.customers.get(String(customer.id))!;
		expect(stored.tags).toEqual(['vip', 'newsletter']);
		expect(stored.language).toBe('en');
		expect(stored.variables.get('plan')?.value).toBe('pro');
	});

	it('deduplicates on E.164 phone, email or messenger identity and never relocates on the upsert branch', async () => {
		const [first] = await env.ok(upsert());
		const [byPhone] = await env.ok(
			upsert({
				phone: '+15550102000',
				placement: 'choose',
				agentId: DEMO.salesChat,
				pipelineId: DEMO.chatSalesPipeline,
			}),
		);
		expect(byPhone).toMatchObject({
			id: first.id,
			created: false,
			deal: { pipeline_id: DEMO.salesPipeline },
		});
		await env.ok(upsert({ email: 'j@example.com' }));
		const [byEmail] = await env.ok({
			resource: 'customer',
			operation: 'upsert',
			email: 'J@example.com',
		});
		expect(byEmail.id).toBe(first.id);
		await env.ok(upsert({ messengersUi: { messenger: [{ type: 'whatsapp', id: '555' }] } }));
		const [byMessenger] = await env.ok({
			resource: 'customer',
			operation: 'upsert',
			messengersUi: { messenger: [{ type: 'whatsapp', id: '555' }] },
		});
		expect(byMessenger.id).toBe(first.id);
		expect(env.sandbox.store.customers.size).toBe(1);
	});

	it('sends an Idempotency-Key derived from execution and item: a re-run of the same execution creates once', async () => {
		const items = [{ json: { phone: '+15550000001' } }, { json: { phone: '+15550000002' } }];
		const params = { resource: 'customer', operation: 'upsert', phone: '={{ $json.phone }}' };
		await env.run(params, { items, executionId: 'exec-42' });
		const again = await env.run(params, { items, executionId: 'exec-42' });
		expect(again.items.map((i) => i.json.created)).toEqual([true, true]);
		const log = env.sandbox.requests().filter((r) => r.path === '/customers');
		expect(log).toHaveLength(4);
		expect(new Set(log.map((r) => r.idempotencyKey)).size).toBe(2);
		expect(log.filter((r) => r.replayed)).toHaveLength(2);
		expect(env.sandbox.store.customers.size).toBe(2);
	});

	it("uses the user's own Idempotency-Key when given", async () => {
		await env.ok(upsert({ options: { idempotencyKey: 'form-submission-77' } }));
		expect(env.sandbox.requests()[0].idempotencyKey).toBe('form-submission-77');
	});

	it('survives a connection reset after the customer was created: the retry replays, nothing is created twice', async () => {
		env.sandbox.injectFault({
			path: '/customers',
			method: 'POST',
			count: 1,
			kind: 'reset',
			when: 'after',
		});
		const [customer] = await env.ok(upsert());
		expect(customer.created).toBe(true);
		expect(env.sandbox.store.customers.size).toBe(1);
		expect(env.sandbox.requests().map((r) => r.replayed ?? false)).toEqual([false, true]);
	});

	it('keeps avatar warnings in the output and never sends both avatar fields', async () => {
		const [fetched] = await env.ok(
			upsert({
				messengersUi: { messenger: [{ type: 'telegram', id: 'nophoto-1' }] },
				avatar: 'fetch',
			}),
		);
		expect(fetched.warnings).toEqual([expect.objectContaining({ code: 'avatar_no_photo' })]);
		const [fromUrl] = await env.ok(
			upsert({ phone: '+15550102999', avatar: 'url', avatarUrl: 'https://cdn.example.com/p.jpg' }),
		);
		expect(String(fromUrl.avatar_url)).toMatch(/^\/media\/avatars\//);
		const bodies = env.sandbox.requests().map((r) => JSON.parse(String(r.body)));
		expect(bodies[0]).toMatchObject({ fetch_avatar: true });
		expect(bodies[0].avatar_url).toBeUndefined();
		expect(bodies[1].fetch_avatar).toBeUndefined();
	});

	it('sends more than 50 variables as consecutive calls of at most 50', async () => {
		const variables = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`v${i}`, i]));
		const [customer] = await env.ok(
			upsert({ variablesInput: 'json', variablesJson: JSON.stringify(variables) }),
		);
		const stored = env.sandbox.store.customers.get(String(customer.id))!;
		expect(stored.variables.size).toBe(120);
		expect(
			env.sandbox.requests().map((r) => `${r.method} ${r.path.replace(String(customer.id), 'ID')}`),
		).toEqual([
			'POST /customers',
			'PATCH /customers/ID/variables',
			'PATCH /customers/ID/variables',
		]);
	});
});

describe('Customer → Get and Find', () => {
	it('gets a customer by ID, phone, email or messenger through lookup', async () => {
		const [created] = await env.ok(
			upsert({ email: 'a@b.co', messengersUi: { messenger: [{ type: 'vk', id: '99' }] } }),
		);
		for (const locator of [
			byId(String(created.id)),
			byMode('phone', '+15550102000'),
			byMode('email', 'A@b.co'),
			byMode('messenger', 'vk:99'),
		]) {
			const [customer] = await env.ok({
				resource: 'customer',
				operation: 'get',
				customerId: locator,
			});
			expect(customer).toMatchObject({ id: created.id, current_stage: 'new' });
		}
	});

	it('reads many customers several at a time, keeping the order and pairing of the input', async () => {
		const ids: string[] = [];
		for (let i = 0; i < 20; i++)
			ids.push(
				String((await env.ok(upsert({ phone: `+1555011${String(i).padStart(4, '0')}` })))[0].id),
			);
		// Slow answers for some of them: the output order must not follow the answers.
		for (const id of ids.filter((_, i) => i % 3 === 0))
			env.sandbox.injectFault({ path: `/customers/${id}`, count: 1, kind: 'delay', delayMs: 60 });
		env.sandbox.clearRequests();
		const { items } = await env.run(
			{ resource: 'customer', operation: 'get', customerId: byId('={{ $json.id }}') },
			{ items: ids.map((id) => ({ json: { id } })) },
		);
		expect(items.map((i) => i.json.id)).toEqual(ids);
		expect(items.map((i) => (i.pairedItem as { item: number }).item)).toEqual(ids.map((_, i) => i));
		const order = env.sandbox.requests().map((r) => r.path.split('/')[2]);
		expect(order).not.toEqual(ids);
	});

	it('finds by phone, email or messenger; nobody found gives no item, or fails when asked to', async () => {
		const [created] = await env.ok(upsert());
		const [found] = await env.ok({
			resource: 'customer',
			operation: 'find',
			findBy: 'phone',
			phone: '+15550102000',
		});
		expect(found.id).toBe(created.id);
		const none = await env.ok({
			resource: 'customer',
			operation: 'find',
			findBy: 'email',
			email: 'nobody@example.com',
		});
		expect(none).toEqual([]);
		const { error } = await env.run({
			resource: 'customer',
			operation: 'find',
			findBy: 'messenger',
			messengerType: 'telegram',
			messengerId: '1',
			options: { failIfNotFound: true },
		});
		expect(error?.message).toBe('No customer matches [item 1]');
	});

	it('fails a customer-scoped operation clearly when the locator finds nobody', async () => {
		const { error } = await env.run({
			resource: 'customer',
			operation: 'get',
			customerId: byMode('email', 'ghost@example.com'),
		});
		expect(error?.message).toBe('No customer with email ghost@example.com [item 1]');
	});

	it("lists the customer's messengers with their windows", async () => {
		const [created] = await env.ok(
			upsert({
				messengersUi: {
					messenger: [
						{ type: 'whatsapp', id: '1' },
						{ type: 'telegram', id: '2' },
					],
				},
			}),
		);
		const items = await env.ok({
			resource: 'customer',
			operation: 'getMessengers',
			customerId: byId(String(created.id)),
		});
		expect(items.map((i) => [i.type, i.can_send_freeform, i.window_expires_at])).toEqual([
			['whatsapp', false, null],
			['telegram', true, null],
		]);
	});
});

describe('Conversation → Open', () => {
	it('creates the dialog once (201) and returns it untouched after (200), with crm_url as returned', async () => {
		const [customer] = await env.ok(upsert());
		const params = {
			resource: 'conversation',
			operation: 'open',
			customerId: byId(String(customer.id)),
			agentId: DEMO.supportBot,
		};
		const [first] = await env.ok(params);
		const [second] = await env.ok(params);
		expect(first).toMatchObject({
			created: true,
			customer_blocked: false,
			channel_id: DEMO.supportBot,
		});
		expect(String(first.crm_url)).toBe(`${env.sandbox.url}/crm/dialogs/${first.id}`);
		expect(second).toMatchObject({ id: first.id, created: false });
		const dialog = env.sandbox.store.conversations.get(String(first.id))!;
		expect(dialog.timeline.map((e) => e.text)).toEqual(['Conversation created via API']);
	});

	it('reports a customer who blocked the bot', async () => {
		const [customer] = await env.ok(
			upsert({ messengersUi: { messenger: [{ type: 'telegram', id: 'blocked-1' }] } }),
		);
		const [dialog] = await env.ok({
			resource: 'conversation',
			operation: 'open',
			customerId: byId(String(customer.id)),
			agentId: DEMO.supportBot,
		});
		expect(dialog).toMatchObject({
			customer_blocked: true,
			warnings: [expect.objectContaining({ code: 'customer_blocked_bot' })],
		});
	});
});
