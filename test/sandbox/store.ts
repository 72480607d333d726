import { stableId } from './ids';
import { createPool, upload } from './promoPools';

/** Everything the sandbox knows about one company. Later issues add their collections here. */

export interface AgentRow {
	id: string;
	name: string;
	is_active: boolean;
	messengers: string[];
}

export interface StageRow {
	id: string;
	name: string;
	stage_code: string | null;
	position: number;
}

export interface PipelineRow {
	id: string;
	name: string;
	agent_id: string;
	is_default: boolean;
	stages: StageRow[];
}

export interface MessengerRow {
	type: string;
	id: string;
	username: string | null;
	/** Last message from the customer on this messenger (anchors the 24-hour window). */
	last_inbound_at: string | null;
	/** Bot messenger: the customer pressed Start (a bot cannot write first otherwise). */
	started: boolean;
	/** The customer blocked the bot on this messenger. */
	blocked: boolean;
	/** The messenger has a profile photo to fetch. */
	has_photo: boolean;
}

export interface VariableRow {
	name: string;
	type: string;
	is_list: boolean;
	value: unknown;
	value_list: unknown[] | null;
	group_name: string | null;
	updated_at: string;
}

export interface CustomerRow {
	id: string;
	full_name: string | null;
	phone: string | null;
	email: string | null;
	avatar_url: string | null;
	/** Where the stored photo came from, so that an unchanged photo is not downloaded again. */
	avatar_source: string | null;
	avatar_downloads: number;
	source: string | null;
	language: string | null;
	tags: string[];
	messengers: MessengerRow[];
	variables: Map<string, VariableRow>;
	notes: number;
	merged_into: string | null;
	is_active: boolean;
	created_at: string;
}

export interface DealRow {
	id: string;
	customer_id: string;
	pipeline_id: string;
	stage_id: string;
	title: string | null;
	status: 'active' | 'won' | 'lost';
	closed_reason: string | null;
	created_at: string;
	moved_at: string | null;
	variables: Map<string, VariableRow>;
	/** Increases with every create and move, to tell the current deal apart. */
	order: number;
}

export interface TimelineEntry {
	id: string;
	kind: 'system' | 'outgoing' | 'inbound' | 'pause';
	text: string;
	at: string;
	/** The messenger a message came from or went to (kept across merges). */
	messenger_type?: string | null;
	[extra: string]: unknown;
}

export interface ConversationRow {
	id: string;
	customer_id: string;
	agent_id: string;
	status: 'active' | 'archived';
	created_at: string;
	timeline: TimelineEntry[];
}

export interface PromoCodeRow {
	pool_id: string;
	code: string;
	position: number;
	customer_id: string | null;
	reserved_at: string | null;
	issued_at: string | null;
	revoked_at: string | null;
	/** Set when a merge moved this code from a donor to the winner. */
	moved_from: string | null;
}

export interface PromoPoolRow {
	id: string;
	agent_id: string;
	title: string;
	description: string | null;
	is_enabled: boolean;
	low_threshold_pct: number;
	low_threshold_min: number;
	strict_follow_gate: boolean;
	exhausted_instruction: string | null;
	low_alert_sent_at: string | null;
	empty_alert_sent_at: string | null;
	exhausted_requests: number;
	code_word_titles: string[];
	created_at: string;
	/** Code rows in queue order, and an index by code (codes are unique per pool). */
	rows: PromoCodeRow[];
	byCode: Map<string, PromoCodeRow>;
	nextPosition: number;
}

export interface TemplateRow {
	agent_id: string;
	id: string;
	name: string;
	status: 'APPROVED' | 'PENDING' | 'REJECTED';
	category: string;
	language: string;
	variables: string[];
	has_buttons: boolean;
	components: unknown[];
}

export interface MessageRow {
	id: string;
	customer_id: string;
	conversation_id: string;
	agent_id: string;
	messenger_type: string;
	/** What the caller sent. */
	text: string | null;
	template: {
		name: string;
		lang: string;
		variables: unknown[];
		button_param: string | null;
	} | null;
	/** What the messenger received after the per-group rendering. */
	rendered: string | null;
	status: 'sent' | 'failed';
	failure: string | null;
	at: string;
}

export interface FollowUpRow {
	job_id: string;
	customer_id: string;
	message_id: string;
	scheduled_at: string;
	status: 'scheduled' | 'cancelled' | 'sent';
	text: string | null;
	template: unknown;
}

export class Store {
	agents = new Map<string, AgentRow>();

	pipelines = new Map<string, PipelineRow>();

	customers = new Map<string, CustomerRow>();

	deals = new Map<string, DealRow>();

	conversations = new Map<string, ConversationRow>();

	templates: TemplateRow[] = [];

	messages = new Map<string, MessageRow>();

	followUps = new Map<string, FollowUpRow>();

	/** Send failures injected per customer: the next sends fail with these reasons, in order. */
	sendFailures = new Map<string, string[]>();

	/** Messenger types whose company connection is broken: every send there is `channel_unavailable`. */
	brokenChannels = new Set<string>();

	/** Agents paused in a dialog through the API. */
	pausedDialogs = new Set<string>();

	promoPools = new Map<string, PromoPoolRow>();

	/** Promo code rows in queue order, per pool (the pool's own `rows`). */
	get promoCodes(): Map<string, PromoCodeRow[]> {
		return new Map([...this.promoPools.values()].map((p) => [p.id, p.rows]));
	}

