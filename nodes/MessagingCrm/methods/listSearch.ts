import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listPools } from '../shared/reads';

function matches(text: string, filter?: string): boolean {
	return !filter || text.toLowerCase().includes(filter.trim().toLowerCase());
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
