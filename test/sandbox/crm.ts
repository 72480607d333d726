/** Customer, deal and conversation rules of the spec, shared by the routes. */
import { ApiError, notFound, validation } from './errors';
import { isUuid, newId } from './ids';
import type {
	ConversationRow,
	CustomerRow,
	DealRow,
	MessengerRow,
	PipelineRow,
	StageRow,
	Store,
} from './store';
import { EMAIL, normalizePhone } from './variablesContract';

export const MESSENGER_TYPES = [
	'telegram',
	'telegram_personal',
	'web_widget',
	'whatsapp',
	'whatsapp_personal',
	'instagram',
	'facebook',
	'vk',
	'max',
];

/** Messengers where free-form text needs the 24-hour window (business chat cloud, the two social networks). */
export const WINDOW_MESSENGERS = new Set(['whatsapp', 'instagram', 'facebook']);
/** Messengers whose photo the service can pull itself. */
export const AVATAR_FETCH = new Set(['telegram', 'max', 'whatsapp_personal']);
export const WINDOW_MS = 24 * 60 * 60 * 1000;

export function isoNow(now: number): string {
	return new Date(now).toISOString();
}

export function requireCustomer(store: Store, id: string): CustomerRow {
	const customer = store.customers.get(id);
	if (!customer) throw notFound('customer', id);
	return customer;
}

export function stageCode(pipeline: PipelineRow | undefined, stageId: string): string | null {
	return pipeline?.stages.find((s) => s.id === stageId)?.stage_code ?? null;
}

export function dealSummary(store: Store, deal: DealRow) {
	return {
		id: deal.id,
		pipeline_id: deal.pipeline_id,
		stage_id: deal.stage_id,
		stage_code: stageCode(store.pipelines.get(deal.pipeline_id), deal.stage_id),
	};
}

export function dealOut(store: Store, deal: DealRow) {
	return {
		...dealSummary(store, deal),
		title: deal.title,
		status: deal.status,
		closed_reason: deal.closed_reason,
		created_at: deal.created_at,
		moved_at: deal.moved_at,
	};
}

export function messengerOut(m: MessengerRow) {
	return { type: m.type, id: m.id, username: m.username };
}

export function customerOut(store: Store, customer: CustomerRow, withStage = true) {
	const deal = store.currentDeal(customer.id);
	const out: Record<string, unknown> = {
		id: customer.id,
		full_name: customer.full_name,
		phone: customer.phone,
		email: customer.email,
		avatar_url: customer.avatar_url,
		messengers: customer.messengers.map(messengerOut),
		deal: deal ? dealSummary(store, deal) : null,
	};
	if (withStage) {
		const pipeline = deal ? store.pipelines.get(deal.pipeline_id) : undefined;
		const stage = pipeline?.stages.find((s) => s.id === deal?.stage_id);
		out.current_stage = stage ? (stage.stage_code ?? stage.name) : null;
	}
	return out;
}

function str(body: Record<string, unknown>, field: string, max?: number): string | null {
	const value = body[field];
	if (value === undefined || value === null) return null;
	if (typeof value !== 'string') throw validation(`${field} must be a string`, { field });
	if (max !== undefined && value.length > max)
		throw validation(`${field} must be at most ${max} characters`, { field, max });
	return value;
}

export function optionalUuid(body: Record<string, unknown>, field: string): string | null {
	const value = body[field];
	if (value === undefined || value === null) return null;
	if (!isUuid(value)) throw validation(`${field} must be a UUID`, { field });
	return value;
}

export function asBody(body: unknown): Record<string, unknown> {
	if (body === undefined || body === null) return {};
	if (typeof body !== 'object' || Array.isArray(body))
		throw validation('The body must be a JSON object');
	return body as Record<string, unknown>;
}

export interface CustomerInput {
	full_name: string | null;
	phone: string | null;
	email: string | null;
	messengers: Array<{ type: string; id: string; username: string | null }>;
	source: string | null;
	tags: string[];
	language: string | null;
	avatar_url: string | null;
	fetch_avatar: boolean;
	placement: {
		agent_id: string | null;
		pipeline_id: string | null;
		stage_code: string | null;
	} | null;
	variables: unknown;
}

