import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { lookupQuery } from '../shared/customer';
import { MESSENGER_TYPE_OPTIONS } from '../shared/messengers';
import { isUuid } from '../helpers/validate';
import { agentOption, byName, currentId, withNotSet } from './utils';
import type { LookupQuery } from '../shared/reads';
import {
	customerMessengers,
	listAgents,
	listPipelines,
	listPools,
	listTemplates,
	lookupCustomer,
} from '../shared/reads';

export async function getAgents(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return withNotSet((await listAgents(this)).map(agentOption).sort(byName));
}

/** Pipelines, limited to the agent picked in the same node when there is one. */
export async function getPipelines(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const pipelines = await listPipelines(this, { agentId: currentId(this, 'agentId') });
	return withNotSet(
		pipelines
			.map((p) => ({
				name: p.is_default ? `${p.name} (default)` : p.name,
				value: p.id,
				description: `${p.stages?.length ?? 0} stages`,
			}))
			.sort(byName),
	);
}

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

/** The same, for a single optional choice. */
export async function getStageCodes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return withNotSet(await getStageCodeList.call(this));
}

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

/**
 * The messengers of the customer picked in the node. Before a customer is picked (or when it is
 * given by an expression), every known messenger type is offered instead.
 */
export async function getCustomerMessengers(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const raw = this.getCurrentNodeParameter('customerId') as unknown;
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
			query = lookupQuery(this, 0, String(locator.mode), value);
		} catch {
			return MESSENGER_TYPE_OPTIONS;
		}
		const customer = await lookupCustomer(this, query);
		if (typeof customer?.id === 'string') customerId = customer.id;
	}
	if (!customerId) return MESSENGER_TYPE_OPTIONS;
	return (await customerMessengers(this, customerId)).map((m) => ({
		name: String(m.type),
		value: String(m.type),
		description: `ID ${m.id}${m.can_send_freeform === false ? ' · window closed: templates only' : ''}`,
	}));
}

/** Promo pools as "title (remaining/total)", of the agent picked in the node when there is one. */
export async function getPools(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const { pools } = await listPools(this, { agentId: currentId(this, 'agentId') });
	return pools
		.map((p) => ({
			name: `${String(p.title)} (${String(p.remaining)}/${String(p.total)})`,
			value: String(p.id),
		}))
		.sort(byName);
}
