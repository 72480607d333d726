import {
	activeConversation,
	asBody,
	isoNow,
	optionalUuid,
	requireCustomer,
	windowOpen,
	WINDOW_MESSENGERS,
} from '../crm';
import { ApiError, validation } from '../errors';
import { newId } from '../ids';
import { render, renderGroup } from '../markdown';
import type { Route } from '../server';
import type { ConversationRow, CustomerRow, MessageRow, Store } from '../store';

/** The spec's send failures: status, and whether a retry can help. */
export const SEND_FAILURES: Record<
	string,
	{ status: number; retryable: boolean; provider: string }
> = {
	no_peer: {
		status: 409,
		retryable: false,
		provider: 'Bad Request: chat not found (the user never started the bot)',
	},
	recipient_unreachable: {
		status: 409,
		retryable: false,
		provider: 'Forbidden: bot was blocked by the user',
	},
	channel_unavailable: {
		status: 409,
		retryable: false,
		provider: 'Unauthorized: the connection token was revoked',
	},
	send_rejected: { status: 409, retryable: false, provider: 'Message rejected by the messenger' },
	send_failed: { status: 502, retryable: true, provider: 'ETIMEDOUT talking to the messenger' },
	bizchat_window_closed: {
		status: 409,
		retryable: false,
		provider: 'Re-engagement message: more than 24 hours since the customer last replied',
	},
};

const MESSAGES: Record<string, string> = {
	no_peer: 'The bot cannot write first to a customer who never pressed Start',
	recipient_unreachable: 'The customer cannot be reached on this messenger',
	channel_unavailable: 'The connection of this messenger is broken; reconnect it in the CRM',
	send_rejected: 'The messenger refused the message',
	send_failed: 'The messenger did not answer; the message was not delivered',
	bizchat_window_closed:
		'Free-form text is not allowed outside the 24-hour window; send a template',
};

interface TemplateIn {
	name: string;
	lang: string;
	variables: unknown[];
	button_param: string | null;
}

function parseTemplate(raw: unknown, field: string): TemplateIn {
	const t = asBody(raw);
	if (typeof t.name !== 'string' || !t.name.trim())
		throw validation(`${field}.name is required`, { field: `${field}.name` });
	const lang = t.lang ?? 'en';
	if (typeof lang !== 'string')
		throw validation(`${field}.lang must be a string`, { field: `${field}.lang` });
	const variables = t.variables ?? [];
	if (!Array.isArray(variables))
		throw validation(`${field}.variables must be an array`, { field: `${field}.variables` });
	const button = t.button_param ?? null;
	if (button !== null && typeof button !== 'string')
		throw validation(`${field}.button_param must be a string`, { field: `${field}.button_param` });
	return { name: t.name, lang, variables, button_param: button };
}

function checkTemplate(store: Store, agentId: string, template: TemplateIn, field: string): void {
	const found = store.templates.find((t) => t.agent_id === agentId && t.name === template.name);
	if (!found)
		throw validation(`Template "${template.name}" does not exist for this agent`, {
			field: `${field}.name`,
		});
	if (found.status !== 'APPROVED')
		throw validation(`Template "${template.name}" is ${found.status}, not APPROVED`, {
			field: `${field}.name`,
		});
	if (template.variables.length !== found.variables.length) {
		throw validation(
			`Template "${template.name}" takes ${found.variables.length} variables, got ${template.variables.length}`,
			{ field: `${field}.variables` },
		);
	}
}

function dialogFor(
	store: Store,
	customer: CustomerRow,
	agentId: string,
	at: string,
): ConversationRow {
	let dialog = activeConversation(store, customer.id, agentId);
	if (!dialog) {
		dialog = {
			id: newId(),
			customer_id: customer.id,
			agent_id: agentId,
			status: 'active',
			created_at: at,
			timeline: [],
		};
		store.conversations.set(dialog.id, dialog);
	}
	return dialog;
}