export function parseCustomerInput(raw: unknown): CustomerInput {
	const body = asBody(raw);
	const full_name = str(body, 'full_name', 255);
	const phoneRaw = str(body, 'phone', 50);
	const phone = phoneRaw === null || phoneRaw.trim() === '' ? null : normalizePhone(phoneRaw);
	if (phoneRaw && phoneRaw.trim() && !phone)
		throw validation('phone is not a phone number', { field: 'phone' });
	const emailRaw = str(body, 'email');
	const email = emailRaw ? emailRaw.trim().toLowerCase() : null;
	if (email && !EMAIL.test(email))
		throw validation('email is not a valid email address', { field: 'email' });
	const messengersRaw = body.messengers ?? [];
	if (!Array.isArray(messengersRaw))
		throw validation('messengers must be an array', { field: 'messengers' });
	const messengers = messengersRaw.map((m, i) => {
		const field = `messengers[${i}]`;
		if (typeof m !== 'object' || m === null)
			throw validation(`${field} must be an object`, { field });
		const { type, id, username } = m as Record<string, unknown>;
		if (typeof type !== 'string' || !MESSENGER_TYPES.includes(type)) {
			throw validation(`${field}.type must be one of ${MESSENGER_TYPES.join(', ')}`, {
				field: `${field}.type`,
			});
		}
		if ((typeof id !== 'string' && typeof id !== 'number') || String(id).trim() === '') {
			throw validation(`${field}.id is required`, { field: `${field}.id` });
		}
		if (username !== undefined && username !== null && typeof username !== 'string') {
			throw validation(`${field}.username must be a string`, { field: `${field}.username` });
		}
		return {
			type,
			id: String(id).trim(),
			username: (username as string | null | undefined) ?? null,
		};
	});
	const source = str(body, 'source', 100);
	const tagsRaw = body.tags ?? [];
	if (!Array.isArray(tagsRaw) || !tagsRaw.every((t) => typeof t === 'string')) {
		throw validation('tags must be an array of strings', { field: 'tags' });
	}
	const language = str(body, 'language');
	if (language !== null && !/^[a-z]{2}$/i.test(language)) {
		throw validation('language must be an ISO 639-1 code such as "en"', { field: 'language' });
	}
	const avatar_url = str(body, 'avatar_url');
	if (avatar_url !== null && !/^https?:\/\/[^\s/]+/i.test(avatar_url)) {
		throw validation('avatar_url must be an http(s) link', { field: 'avatar_url' });
	}
	const fetch_avatar = body.fetch_avatar ?? false;
	if (typeof fetch_avatar !== 'boolean')
		throw validation('fetch_avatar must be a boolean', { field: 'fetch_avatar' });
	if (avatar_url !== null && fetch_avatar) {
		throw validation('avatar_url and fetch_avatar are mutually exclusive', { field: 'avatar_url' });
	}
	let placement: CustomerInput['placement'] = null;
	if (body.placement !== undefined && body.placement !== null) {
		const p = asBody(body.placement);
		placement = {
			agent_id: optionalUuid(p, 'agent_id'),
			pipeline_id: optionalUuid(p, 'pipeline_id'),
			stage_code: str(p, 'stage_code', 50),
		};
	}
	if (!phone && !email && messengers.length === 0) {
		throw validation('At least one identifier is required: phone, email or a messenger', {
			field: 'phone',
		});
	}
	return {
		full_name,
		phone,
		email,
		messengers,
		source,
		tags: tagsRaw as string[],
		language: language?.toLowerCase() ?? null,
		avatar_url,
		fetch_avatar,
		placement,
		variables: body.variables,
	};
}

/** Deduplication on the E.164 phone, the email, or any messenger identity. */
export function findDuplicate(store: Store, input: CustomerInput): CustomerRow | undefined {
	for (const customer of store.customers.values()) {
		if (!customer.is_active) continue;
		if (input.phone && customer.phone === input.phone) return customer;
		if (input.email && customer.email === input.email) return customer;
		if (
			input.messengers.some((m) =>
				customer.messengers.some((c) => c.type === m.type && c.id === m.id),
			)
		)
			return customer;
	}
	return undefined;
}

export function newMessenger(m: {
	type: string;
	id: string;
	username: string | null;
}): MessengerRow {
	return {
		type: m.type,
		id: m.id,
		username: m.username,
		last_inbound_at: null,
		// Test conventions: an id starting with "nostart" never pressed Start on the bot;
		// "blocked" blocked the bot; "nophoto" has no profile photo.
		started: !m.id.startsWith('nostart'),
		blocked: m.id.startsWith('blocked'),
		has_photo: !m.id.startsWith('nophoto'),
	};
}

