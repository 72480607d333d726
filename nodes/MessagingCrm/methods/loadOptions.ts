import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import type { Agent, Pipeline } from '../helpers/types';
import { isUuid } from '../helpers/validate';
import { apiRequest } from '../transport/request';

function byName(a: INodePropertyOptions, b: INodePropertyOptions): number {
	return a.name.localeCompare(b.name);
}

/** Reads an ID parameter of the node being edited, whether a plain value or a resource locator. */
export function currentId(ctx: ILoadOptionsFunctions, name: string): string | undefined {
	const raw = ctx.getCurrentNodeParameter(name) as unknown;
	const value = typeof raw === 'object' && raw !== null && 'value' in raw ? (raw as { value: unknown }).value : raw;
	return isUuid(value) ? value : undefined;
}

export async function listAgents(ctx: ILoadOptionsFunctions): Promise<Agent[]> {
	const { body } = await apiRequest<Agent[]>(ctx, { method: 'GET', path: '/agents', scope: 'agents:read' });
	return Array.isArray(body) ? body : [];
}

export async function listPipelines(ctx: ILoadOptionsFunctions, agentId?: string): Promise<Pipeline[]> {
	const { body } = await apiRequest<Pipeline[]>(ctx, {
		method: 'GET',
		path: '/pipelines',
		query: { agent_id: agentId },
		scope: 'pipelines:read',
	});
	return Array.isArray(body) ? body : [];
}

export function agentOption(agent: Agent): INodePropertyOptions {
	const messengers = agent.messengers?.length ? agent.messengers.join(', ') : 'no messengers';
	return {
		name: agent.is_active ? agent.name : `${agent.name} (inactive)`,
		value: agent.id,
		description: messengers,
	};
}

export async function getAgents(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return (await listAgents(this)).map(agentOption).sort(byName);
}

/** Pipelines, limited to the agent picked in the same node when there is one. */
export async function getPipelines(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const pipelines = await listPipelines(this, currentId(this, 'agentId'));
	return pipelines
		.map((p) => ({
			name: p.is_default ? `${p.name} (default)` : p.name,
			value: p.id,
			description: `${p.stages?.length ?? 0} stages`,
		}))
		.sort(byName);
}

async function stagesOfCurrentPipeline(ctx: ILoadOptionsFunctions) {
	const pipelineId = currentId(ctx, 'pipelineId');
	if (!pipelineId) return [];
	const pipeline = (await listPipelines(ctx)).find((p) => p.id === pipelineId);
	return [...(pipeline?.stages ?? [])].sort((a, b) => a.position - b.position);
}

/** Stages of the pipeline picked in the same node, by their stable `stage_code`, in pipeline order. */
export async function getStageCodes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return (await stagesOfCurrentPipeline(this))
		.filter((s) => s.stage_code)
		.map((s) => ({ name: `${s.name} (${s.stage_code})`, value: s.stage_code as string }));
}

/** Stages of the pipeline picked in the same node, by ID, in pipeline order. */
export async function getStageIds(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return (await stagesOfCurrentPipeline(this)).map((s) => ({
		name: s.stage_code ? `${s.name} (${s.stage_code})` : s.name,
		value: s.id,
	}));
}
