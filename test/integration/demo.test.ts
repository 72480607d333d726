import type { IDataObject, INodeParameters } from 'n8n-workflow';
/**
 * The demo company of `npm run dev` lets every operation be tried: its people are found by phone,
 * email and messenger, and each shows the outcome it is there for, through n8n's engine.
 */
import { exampleWorkflow } from '../e2e/setup';
import { byId, byMode, useSandbox } from '../harness/fixtures';
import { createTrigger } from '../harness/triggerRuns';
import { DEMO_PEOPLE, demoPersonId, seedDemoPeople } from '../sandbox/demo';
import { DEMO } from '../sandbox/store';

const env = useSandbox();
beforeEach(() => seedDemoPeople(env.sandbox));

const anna = demoPersonId('Anna Petrova');
const send = (name: string, messengerType: string, extra: Record<string, unknown> = {}) =>
	env.run({
		resource: 'message',
		operation: 'send',
		customerId: byId(demoPersonId(name)),
		messengerType,
		content: 'text',
		text: 'Hello from the demo',
		...extra,
	});

describe('The demo company', () => {
	it('has people with phones, emails and messengers of every kind the agents use', () => {
		const types = new Set(DEMO_PEOPLE.flatMap((p) => p.messengers.map(([type]) => type)));
		const agentTypes = [...env.sandbox.store.agents.values()].flatMap((a) => a.messengers);
		expect([...types].sort()).toEqual([...new Set(agentTypes)].sort());
		expect(DEMO_PEOPLE.filter((p) => p.phone).length).toBeGreaterThanOrEqual(4);
		expect(DEMO_PEOPLE.filter((p) => p.email).length).toBeGreaterThanOrEqual(4);
	});

	it('finds a person by phone, by email and by messenger, with Find and with the locator', async () => {
		for (const [findBy, fields] of [
			['phone', { phone: '+1 555 010 0001' }],
			['email', { email: 'Anna.Petrova@example.com' }],
			['messenger', { messengerType: 'telegram', messengerId: '100000001' }],
		] as const) {
			const [found] = await env.ok({ resource: 'customer', operation: 'find', findBy, ...fields });
			expect(found?.id).toBe(anna);
		}
		for (const locator of [
			byMode('phone', '+15550100001'),
			byMode('email', 'anna.petrova@example.com'),
			byMode('messenger', 'whatsapp:15550100001'),
		]) {
			const [got] = await env.ok({ resource: 'customer', operation: 'get', customerId: locator });
			expect(got).toMatchObject({ id: anna, full_name: 'Anna Petrova' });
		}
	});

	it('shows each send outcome on its own person', async () => {
		expect((await send('Anna Petrova', 'whatsapp')).items[0].json.status).toBe('sent');
		expect((await send('Ben Okafor', 'whatsapp')).error?.message).toMatch(/^bizchat_window_closed/);
		const template = await send('Ben Okafor', 'whatsapp', {
			content: 'template',
			templateName: 'order_update',
			templateLanguage: 'en',
			templateVariables: { variable: [{ value: 'Ben' }, { value: 'A-17' }] },
		});
		expect(template.items[0].json.status).toBe('sent');
		expect((await send('Chloé Martin', 'telegram')).error?.message).toMatch(/^no_peer/);
		expect((await send('Dmitri Ivanov', 'telegram')).error?.message).toMatch(
			/^recipient_unreachable/,
		);
		for (const [name, type] of [
			['Dmitri Ivanov', 'max'],
			['Eva Novak', 'web_widget'],
			['Farid Haddad', 'whatsapp_personal'],
			['Ben Okafor', 'vk'],
			['Chloé Martin', 'instagram'],
			['Eva Novak', 'facebook'],
		])
			expect((await send(name, type)).items[0]?.json.status).toBe('sent');
	});

	it('has deals in pipelines, a pool one request above its low threshold, and a pending template', async () => {
		const deals = await env.ok({
			resource: 'deal',
			operation: 'getMany',
			customerId: byId(anna),
		});
		expect(deals).toEqual([expect.objectContaining({ pipeline_id: DEMO.salesPipeline })]);
		const [vip] = await env.ok({
			resource: 'promoPool',
			operation: 'get',
			poolId: byId(DEMO.vipPool),
		});
		expect(vip).toMatchObject({ remaining: 4, low_threshold: 3 });
		const [welcome] = await env.ok({
			resource: 'promoPool',
			operation: 'get',
			poolId: byId(DEMO.welcomePool),
		});
		expect(welcome).toMatchObject({ remaining: 38 });
		const templates = await env.ok({ resource: 'template', operation: 'getMany' });
		expect(templates.map((t) => t.status)).toContain('PENDING');
	});

	it('the "Deal moved to Proposal" example watches a demo customer whose deal can move to Proposal', () => {
		const example = exampleWorkflow('mcrmProposalFlow1');
		const watched = String(example.nodes[0].parameters.customerIds);
		expect(watched).toBe(anna);
		const deal = [...env.sandbox.store.deals.values()].find((d) => d.customer_id === anna)!;
		expect(deal.pipeline_id).toBe(example.nodes[0].parameters.pipelineId);
	});

	it('the "template approved" example, step by step through the engine: created, approved, noticed, sent to Anna once', async () => {
		const example = exampleWorkflow('mcrmTemplateFlow1');
		const node = (name: string) => {
			const found = example.nodes.find((n) => n.name === name)!;
			return { ...found, parameters: found.parameters as INodeParameters };
		};
		const trigger = await createTrigger(
			node('Template approved').parameters,
			env.creds(),
			node('Template approved').typeVersion,
		);
		await trigger.poll();
		const [created] = await env.ok(node('Create template').parameters);
		expect(created).toMatchObject({ name: 'back_in_stock', status: 'PENDING' });
		expect(await trigger.poll()).toBeNull();
		// The platform owner approves it (in npm run dev, the sandbox does after 30 s).
		env.sandbox.store.templates.find((t) => t.name === 'back_in_stock')!.status = 'APPROVED';
		const events = (await trigger.poll()) ?? [];
		expect(events.map((e) => e.event)).toEqual(['templateApproved']);
		const [sent] = await env.ok(
			node('Send it to Anna').parameters,
			events.map((json) => ({ json: json as IDataObject })),
		);
		expect(sent).toMatchObject({ customer_id: anna, status: 'sent', messenger_type: 'whatsapp' });
		const toAnna = [...env.sandbox.store.messages.values()].filter(
			(m) => m.customer_id === anna && JSON.stringify(m).includes('back_in_stock'),
		);
		expect(toAnna).toHaveLength(1);
		// Once: the next poll has nothing new to hand on.
		expect(await trigger.poll()).toBeNull();
	});
});
