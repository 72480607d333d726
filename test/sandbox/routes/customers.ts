import {
	activeConversation,
	applyAvatar,
	asBody,
	conflict,
	createDeal,
	customerOut,
	dealOut,
	findDuplicate,
	isoNow,
	messengerWindow,
	newMessenger,
	optionalUuid,
	parseCustomerInput,
	requireCustomer,
	resolvePlacement,
} from '../crm';
import { ApiError, validation } from '../errors';
import { newId } from '../ids';
import { merge } from '../merge';
import type { Route } from '../server';
import { variableRoutes } from './variables';
import type { CustomerRow } from '../store';
import { normalizePhone, patchVariables } from '../variablesContract';

export const customerRoutes: Route[] = [
	{
		method: 'POST',
		path: '/customers',
		scope: 'customers:write',
		idempotent: true,
		storeError: (error) => error.status === 422,
		handler: ({ store, body, sandbox }) => {
			const input = parseCustomerInput(body);
			const now = sandbox.now();
			const at = isoNow(now);
			let customer = findDuplicate(store, input);
			const created = !customer;
			if (customer) {
				// Upsert branch: fill and update what was sent, add new identities; never relocate.
				const variables = new Map(customer.variables);
				if (input.variables !== undefined)
					patchVariables(variables, { variables: input.variables }, at);
				if (input.full_name !== null) customer.full_name = input.full_name;
				if (input.phone !== null) customer.phone = input.phone;
				if (input.email !== null) customer.email = input.email;
				if (input.source !== null) customer.source = input.source;
				if (input.language !== null) customer.language = input.language;
				for (const tag of input.tags) if (!customer.tags.includes(tag)) customer.tags.push(tag);
				for (const m of input.messengers) {
					const existing = customer.messengers.find((c) => c.type === m.type && c.id === m.id);
					if (existing) existing.username = m.username ?? existing.username;
					else customer.messengers.push(newMessenger(m));
				}
				customer.variables = variables;
			} else {
				const variables = new Map();
				if (input.variables !== undefined)
					patchVariables(variables, { variables: input.variables }, at);
				const placement = resolvePlacement(store, input.placement);
				const row: CustomerRow = {
					id: newId(),
					full_name: input.full_name,
					phone: input.phone,
					email: input.email,
					avatar_url: null,
					avatar_source: null,
					avatar_downloads: 0,
					source: input.source,
					language: input.language,
					tags: [...new Set(input.tags)],
					messengers: input.messengers.map(newMessenger),
					variables,
					notes: 0,
					merged_into: null,
					is_active: true,
					created_at: at,
				};
				store.customers.set(row.id, row);
				if (placement) createDeal(store, row.id, placement.pipeline, placement.stage, null, at);
				customer = row;
			}
			const warnings = applyAvatar(customer, input, now);
			return {
				status: created ? 201 : 200,
				body: { ...customerOut(store, customer, false), created, warnings },
			};
		},
	},
	{
		method: 'GET',
		path: '/customers/lookup',
		scope: 'customers:read',
		handler: ({ store, query }) => {
			const type = query.get('messenger_type');
			const id = query.get('messenger_id');
			const phone = query.get('phone');
			const email = query.get('email');
			const sets = [type !== null || id !== null, phone !== null, email !== null].filter(
				Boolean,
			).length;
			if (sets !== 1) {
				throw validation(
					'Pass exactly one set: messenger_type with messenger_id, or phone, or email',
					{ field: 'query' },
				);
			}
			let match: CustomerRow | undefined;
			const active = [...store.customers.values()].filter((c) => c.is_active);
			if (type !== null || id !== null) {
				if (!type || !id)
					throw validation('messenger_type and messenger_id go together', {
						field: type ? 'messenger_id' : 'messenger_type',
					});
				match = active.find((c) => c.messengers.some((m) => m.type === type && m.id === id));
			} else if (phone !== null) {
				const normalized = normalizePhone(phone);
				if (!normalized) throw validation('phone is not a phone number', { field: 'phone' });
				match = active.find((c) => c.phone === normalized);
			} else {
				const normalized = (email ?? '').trim().toLowerCase();
				match = active.find((c) => c.email === normalized);
			}
			if (!match)
				throw new ApiError(404, 'not_found', 'No customer matches', { resource: 'customer' });
			return { status: 200, body: customerOut(store, match) };
		},
	},
	{
		method: 'GET',
		path: '/customers/:customer_id',
		scope: 'customers:read',
		uuidParams: ['customer_id'],
		handler: ({ store, params }) => ({
			status: 200,
			body: customerOut(store, requireCustomer(store, params.customer_id)),
		}),
	},
	{
		method: 'GET',
		path: '/customers/:customer_id/messengers',
		scope: 'customers:read',
		uuidParams: ['customer_id'],
		handler: ({ store, params, sandbox }) => {
			const customer = requireCustomer(store, params.customer_id);
			return {
				status: 200,
				body: { messengers: customer.messengers.map((m) => messengerWindow(m, sandbox.now())) },
			};
		},
	},
	{
		method: 'POST',
		path: '/customers/:customer_id/conversations',
		scope: 'customers:write',
		uuidParams: ['customer_id'],
		handler: ({ store, params, body, sandbox }) => {
			const customer = requireCustomer(store, params.customer_id);
			let agentId = optionalUuid(asBody(body), 'agent_id');
			if (agentId && !store.agents.has(agentId))
				throw validation(`agent_id ${agentId} is not an agent of the company`, {
					field: 'agent_id',
				});
			if (!agentId) {
				const dialog = [...store.conversations.values()].find(
					(c) => c.customer_id === customer.id && c.status === 'active',
				);
				const deal = store.currentDeal(customer.id);
				agentId =
					dialog?.agent_id ??
					(deal ? (store.pipelines.get(deal.pipeline_id)?.agent_id ?? null) : null);
				if (!agentId && store.agents.size === 1) agentId = [...store.agents.keys()][0];
				if (!agentId) {
					throw validation(
						'agent_id is required: the customer has no dialog or deal to inherit the agent from',
						{ field: 'agent_id' },
					);
				}
			}
			const agent = store.agents.get(agentId)!;
			const blocked = customer.messengers.some(
				(m) => m.type === 'telegram' && m.blocked && agent.messengers.includes('telegram'),
			);
			const existing = activeConversation(store, customer.id, agentId);
			const at = isoNow(sandbox.now());
			const conversation = existing ?? {
				id: newId(),
				customer_id: customer.id,
				agent_id: agentId,
				status: 'active' as const,
				created_at: at,
				timeline: [
					{ id: newId(), kind: 'system' as const, text: 'Conversation created via API', at },
				],
			};
			if (!existing) {
				if (blocked)
					conversation.timeline.push({
						id: newId(),
						kind: 'system',
						text: 'The customer has blocked the bot',
						at,
					});
				store.conversations.set(conversation.id, conversation);
			}
			const out: Record<string, unknown> = {
				id: conversation.id,
				channel_id: agentId,
				crm_url: `${sandbox.url}/crm/dialogs/${conversation.id}`,
				customer_blocked: blocked,
				created: !existing,
			};
			if (blocked)
				out.warnings = [
					{
						code: 'customer_blocked_bot',
						message: 'The customer has blocked the bot on this messenger',
					},
				];
			return { status: existing ? 200 : 201, body: out };
		},
	},
	{
		method: 'GET',
		path: '/customers/:customer_id/deals',
		scope: 'customers:read',
		uuidParams: ['customer_id'],
		handler: ({ store, params, query }) => {
			const customer = requireCustomer(store, params.customer_id);
			const pipelineId = query.get('pipeline_id');
			if (pipelineId !== null && !/^[0-9a-f-]{36}$/i.test(pipelineId))
				throw validation('pipeline_id must be a UUID', { field: 'pipeline_id' });
			const deals = [...store.deals.values()]
				.filter(
					(d) => d.customer_id === customer.id && (!pipelineId || d.pipeline_id === pipelineId),
				)
				.sort((a, b) => a.order - b.order);
			return { status: 200, body: { deals: deals.map((d) => dealOut(store, d)) } };
		},
	},
	{
		method: 'POST',
		path: '/customers/:customer_id/deals',
		scope: 'customers:write',
		uuidParams: ['customer_id'],
		handler: ({ store, params, body, sandbox }) => {
			const customer = requireCustomer(store, params.customer_id);
			const b = asBody(body);
			const pipelineId = optionalUuid(b, 'pipeline_id');
			const stageId = optionalUuid(b, 'stage_id');
			const agentId = optionalUuid(b, 'agent_id');
			const stageCode = b.stage_code ?? null;
			if (stageCode !== null && typeof stageCode !== 'string')
				throw validation('stage_code must be a string', { field: 'stage_code' });
			const title = b.title ?? null;
			if (title !== null && (typeof title !== 'string' || title.length > 255))
				throw validation('title must be a string of at most 255 characters', { field: 'title' });
			if (stageId && stageCode)
				throw validation('Pass stage_id or stage_code, not both', { field: 'stage_id' });
			if (agentId && !store.agents.has(agentId))
				throw validation(`agent_id ${agentId} is not an agent of the company`, {
					field: 'agent_id',
				});
			let pipeline = pipelineId ? store.pipelines.get(pipelineId) : undefined;
			if (pipelineId && !pipeline)
				throw validation(`pipeline_id ${pipelineId} is not a pipeline`, { field: 'pipeline_id' });
			if (!pipeline && stageId) pipeline = store.stageById(stageId)?.pipeline;
			pipeline ??= store.defaultPipeline(agentId ?? undefined);
			if (!pipeline)
				throw validation('No pipeline to create the deal in', { field: 'pipeline_id' });
			if (agentId && pipeline.agent_id !== agentId)
				throw validation('The pipeline belongs to another agent', { field: 'agent_id' });
			const stages = [...pipeline.stages].sort((a, b2) => a.position - b2.position);
			const stage = stageId
				? stages.find((s) => s.id === stageId)
				: stageCode
					? stages.find((s) => s.stage_code === stageCode)
					: stages[0];
			if (!stage) {
				throw validation(`The stage is not in pipeline "${pipeline.name}"`, {
					field: stageId ? 'stage_id' : 'stage_code',
					pipeline_id: pipeline.id,
				});
			}
			const active = store.activeDeals(customer.id).find((d) => d.pipeline_id === pipeline!.id);
			if (active) {
				throw conflict(`The customer already has an active deal in pipeline "${pipeline.name}"`, {
					pipeline_id: pipeline.id,
					pipeline_name: pipeline.name,
					deal_id: active.id,
				});
			}
			const deal = createDeal(
				store,
				customer.id,
				pipeline,
				stage,
				title as string | null,
				isoNow(sandbox.now()),
			);
			return { status: 201, body: dealOut(store, deal) };
		},
	},
	{
		method: 'POST',
		path: '/customers/:customer_id/stage',
		scope: 'customers:write',
		uuidParams: ['customer_id'],
		handler: ({ store, params, body, sandbox }) => {
			const customer = requireCustomer(store, params.customer_id);
			const b = asBody(body);
			const stageId = optionalUuid(b, 'stage_id');
			const stageCode = b.stage_code ?? null;
			if (stageCode !== null && typeof stageCode !== 'string')
				throw validation('stage_code must be a string', { field: 'stage_code' });
			const reason = b.reason ?? null;
			if (reason !== null && typeof reason !== 'string')
				throw validation('reason must be a string', { field: 'reason' });
			if ((stageId === null) === (stageCode === null)) {
				throw validation('Pass exactly one of stage_id and stage_code', { field: 'stage_id' });
			}
			const deal = store.currentDeal(customer.id);
			if (!deal)
				throw conflict(
					'The customer has no active deal to move',
					{ customer_id: customer.id },
					'no_active_deal',
				);
			const pipeline = store.pipelines.get(deal.pipeline_id)!;
			const stage = stageId
				? pipeline.stages.find((s) => s.id === stageId)
				: pipeline.stages.find((s) => s.stage_code === stageCode);
			if (!stage) {
				throw conflict(
					`The stage ${stageId ?? `"${stageCode}"`} is outside the customer's pipeline "${pipeline.name}"`,
					{
						pipeline_id: pipeline.id,
						pipeline_name: pipeline.name,
						...(stageId ? { stage_id: stageId } : { stage_code: stageCode }),
					},
					'stage_outside_pipeline',
				);
			}
			deal.stage_id = stage.id;
			deal.moved_at = isoNow(sandbox.now());
			deal.order = store.tick();
			return {
				status: 200,
				body: {
					deal_id: deal.id,
					stage_id: stage.id,
					stage_code: stage.stage_code,
					moved_at: deal.moved_at,
				},
			};
		},
	},
	{
		method: 'POST',
		path: '/customers/:customer_id/merge',
		scope: 'customers:write',
		uuidParams: ['customer_id'],
		handler: ({ store, params, body, sandbox }) => ({
			status: 200,
			body: merge(
				store,
				requireCustomer(store, params.customer_id),
				asBody(body),
				isoNow(sandbox.now()),
			),
		}),
	},
	...variableRoutes(
		'/customers/:customer_id',
		'customer_id',
		(store, id) => requireCustomer(store, id).variables,
	),
];
