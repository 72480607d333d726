import { byId, byMode, useSandbox } from '../harness/fixtures';
import { createPool, issue as issueCode, upload } from '../sandbox/promoPools';
import { DEMO } from '../sandbox/store';

const env = useSandbox();

async function customer(fields: Record<string, unknown>): Promise<string> {
	const [c] = await env.ok({ resource: 'customer', operation: 'upsert', ...fields });
	return String(c.id);
}

const pools = new Map<string, string>();
function issue(poolName: string, code: string, customerId: string): void {
	let poolId = pools.get(poolName);
	if (!poolId || !env.sandbox.store.promoPools.has(poolId)) {
		poolId = createPool(
			env.sandbox.store,
			{ agent_id: DEMO.supportBot, title: poolName },
			new Date().toISOString(),
		).id;
		pools.set(poolName, poolId);
	}
	const pool = env.sandbox.store.promoPools.get(poolId)!;
	upload(pool, { codes: [code] });
	expect(issueCode(pool, customerId, new Date().toISOString())).toEqual({
		code,
		outcome: 'issued',
	});
}

describe('Customer → Merge', () => {
	it('hands on the report of a merge the sandbox carries out by the API’s rules 1 to 6 (test/sandbox/merge.ts): every counter and warning, and the customers as stored', async () => {
		const winner = await customer({
			phone: '+15550104000',
			additionalFields: { fullName: 'Winner' },
			variablesInput: 'json',
			variablesJson: '{"plan": "pro"}',
		});
		const donor = await customer({
			email: 'donor@example.com',
			messengersUi: { messenger: [{ type: 'telegram', id: '42' }] },
			additionalFields: { fullName: 'Donor' },
			variablesInput: 'json',
			variablesJson: '{"plan": "free", "city": "Oslo"}',
		});
		// Dialogs: both on Support Bot (always merged), donor also on Sales Chat (moved without absorb).
		const open = (id: string, agentId: string) =>
			env.ok({ resource: 'conversation', operation: 'open', customerId: byId(id), agentId });
		await open(winner, DEMO.supportBot);
		const [donorDialog] = await open(donor, DEMO.supportBot);
		await open(donor, DEMO.salesChat);
		env.sandbox.store.conversations.get(String(donorDialog.id))!.timeline.push({
			id: 'm1',
			kind: 'inbound',
			text: 'hi',
			at: new Date().toISOString(),
			messenger_type: 'telegram',
		});
		// Deals: both have an active Sales deal (donor's closed as duplicate); donor also has Onboarding (moved).
		await env.ok({
			resource: 'deal',
			operation: 'create',
			customerId: byId(donor),
			pipelineId: DEMO.onboardingPipeline,
		});
		// Codes: two pools; the winner already holds one from pool A.
		issue('pool-a', 'A-WIN', winner);
		issue('pool-a', 'A-DONOR', donor);
		issue('pool-b', 'B-DONOR', donor);
		env.sandbox.store.customers.get(donor)!.notes = 3;

		const [report] = await env.ok({
			resource: 'customer',
			operation: 'merge',
			customerId: byId(winner),
			donorBy: 'id',
			donorId: byMode('email', 'donor@example.com'),
		});
		expect(report).toMatchObject({
			winner_id: winner,
			donor_id: donor,
			already_merged: false,
			messengers_moved: 1,
			conversations_moved: 1,
			conversations_archived: 1,
			conversations_dropped: 0,
			messages_moved: 1,
			deals_moved: 2,
			deals_closed_as_duplicate: 1,
			variables_moved: 1,
			promo_codes_moved: 1,
			notes_moved: 3,
		});
		const warnings = (report.warnings as string[]).join('\n');
		expect(warnings).toMatch(/closed as a duplicate/);
		expect(warnings).toMatch(/Variable "plan" stayed with the winner/);
		expect(warnings).toMatch(/Code "A-DONOR" stayed with the donor/);
		const stored = env.sandbox.store.customers;
		expect(stored.get(winner)).toMatchObject({
			full_name: 'Winner',
			email: 'donor@example.com',
			is_active: true,
		});
		expect(stored.get(winner)!.variables.get('plan')?.value).toBe('pro');
		expect(stored.get(donor)).toMatchObject({ is_active: false, merged_into: winner });

		// Rule 6: repeating is safe, by id or by a code that now belongs to the winner.
		const [again] = await env.ok({
			resource: 'customer',
			operation: 'merge',
			customerId: byId(winner),
			donorBy: 'id',
			donorId: byId(donor),
		});
		expect(again).toMatchObject({ already_merged: true, messengers_moved: 0, deals_moved: 0 });
		const [byCode] = await env.ok({
			resource: 'customer',
			operation: 'merge',
			customerId: byId(winner),
			donorBy: 'promoCode',
			promoCode: 'B-DONOR',
		});
		expect(byCode).toMatchObject({ already_merged: true, donor_id: donor });
	});

	it('absorbs dialogs of other agents into one feed when asked to', async () => {
		const winner = await customer({ phone: '+15550104100' });
		const donor = await customer({ phone: '+15550104200' });
		await env.ok({
			resource: 'conversation',
			operation: 'open',
			customerId: byId(winner),
			agentId: DEMO.supportBot,
		});
		const [other] = await env.ok({
			resource: 'conversation',
			operation: 'open',
			customerId: byId(donor),
			agentId: DEMO.salesChat,
		});
		env.sandbox.store.conversations.get(String(other.id))!.timeline.push({
			id: 'm2',
			kind: 'inbound',
			text: 'hello',
			at: new Date().toISOString(),
			messenger_type: 'whatsapp',
		});
		const [report] = await env.ok({
			resource: 'customer',
			operation: 'merge',
			customerId: byId(winner),
			donorBy: 'id',
			donorId: byId(donor),
			options: { absorbConversations: true },
		});
		expect(report).toMatchObject({
			conversations_archived: 1,
			messages_moved: 1,
			conversations_moved: 0,
		});
	});

	it('refuses to merge a card into itself before any request', async () => {
		const id = await customer({ phone: '+15550104300' });
		env.sandbox.clearRequests();
		const { error } = await env.run({
			resource: 'customer',
			operation: 'merge',
			customerId: byId(id),
			donorBy: 'id',
			donorId: byId(id),
		});
		expect(error?.message).toMatch(/"Donor" is the same card as the winner/);
		expect(env.sandbox.requests()).toHaveLength(0);
	});
});