/** Where a new customer's deal goes: placement, else the agent's or the company's default pipeline. */
export function resolvePlacement(
	store: Store,
	placement: CustomerInput['placement'],
): { pipeline: PipelineRow; stage: StageRow } | undefined {
	if (placement?.agent_id && !store.agents.has(placement.agent_id)) {
		throw validation(`placement.agent_id ${placement.agent_id} is not an agent of the company`, {
			field: 'placement.agent_id',
		});
	}
	let pipeline: PipelineRow | undefined;
	if (placement?.pipeline_id) {
		pipeline = store.pipelines.get(placement.pipeline_id);
		if (!pipeline)
			throw validation(`placement.pipeline_id ${placement.pipeline_id} is not a pipeline`, {
				field: 'placement.pipeline_id',
			});
		if (placement.agent_id && pipeline.agent_id !== placement.agent_id) {
			throw validation('placement.pipeline_id belongs to another agent', {
				field: 'placement.pipeline_id',
			});
		}
	} else {
		pipeline = store.defaultPipeline(placement?.agent_id ?? undefined);
	}
	if (!pipeline) return undefined;
	const stages = [...pipeline.stages].sort((a, b) => a.position - b.position);
	const stage = placement?.stage_code
		? stages.find((s) => s.stage_code === placement.stage_code)
		: stages[0];
	if (!stage) {
		throw validation(
			`placement.stage_code "${placement?.stage_code}" is not a stage of pipeline ${pipeline.name}`,
			{
				field: 'placement.stage_code',
			},
		);
	}
	return { pipeline, stage };
}

export function createDeal(
	store: Store,
	customerId: string,
	pipeline: PipelineRow,
	stage: StageRow,
	title: string | null,
	now: string,
): DealRow {
	const deal: DealRow = {
		id: newId(),
		customer_id: customerId,
		pipeline_id: pipeline.id,
		stage_id: stage.id,
		title,
		status: 'active',
		closed_reason: null,
		created_at: now,
		moved_at: null,
		variables: new Map(),
		order: store.tick(),
	};
	store.deals.set(deal.id, deal);
	return deal;
}

/** Avatar handling on create and upsert; returns the warnings (never fails the call). */
export function applyAvatar(
	customer: CustomerRow,
	input: CustomerInput,
	now: number,
): Array<{ code: string; message: string }> {
	const warnings: Array<{ code: string; message: string }> = [];
	const store = (source: string) => {
		if (customer.avatar_source === source) return; // unchanged photo: not downloaded again
		customer.avatar_source = source;
		customer.avatar_downloads++;
		customer.avatar_url = `/media/avatars/${customer.id}-${customer.avatar_downloads}.jpg`;
	};
	if (input.avatar_url) {
		if (/unavailable|\.invalid\//i.test(input.avatar_url)) {
			warnings.push({
				code: 'avatar_download_failed',
				message: `The photo at ${input.avatar_url} could not be downloaded`,
			});
		} else store(`url:${input.avatar_url}`);
		return warnings;
	}
	if (!input.fetch_avatar) return warnings;
	if (customer.messengers.length === 0) {
		warnings.push({
			code: 'avatar_channel_missing',
			message: 'The customer has no messenger to take a photo from',
		});
		return warnings;
	}
	const supported = customer.messengers.filter(
		(m) => AVATAR_FETCH.has(m.type) || WINDOW_MESSENGERS.has(m.type),
	);
	if (supported.length === 0) {
		warnings.push({
			code: 'avatar_unsupported',
			message: "None of the customer's messengers supports fetching a photo",
		});
		return warnings;
	}
	for (const m of supported) {
		if (WINDOW_MESSENGERS.has(m.type) && !windowOpen(m, now)) {
			warnings.push({
				code: 'avatar_window_closed',
				message: `The 24-hour window on ${m.type} is closed; no call was made`,
			});
			continue;
		}
		if (m.type === 'telegram' && !m.started) {
			warnings.push({
				code: 'avatar_no_relationship',
				message: 'The customer never pressed Start on the bot',
			});
			continue;
		}
		if (!m.has_photo) {
			warnings.push({
				code: 'avatar_no_photo',
				message: `The customer has no profile photo on ${m.type}`,
			});
			continue;
		}
		store(`messenger:${m.type}:${m.id}`);
		return [];
	}
	return warnings;
}

export function windowOpen(m: MessengerRow, now: number): boolean {
	return !!m.last_inbound_at && Date.parse(m.last_inbound_at) + WINDOW_MS > now;
}

export function messengerWindow(m: MessengerRow, now: number) {
	const windowed = WINDOW_MESSENGERS.has(m.type);
	const expires = m.last_inbound_at
		? new Date(Date.parse(m.last_inbound_at) + WINDOW_MS).toISOString()
		: null;
	return {
		type: m.type,
		id: m.id,
		username: m.username,
		last_inbound_at: m.last_inbound_at,
		can_send_freeform: windowed ? windowOpen(m, now) : true,
		window_expires_at: windowed ? expires : null,
	};
}

export function activeConversation(
	store: Store,
	customerId: string,
	agentId: string,
): ConversationRow | undefined {
	return [...store.conversations.values()].find(
		(c) => c.customer_id === customerId && c.agent_id === agentId && c.status === 'active',
	);
}

export function conflict(
	message: string,
	details: Record<string, unknown> = {},
	code = 'conflict',
): ApiError {
	return new ApiError(409, code, message, details);
}
