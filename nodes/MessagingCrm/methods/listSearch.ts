import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listAgents, listPipelines, listPools } from '../transport/endpoints';
import { currentId } from './loadOptions';

function matches(text: string, filter?: string): boolean {
	return !filter || text.toLowerCase().includes(filter.trim().toLowerCase());
}

export async function searchAgents(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const agents = await listAgents(this);
	return {
		results: agents
			.filter((a) => matches(`${a.name} ${a.id}`, filter))
			.sort((a, b) => a.name.localeCompare(b.name))
			.map((a) => ({ name: a.name, value: a.id })),
	};
}

export async function searchPipelines(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const pipelines = await listPipelines(this, { agentId: currentId(this, 'agentId') });
	return {
		results: pipelines
			.filter((p) => matches(`${p.name} ${p.id}`, filter))
			.sort((a, b) => a.name.localeCompare(b.name))
			.map((p) => ({ name: p.name, value: p.id })),
	};
}

export async function searchPools(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const { pools } = await listPools(this);
	return {
		results: pools
			.map((p) => ({
				id: String(p.id),
				title: String(p.title),
				counts: `${String(p.remaining)}/${String(p.total)}${p.is_enabled ? '' : ', disabled'}`,
			}))
			.filter((p) => matches(`${p.title} ${p.id}`, filter))
			.sort((a, b) => a.title.localeCompare(b.title))
			.map((p) => ({ name: `${p.title} (${p.counts})`, value: p.id })),
	};
}