	/** The code rows issued to a customer (not revoked). */
	codesOf(customerId: string): PromoCodeRow[] {
		const out: PromoCodeRow[] = [];
		for (const pool of this.promoPools.values()) {
			for (const row of pool.rows)
				if (row.customer_id === customerId && !row.revoked_at) out.push(row);
		}
		return out;
	}

	private ticks = 0;

	tick(): number {
		return ++this.ticks;
	}

	addAgent(agent: AgentRow): AgentRow {
		this.agents.set(agent.id, agent);
		return agent;
	}

	addPipeline(pipeline: PipelineRow): PipelineRow {
		this.pipelines.set(pipeline.id, pipeline);
		return pipeline;
	}

	defaultPipeline(agentId?: string): PipelineRow | undefined {
		const all = [...this.pipelines.values()].filter((p) => !agentId || p.agent_id === agentId);
		return all.find((p) => p.is_default) ?? all[0];
	}

	activeDeals(customerId: string): DealRow[] {
		return [...this.deals.values()].filter(
			(d) => d.customer_id === customerId && d.status === 'active',
		);
	}

	/** The customer's current deal: the active one moved or created last. */
	currentDeal(customerId: string): DealRow | undefined {
		return this.activeDeals(customerId).sort((a, b) => b.order - a.order)[0];
	}

	stageById(stageId: string): { pipeline: PipelineRow; stage: StageRow } | undefined {
		for (const pipeline of this.pipelines.values()) {
			const stage = pipeline.stages.find((s) => s.id === stageId);
			if (stage) return { pipeline, stage };
		}
		return undefined;
	}
}

function pipeline(
	name: string,
	agentId: string,
	isDefault: boolean,
	stages: Array<[string, string]>,
): PipelineRow {
	const id = stableId(`pipeline:${name}`);
	return {
		id,
		name,
		agent_id: agentId,
		is_default: isDefault,
		stages: stages.map(([stageName, code], position) => ({
			id: stableId(`stage:${name}:${code}`),
			name: stageName,
			stage_code: code,
			position,
		})),
	};
}

/** Demo ids, stable across restarts, for tests and example workflows. */
export const DEMO = {
	supportBot: stableId('agent:support-bot'),
	salesChat: stableId('agent:sales-chat'),
	salesPipeline: stableId('pipeline:Sales'),
	onboardingPipeline: stableId('pipeline:Onboarding'),
	chatSalesPipeline: stableId('pipeline:Chat Sales'),
	welcomePool: stableId('pool:welcome'),
	vipPool: stableId('pool:vip'),
};

/**
 * The demo company, seeded in this one place: two agents with different messengers, pipelines with
 * coded stages, and two promo pools with queued codes (`npm run dev` hands some out so that
 * counters show).
 */
export function seedDemo(store: Store, at: string): void {
	seedDemoCompany(store);
	seedDemoPools(store, at);
}

function seedDemoCompany(store: Store): void {
	store.addAgent({
		id: DEMO.supportBot,
		name: 'Support Bot',
		is_active: true,
		messengers: ['telegram', 'web_widget', 'vk', 'max'],
	});
	store.addAgent({
		id: DEMO.salesChat,
		name: 'Sales Chat',
		is_active: true,
		messengers: ['whatsapp', 'whatsapp_personal', 'instagram', 'facebook'],
	});
	const template = (
		name: string,
		status: TemplateRow['status'],
		variables: string[],
		category = 'UTILITY',
		hasButtons = false,
	): TemplateRow => ({
		agent_id: DEMO.salesChat,
		id: stableId(`template:${name}`),
		name,
		status,
		category,
		language: 'en',
		variables,
		has_buttons: hasButtons,
		components: [{ type: 'BODY', text: variables.map((_v, i) => `{{${i + 1}}}`).join(' ') }],
	});
	store.templates.push(
		template('order_update', 'APPROVED', ['name', 'order_number']),
		template('welcome_back', 'APPROVED', ['name'], 'MARKETING', true),
		template('spring_sale', 'PENDING', [], 'MARKETING'),
		template('old_offer', 'REJECTED', [], 'MARKETING'),
	);
	store.addPipeline(
		pipeline('Sales', DEMO.supportBot, true, [
			['New lead', 'new'],
			['Qualified', 'qualified'],
			['Proposal sent', 'proposal'],
			['Negotiation', 'negotiation'],
		]),
	);
	store.addPipeline(
		pipeline('Onboarding', DEMO.supportBot, false, [
			['Signed up', 'signup'],
			['Activated', 'activated'],
		]),
	);
	store.addPipeline(
		pipeline('Chat Sales', DEMO.salesChat, true, [
			['Lead', 'lead'],
			['Contacted', 'contacted'],
			['Paid', 'paid'],
		]),
	);
}

function seedDemoPools(store: Store, at: string): void {
	const welcome = createPool(
		store,
		{
			id: DEMO.welcomePool,
			agent_id: DEMO.supportBot,
			title: 'Welcome discount',
			description: '10% off the first order',
			code_word_titles: ['WELCOME'],
			low_threshold_pct: 20,
			low_threshold_min: 5,
		},
		at,
	);
	const vip = createPool(
		store,
		{
			id: DEMO.vipPool,
			agent_id: DEMO.salesChat,
			title: 'VIP gifts',
			code_word_titles: ['VIP'],
			low_threshold_pct: 10,
			low_threshold_min: 3,
		},
		at,
	);
	upload(welcome, {
		codes: Array.from({ length: 50 }, (_, i) => `WELCOME-${String(i + 1).padStart(3, '0')}`),
	});
	upload(vip, {
		codes: Array.from({ length: 10 }, (_, i) => `VIP-${String(i + 1).padStart(2, '0')}`),
	});
}
