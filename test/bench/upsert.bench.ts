/**
 * `npm run bench -- upsert`. Bulk upsert: 1,000 Create or Update through the node and through
 * n8n's HTTP Request node.
 */
import type { INodeTypes } from 'n8n-workflow';
import { runNode } from '../harness/engine';
import {
	BASE,
	fresh,
	httpNode,
	items,
	LIMIT,
	percent,
	repeated,
	requestLog,
	row,
	show,
	stats,
	UPSERT,
	WINDOW_MS,
	windowShare,
} from './runner';

export async function bulkUpsert(types: INodeTypes) {
	const input = items(1000, (i) => ({ phone: `+1555${String(1000000 + i)}`, name: `Bulk ${i}` }));
	const run = async (label: string, go: (apiKey: string) => ReturnType<typeof runNode>) => {
		const s = await repeated('bulkUpsert', label, async () => {
			const apiKey = await fresh({ enabled: true, limit: LIMIT, windowMs: WINDOW_MS });
			const started = Date.now();
			const result = await go(apiKey);
			const seconds = (Date.now() - started) / 1000;
			const log = await requestLog();
			const st = await stats();
			const created = st.customers;
			return {
				seconds,
				requests: log.length,
				// Over full windows only; a run that stopped in its first window has none to show.
				share_of_limit: windowShare(log),
				responses_429: st.byStatus['429'] ?? 0,
				failed_items: result.error
					? 1000 - created
					: result.items.filter((i) => i.json.error).length,
				duplicate_customers: Math.max(0, created - (st.distinctPhones as number)),
			};
		});
		row(
			'Bulk upsert 1,000',
			label,
			`${percent(s.share_of_limit)} of limit`,
			`${show(s.responses_429, 0)} answered 429`,
			`${show(s.failed_items, 0)} failed`,
			`${show(s.duplicate_customers, 0)} duplicates`,
			`${show(s.seconds, 1, ' s')}`,
		);
	};
	await run('Messaging CRM node', (apiKey) =>
		runNode({
			parameters: UPSERT,
			credentials: { baseUrl: BASE, apiKey },
			items: input,
			continueOnFail: true,
		}),
	);
	const body = {
		method: 'POST',
		url: `${BASE}/customers`,
		sendBody: true,
		specifyBody: 'json',
		jsonBody: '={{ JSON.stringify({ phone: $json.phone, full_name: $json.name }) }}',
	};
	await run('HTTP Request, defaults', (apiKey) =>
		runNode({
			...httpNode(body),
			credentials: { baseUrl: BASE, apiKey },
			items: input,
			nodeTypes: types,
		}),
	);
	const retry = httpNode(body, { retryOnFail: true, maxTries: 5, waitBetweenTries: 5000 });
	await run('HTTP Request, Retry On Fail max', (apiKey) =>
		runNode({ ...retry, credentials: { baseUrl: BASE, apiKey }, items: input, nodeTypes: types }),
	);
}
