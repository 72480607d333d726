/**
 * The people of the demo company (`npm run dev`, `npm run sandbox`): named customers with phones,
 * emails and messengers of every kind, each set up so that one outcome of the API can be tried on
 * them (an open or a closed business-chat window, a bot never started, a bot blocked), deals in
 * pipelines, and codes handed out so that one pool sits just above its low threshold. Listed in
 * docs/operations.md ("The demo company").
 */
import { createDeal } from './crm';
import { stableId } from './ids';
import type { Sandbox } from './server';
import { issueCodes } from './simulations';
import type { MessengerRow } from './store';
import { DEMO } from './store';

interface Person {
	name: string;
	phone: string | null;
	email: string | null;
	/** type, id, and what the customer did: wrote in (hours ago), never pressed Start, blocked. */
	messengers: Array<
		[string, string, { wroteHoursAgo?: number; notStarted?: boolean; blocked?: boolean }?]
	>;
	deal?: { pipeline: string; stage: string; title: string | null };
}

export const DEMO_PEOPLE: Person[] = [
	{
		name: 'Anna Petrova',
		phone: '+15550100001',
		email: 'anna.petrova@example.com',
		messengers: [
			['telegram', '100000001', { wroteHoursAgo: 1 }],
			['whatsapp', '15550100001', { wroteHoursAgo: 2 }],
		],
		deal: { pipeline: DEMO.salesPipeline, stage: 'qualified', title: 'Annual plan' },
	},
	{
		name: 'Ben Okafor',
		phone: '+15550100002',
		email: 'ben.okafor@example.com',
		messengers: [
			['whatsapp', '15550100002', { wroteHoursAgo: 72 }],
			['vk', '200000002'],
		],
		deal: { pipeline: DEMO.chatSalesPipeline, stage: 'contacted', title: 'Team licence' },
	},
	{
		name: 'Chloé Martin',
		phone: '+15550100003',
		email: 'chloe.martin@example.com',
		messengers: [
			['telegram', '300000003', { notStarted: true }],
			['instagram', 'chloe.martin', { wroteHoursAgo: 5 }],
		],
	},
	{
		name: 'Dmitri Ivanov',
		phone: '+15550100004',
		email: null,
		messengers: [
			['telegram', '400000004', { blocked: true }],
			['max', '400000004'],
		],
		deal: { pipeline: DEMO.salesPipeline, stage: 'proposal', title: 'Pilot' },
	},
	{
		name: 'Eva Novak',
		phone: null,
		email: 'eva.novak@example.com',
		messengers: [
			['web_widget', 'eva-novak-widget'],
			// Her window closes 63 minutes after the company is made: example 7 follows up with her.
			['facebook', '500000005', { wroteHoursAgo: 22.95 }],
		],
	},
	{
		name: 'Farid Haddad',
		phone: '+15550100006',
		email: 'farid.haddad@example.com',
		messengers: [['whatsapp_personal', '15550100006']],
		deal: { pipeline: DEMO.onboardingPipeline, stage: 'signup', title: null },
	},
];

/** A demo person's customer id, stable across restarts. */
export function demoPersonId(name: string): string {
	return stableId(`customer:${name}`);
}

/** Seeds the demo people, their deals and some handed-out codes. */
export function seedDemoPeople(sandbox: Sandbox): void {
	const now = sandbox.now();
	const at = new Date(now).toISOString();
	for (const person of DEMO_PEOPLE) {
		const id = demoPersonId(person.name);
		const messengers: MessengerRow[] = person.messengers.map(([type, messengerId, how = {}]) => ({
			type,
			id: messengerId,
			username: null,
			last_inbound_at:
				how.wroteHoursAgo === undefined
					? null
					: new Date(now - how.wroteHoursAgo * 3_600_000).toISOString(),
			started: !how.notStarted,
			blocked: !!how.blocked,
			has_photo: false,
		}));
		sandbox.store.customers.set(id, {
			id,
			full_name: person.name,
			phone: person.phone,
			email: person.email,
			avatar_url: null,
			avatar_source: null,
			avatar_downloads: 0,
			source: 'demo',
			language: 'en',
			tags: ['demo'],
			messengers,
			variables: new Map(),
			notes: 0,
			merged_into: null,
			is_active: true,
			created_at: at,
		});
		if (person.deal) {
			const pipeline = sandbox.store.pipelines.get(person.deal.pipeline)!;
			const stage = pipeline.stages.find((s) => s.stage_code === person.deal!.stage)!;
			createDeal(sandbox.store, id, pipeline, stage, person.deal.title, at);
		}
	}
	// Customers have asked for codes: the welcome pool is comfortable (38 of 50 left); the VIP pool
	// has 4 of 10 left and turns low at 3, so one more request makes the restock example fire.
	issueCodes(sandbox, DEMO.welcomePool, 12, [demoPersonId('Anna Petrova')]);
	issueCodes(sandbox, DEMO.vipPool, 6, [demoPersonId('Eva Novak')]);
}
