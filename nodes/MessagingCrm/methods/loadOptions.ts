import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { lookupQuery } from '../shared/customer';
import { EMPTY_CHOICES } from '../shared/emptyChoices';
import { BEST_AVAILABLE_CHOICE, MESSENGER_TYPE_OPTIONS, messengerName } from '../shared/messengers';
import { poolLabel } from '../shared/pool';
import { isUuid } from '../helpers/validate';
import { apiFailureOf, notFoundKind } from '../transport/errors';
import type { EmptyChoice } from './utils';
import { agentOption, byName, currentId, withEmptyChoice } from './utils';
import type { LookupQuery } from '../shared/reads';
import {
	customerMessengers,
	listAgents,
	listPipelines,
	listPools,
	listTemplates,
	lookupCustomer,
} from '../shared/reads';

/** Every agent, for a field that must be filled. */
export async function getAgents(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return (await listAgents(this)).map(agentOption).sort(byName);
}

/** A dropdown method; a headed list also names its first choice. */
export type Loader = ((this: ILoadOptionsFunctions) => Promise<INodePropertyOptions[]>) & {
	/** The first choice of the list, which says what leaving the field empty does. */
	emptyChoice?: EmptyChoice;
};

/** A list headed by what an empty choice means in the field (EMPTY_CHOICES). */
const headedBy = (list: Loader, empty: EmptyChoice): Loader =>
	Object.assign(
		async function (this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
			return withEmptyChoice(await list.call(this), empty);
		},
		{ emptyChoice: empty },
	);

export const getAgentsOrAll = headedBy(getAgents, EMPTY_CHOICES.allAgents);
export const getAgentsOrMessengerAgent = headedBy(getAgents, EMPTY_CHOICES.messengerAgent);
export const getAgentsOrInherited = headedBy(getAgents, EMPTY_CHOICES.inheritedAgent);
export const getAgentsOrDefault = headedBy(getAgents, EMPTY_CHOICES.defaultAgent);

/**
 * Pipelines, limited to the agent picked in the same node when there is one: "Sales · Support
 * Bot (default)", with the stages in the description. The agents' names need agents:read; a key
 * without it still gets the pipelines, named alone.
 */
export async function getPipelines(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const pipelines = await listPipelines(this, { agentId: currentId(this, 'agentId') });
	const agents = new Map(
		(await listAgents(this).catch(() => [])).map((agent) => [agent.id, agent.name]),
	);
	return pipelines
		.map((p) => {
			const agent = agents.get(p.agent_id);
			const stages = [...(p.stages ?? [])].sort((a, b) => a.position - b.position);
			return {
				name: `${p.name}${agent ? ` · ${agent}` : ''}${p.is_default ? ' (default)' : ''}`,
				value: p.id,
				description: `${stages.length} stages: ${stages.map((s) => s.name).join(' → ')}`,
			};
		})
		.sort(byName);
}

export const getPipelinesOrAll = headedBy(getPipelines, EMPTY_CHOICES.allPipelines);
export const getPipelinesOrDefault = headedBy(getPipelines, EMPTY_CHOICES.defaultPipeline);
export const getPipelinesOrNone = headedBy(getPipelines, EMPTY_CHOICES.noPipeline);

async function stagesOfCurrentPipeline(ctx: ILoadOptionsFunctions) {
	const pipelineId = currentId(ctx, 'pipelineId');
	if (!pipelineId) return [];
	const pipeline = (await listPipelines(ctx)).find((p) => p.id === pipelineId);
	return [...(pipeline?.stages ?? [])].sort((a, b) => a.position - b.position);
}

/** Stages of the pipeline picked in the same node, by their stable `stage_code`, in pipeline order. */
export async function getStageCodeList(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	return (await stagesOfCurrentPipeline(this))
		.filter((s) => s.stage_code)
		.map((s) => ({ name: `${s.name} (${s.stage_code})`, value: s.stage_code as string }));
}

