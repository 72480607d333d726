/* eslint-disable @n8n/community-nodes/no-restricted-globals -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * `npm run bench -- overhead`. The node's own cost per item beside n8n's HTTP Request node, in
 * memory and time.
 */
import type { INodeTypes } from 'n8n-workflow';
import { runNode } from '../harness/engine';
import {
	BASE,
	control,
	fresh,
	httpNode,
	items,
	LIMIT,
	people,
	repeated,
	row,
	show,
	UPSERT,
	WINDOW_MS,
} from './runner';

/** Milliseconds per item of a whole run, the node against n8n's HTTP Request node doing the same. */
export async function perItemOverhead(types: INodeTypes) {
	const timeIt = async (count: number, go: () => ReturnType<typeof runNode>) => {
		const started = process.hrtime.bigint();
		const result = await go();
		const ms = Number(process.hrtime.bigint() - started) / 1e6;
		if (result.error || result.items.length !== count)
			throw new Error(`overhead run failed: ${result.error?.message ?? result.items.length}`);
		return ms / count;
	};
	// Reads: Get Customer × 2,000, up to 8 in flight.
	const reads = await repeated(
		'perItemOverhead',
		'reads (Get Customer × 2,000, 8 at once)',
		async () => {
			const apiKey = await fresh({ enabled: false, limit: LIMIT, windowMs: WINDOW_MS });
			const { ids } = (await control('POST', '/customers/bulk', { count: 2000 })) as {
				ids: string[];
			};
			const input = items(2000, (i) => ({ id: ids[i] }));
			const credentials = { baseUrl: BASE, apiKey };
			const node = await timeIt(2000, () =>
				runNode({
					parameters: {
						resource: 'customer',
						operation: 'get',
						customerId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
					},
					credentials,
					items: input,
				}),
			);
			const http = await timeIt(2000, () =>
				runNode({
					...httpNode({ method: 'GET', url: `=${BASE}/customers/{{ $json.id }}` }),
					credentials,
					items: input,
					nodeTypes: types,
				}),
			);
			return { node_ms_per_item: node, http_request_ms_per_item: http, ratio: node / http };
		},
	);
	// Writes: Create or Update × 500, one at a time.
	const writes = await repeated(
		'perItemOverhead',
		'writes (Create or Update × 500, 1 at a time)',
		async (run) => {
			const apiKey = await fresh({ enabled: false, limit: LIMIT, windowMs: WINDOW_MS });
			const credentials = { baseUrl: BASE, apiKey };
			const input = people(500, `6${run}`);
			const node = await timeIt(500, () =>
				runNode({ parameters: UPSERT, credentials, items: input }),
			);
			const http = await timeIt(500, () =>
				runNode({
					...httpNode({
						method: 'POST',
						url: `${BASE}/customers`,
						sendBody: true,
						specifyBody: 'json',
						jsonBody: '={{ JSON.stringify({ phone: $json.phone, full_name: $json.name }) }}',
					}),
					credentials,
					items: input,
					nodeTypes: types,
				}),
			);
			return { node_ms_per_item: node, http_request_ms_per_item: http, ratio: node / http };
		},
	);
	for (const [label, s] of [
		['Get Customer × 2,000 (reads, 8 at once)', reads],
		['Create or Update × 500 (writes, 1 at a time)', writes],
	] as const) {
		row(
			label,
			'Messaging CRM node',
			`${show(s.node_ms_per_item, 3, ' ms')}/item`,
			'',
			'',
			`ratio ${show(s.ratio, 2)}`,
			'',
		);
		row(
			label,
			'HTTP Request',
			`${show(s.http_request_ms_per_item, 3, ' ms')}/item`,
			'',
			'',
			'',
			'',
		);
	}
}
