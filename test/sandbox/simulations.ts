/**
 * What happens in a company without the API: customers writing in, customers asking for promo
 * codes, demo customers; and the counts and dumps tests read. Pure functions over the sandbox.
 */
import { randomUUID } from 'crypto';

import { issue, poolOut } from './promoPools';
import type { Sandbox, SandboxSnapshot } from './server';

/** A message from the customer: anchors the window, counts as Start, cancels follow-ups. */
export function inbound(sandbox: Sandbox, customerId: string, messengerType: string, text: string) {
	const customer = sandbox.store.customers.get(customerId);
	if (!customer) throw new Error(`No customer ${customerId}`);
	const messenger = customer.messengers.find((m) => m.type === messengerType);
	if (!messenger) throw new Error(`Customer has no ${messengerType} messenger`);
	const at = new Date(sandbox.now()).toISOString();
	messenger.last_inbound_at = at;
	messenger.started = true;
	let cancelled = 0;
	for (const job of sandbox.store.followUps.values()) {
		if (job.customer_id === customerId && job.status === 'scheduled') {
			job.status = 'cancelled';
			cancelled++;
		}
	}
	const agent = [...sandbox.store.agents.values()].find((a) =>
		a.messengers.includes(messengerType),
	);
	const dialog = [...sandbox.store.conversations.values()].find(
		(c) => c.customer_id === customerId && c.status === 'active' && c.agent_id === agent?.id,
	);
	dialog?.timeline.push({
		id: `in-${sandbox.requestCount}`,
		kind: 'inbound',
		text,
		at,
		messenger_type: messengerType,
	});
	return { last_inbound_at: at, follow_ups_cancelled: cancelled };
}

/**
 * Simulates customers asking the agent for a code: each gets the next queued code (a new demo
 * customer per request unless ids are given); an empty pool counts exhausted requests.
 */
export function issueCodes(
	sandbox: Sandbox,
	poolId: string,
	count: number,
	customerIds?: string[],
) {
	const pool = sandbox.store.promoPools.get(poolId);
	if (!pool) return undefined;
	const at = new Date(sandbox.now()).toISOString();
	const outcomes: Array<{ customer_id: string; code: string | null; outcome: string }> = [];
	for (let i = 0; i < count; i++) {
		const customerId =
			customerIds?.[i] ??
			demoCustomer(sandbox, `Promo requester ${sandbox.store.customers.size + 1}`);
		outcomes.push({ customer_id: customerId, ...issue(pool, customerId, at) });
	}
	return { outcomes, pool: poolOut(pool) };
}

/** A customer card for simulations, with a bot messenger. */
export function demoCustomer(sandbox: Sandbox, name: string, id: string = randomUUID()): string {
	const n = sandbox.store.customers.size + 1;
	sandbox.store.customers.set(id, {
		id,
		full_name: name,
		phone: null,
		email: null,
		avatar_url: null,
		avatar_source: null,
		avatar_downloads: 0,
		source: 'sandbox',
		language: null,
		tags: [],
		messengers: [
			{
				type: 'telegram',
				id: `9${String(n).padStart(8, '0')}`,
				username: null,
				last_inbound_at: null,
				started: true,
				blocked: false,
				has_photo: true,
			},
		],
		variables: new Map(),
		notes: 0,
		merged_into: null,
		is_active: true,
		created_at: new Date(sandbox.now()).toISOString(),
	});
	return id;
}

/** Another messenger on a customer's card, started and open (say, VK beside the bot messenger). */
export function addMessenger(sandbox: Sandbox, customerId: string, type: string, id: string): void {
	sandbox.store.customers.get(customerId)?.messengers.push({
		type,
		id,
		username: null,
		last_inbound_at: null,
		started: true,
		blocked: false,
		has_photo: false,
	});
}

/** Counts for benchmarks: customers, messages per customer, pools, requests by status. */
export function stats(sandbox: Sandbox) {
	const byStatus: Record<string, number> = {};
	for (const r of sandbox.requests()) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
	const sentPerCustomer: Record<string, number> = {};
	for (const m of sandbox.store.messages.values())
		if (m.status === 'sent')
			sentPerCustomer[m.customer_id] = (sentPerCustomer[m.customer_id] ?? 0) + 1;
	return {
		customers: sandbox.store.customers.size,
		distinctPhones: new Set(
			[...sandbox.store.customers.values()].map((c) => c.phone).filter(Boolean),
		).size,
		messagesSent: [...sandbox.store.messages.values()].filter((m) => m.status === 'sent').length,
		messagesFailed: [...sandbox.store.messages.values()].filter((m) => m.status === 'failed')
			.length,
		customersWithMoreThanOneMessage: Object.values(sentPerCustomer).filter((n) => n > 1).length,
		customersMessaged: Object.keys(sentPerCustomer).length,
		requests: sandbox.requests().length,
		byStatus,
		pools: [...sandbox.store.promoPools.values()].map(poolOut),
	};
}

/** The company's data as plain JSON. */
export function snapshot(sandbox: Sandbox): SandboxSnapshot {
	const plain = (value: unknown): unknown =>
		value instanceof Map
			? Object.fromEntries([...value].map(([k, v]) => [k, plain(v)]))
			: Array.isArray(value)
				? value.map(plain)
				: value && typeof value === 'object'
					? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]))
					: value;
	const s = sandbox.store;
	return plain({
		agents: [...s.agents.values()],
		pipelines: [...s.pipelines.values()],
		customers: [...s.customers.values()],
		deals: [...s.deals.values()],
		conversations: [...s.conversations.values()],
		messages: [...s.messages.values()],
		followUps: [...s.followUps.values()],
		templates: s.templates,
		promoPools: [...s.promoPools.values()].map((p) => ({ ...poolOut(p), codes: p.rows.length })),
	}) as SandboxSnapshot;
}

/** Messages sent (not failed) to each of these customers, in their order: what exactly-once is judged by. */
export function sentTo(sandbox: Sandbox, customerIds: string[], status = 'sent'): number[] {
	const sent = [...sandbox.store.messages.values()].filter((m) => m.status === status);
	return customerIds.map((id) => sent.filter((m) => m.customer_id === id).length);
}