/** The same, for a single choice that may stay empty (the first stage). */
export const getStageCodesOrFirst = headedBy(getStageCodeList, EMPTY_CHOICES.firstStage);

/** Stages of the pipeline picked in the same node, by ID, in pipeline order. */
export async function getStageIds(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return (await stagesOfCurrentPipeline(this)).map((s) => ({
		name: s.stage_code ? `${s.name} (${s.stage_code})` : s.name,
		value: s.id,
	}));
}

/** APPROVED business-chat templates, of the agent picked in the node when there is one. */
export async function getApprovedTemplates(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const templates = await listTemplates(this, { agentId: currentId(this, 'agentId') });
	return templates
		.filter((t) => t.status === 'APPROVED')
		.map((t) => ({
			name: `${String(t.name)} (${String(t.language)})`,
			value: String(t.name),
			description: `${Array.isArray(t.variables) ? t.variables.length : 0} variables`,
		}))
		.sort(byName);
}

/** Every messenger type, each saying why the customer's own list is not shown. */
function everyTypeBecause(reason: string): INodePropertyOptions[] {
	return MESSENGER_TYPE_OPTIONS.map((o) => ({
		...o,
		description: `${reason}: every messenger type is listed. Fix the Customer field to list only theirs.`,
	}));
}

/**
 * The messengers of the customer picked in the node, after Best Available. Before a customer is
 * picked (or when it is given by an expression), every known messenger type is offered instead;
 * so it is when nobody has that ID, phone or email, each choice saying so (other errors show as
 * n8n's load error).
 */
export async function getCustomerMessengers(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	return [BEST_AVAILABLE_CHOICE, ...(await messengersOfCustomer(this))];
}

async function messengersOfCustomer(ctx: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const raw = ctx.getCurrentNodeParameter('customerId') as unknown;
	const locator =
		typeof raw === 'object' && raw !== null
			? (raw as { mode?: string; value?: unknown })
			: { mode: 'id', value: raw };
	const value = typeof locator.value === 'string' ? locator.value.trim() : '';
	if (!value || value.startsWith('=')) return MESSENGER_TYPE_OPTIONS;
	let customerId: string | undefined = locator.mode === 'id' && isUuid(value) ? value : undefined;
	if (!customerId && locator.mode !== 'id') {
		// The same rules as the operation's own lookup; a value it would refuse offers every type.
		let query: LookupQuery;
		try {
			query = lookupQuery(ctx, 0, String(locator.mode), value);
		} catch {
			return MESSENGER_TYPE_OPTIONS;
		}
		const customer = await lookupCustomer(ctx, query);
		if (typeof customer?.id !== 'string')
			return everyTypeBecause(`No customer has the ${String(locator.mode)} ${value}`);
		customerId = customer.id;
	}
	if (!customerId) return everyTypeBecause(`"${value.slice(0, 60)}" is not a customer ID`);
	let messengers;
	try {
		messengers = await customerMessengers(ctx, customerId);
	} catch (error) {
		const failure = apiFailureOf(error);
		if (failure?.status === 404 && notFoundKind(failure) === 'customer')
			return everyTypeBecause(`No customer has the ID ${customerId}`);
		throw error instanceof NodeApiError
			? error
			: new NodeOperationError(ctx.getNode(), error as Error);
	}
	return messengers.map((m) => ({
		name: messengerName(m.type),
		value: String(m.type),
		description: `ID ${String(m.id)}${m.can_send_freeform === false ? ' · 24-hour window closed: templates only' : ''}`,
	}));
}

/**
 * Promo pools as "VIP gifts: 2 left of 10, low at 3", of the agent picked in the node when there
 * is one; a disabled pool says so.
 */
export async function getPools(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const { pools } = await listPools(this, { agentId: currentId(this, 'agentId') });
	return pools
		.map((p) => ({
			name: `${poolLabel(p)}${p.is_enabled === false ? ' (disabled)' : ''}`,
			value: String(p.id),
			...(typeof p.description === 'string' && p.description ? { description: p.description } : {}),
		}))
		.sort(byName);
}