export const messageRoutes: Route[] = [
	{
		method: 'POST',
		path: '/customers/:customer_id/messages',
		uuidParams: ['customer_id'],
		idempotent: true,
		// Final refusals are stored under the Idempotency-Key like a success; transient ones (502) are not.
		storeError: (error) => error.status === 409 || error.status === 422 || error.status === 404,
		scope: (body) => {
			const b = asBody(body);
			const hasText = typeof b.text === 'string' && b.text !== '';
			const hasTemplate = b.template !== undefined && b.template !== null;
			if (hasText === hasTemplate)
				throw validation('Pass exactly one of text and template', { field: 'text' });
			return hasTemplate ? 'messages:template' : 'messages:send';
		},
		handler: ({ store, params, body, sandbox }) => {
			const customer = requireCustomer(store, params.customer_id);
			const b = asBody(body);
			const type = b.messenger_type;
			if (typeof type !== 'string' || !type)
				throw validation('messenger_type is required', { field: 'messenger_type' });
			const messenger = customer.messengers.find((m) => m.type === type);
			if (!messenger)
				throw validation(`The customer has no ${type} messenger`, { field: 'messenger_type' });
			let agentId = optionalUuid(b, 'agent_id');
			if (agentId && !store.agents.get(agentId)?.messengers.includes(type)) {
				throw validation(`The agent has no ${type} messenger connected`, { field: 'agent_id' });
			}
			agentId ??= [...store.agents.values()].find((a) => a.messengers.includes(type))?.id ?? null;
			if (!agentId)
				throw validation(`No agent of the company has ${type} connected`, {
					field: 'messenger_type',
				});
			const text = typeof b.text === 'string' && b.text !== '' ? b.text : null;
			const template = text === null ? parseTemplate(b.template, 'template') : null;
			if (template) checkTemplate(store, agentId, template, 'template');
			let followUp: {
				after_minutes: number;
				text: string | null;
				template: TemplateIn | null;
			} | null = null;
			if (b.follow_up !== undefined && b.follow_up !== null) {
				const f = asBody(b.follow_up);
				const minutes = f.after_minutes;
				if (
					typeof minutes !== 'number' ||
					!Number.isInteger(minutes) ||
					minutes < 1 ||
					minutes > 10080
				) {
					throw validation('follow_up.after_minutes must be a whole number from 1 to 10080', {
						field: 'follow_up.after_minutes',
					});
				}
				const fText = typeof f.text === 'string' && f.text !== '' ? f.text : null;
				const fTemplate = f.template ? parseTemplate(f.template, 'follow_up.template') : null;
				if ((fText === null) === (fTemplate === null))
					throw validation('follow_up needs exactly one of text and template', {
						field: 'follow_up.text',
					});
				if (fTemplate) checkTemplate(store, agentId, fTemplate, 'follow_up.template');
				followUp = { after_minutes: minutes, text: fText, template: fTemplate };
			}
			const pause = b.pause_agent ?? false;
			if (typeof pause !== 'boolean')
				throw validation('pause_agent must be a boolean', { field: 'pause_agent' });

			// The copy in the CRM dialog exists before sending; on failure it stays marked failed.
			const now = sandbox.now();
			const at = isoNow(now);
			const dialog = dialogFor(store, customer, agentId, at);
			const message: MessageRow = {
				id: newId(),
				customer_id: customer.id,
				conversation_id: dialog.id,
				agent_id: agentId,
				messenger_type: type,
				text,
				template,
				rendered: text === null ? null : render(text, renderGroup(type)),
				status: 'sent',
				failure: null,
				at,
			};
			store.messages.set(message.id, message);
			dialog.timeline.push({
				id: message.id,
				kind: 'outgoing',
				text: text ?? `[template ${template?.name}]`,
				at,
				messenger_type: type,
			});

			let reason: string | undefined;
			const injected = store.sendFailures.get(customer.id);
			if (injected?.length) reason = injected.shift();
			else if (store.brokenChannels.has(type)) reason = 'channel_unavailable';
			else if (type === 'telegram' && !messenger.started) reason = 'no_peer';
			else if (type === 'telegram' && messenger.blocked) reason = 'recipient_unreachable';
			else if (text !== null && WINDOW_MESSENGERS.has(type) && !windowOpen(messenger, now))
				reason = 'bizchat_window_closed';
			if (reason) {
				const failure = SEND_FAILURES[reason] ?? SEND_FAILURES.send_failed;
				message.status = 'failed';
				message.failure = reason;
				throw new ApiError(failure.status, reason, MESSAGES[reason] ?? reason, {
					reason,
					retryable: failure.retryable,
					provider_error: failure.provider,
					message_id: message.id,
				});
			}

			if (pause) {
				store.pausedDialogs.add(dialog.id);
				dialog.timeline.push({ id: newId(), kind: 'pause', text: 'AI agent paused via API', at });
			}
			const out: Record<string, unknown> = {
				message_id: message.id,
				status: 'sent',
				messenger_type: type,
			};
			if (followUp) {
				const job = {
					job_id: newId(),
					customer_id: customer.id,
					message_id: message.id,
					scheduled_at: new Date(now + followUp.after_minutes * 60_000).toISOString(),
					status: 'scheduled' as const,
					text: followUp.text,
					template: followUp.template,
				};
				store.followUps.set(job.job_id, job);
				out.follow_up = { job_id: job.job_id, scheduled_at: job.scheduled_at };
			}
			return { status: 200, body: out };
		},
	},
];
