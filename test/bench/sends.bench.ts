/**
 * `npm run bench -- sends`. Sends under faults: a server that fails, times out or answers late.
 */
import type { INodeExecutionData, INodeTypes } from 'n8n-workflow';
import { runNode } from '../harness/engine';
import {
	BASE,
	control,
	fresh,
	httpNode,
	items,
	LIMIT,
	repeated,
	row,
	show,
	stats,
	WINDOW_MS,
} from './runner';

export async function sendsUnderFaults(types: INodeTypes) {
	const run = async (
		label: string,
		go: (apiKey: string, input: INodeExecutionData[]) => ReturnType<typeof runNode>,
	) => {
		const s = await repeated('sendsUnderFaults', label, async () => {
			const apiKey = await fresh({ enabled: false, limit: LIMIT, windowMs: WINDOW_MS });
			const { ids } = (await control('POST', '/customers/bulk', { count: 500 })) as {
				ids: string[];
			};
			await control('DELETE', '/requests');
			await control('POST', '/chaos', {
				seed: 42,
				p502: 0.05,
				pReset: 0.05,
				p429: 0.05,
				pathPrefix: '/customers/',
			});
			const started = Date.now();
			const result = await go(
				apiKey,
				items(500, (i) => ({ id: ids[i] })),
			);
			const seconds = (Date.now() - started) / 1000;
			await control('POST', '/chaos', {});
			const st = await stats();
			return {
				seconds,
				delivered: st.messagesSent,
				customers_messaged_twice: st.customersWithMoreThanOneMessage,
				// Items that never got their message (with a node-level failure, every customer not messaged).
				failed_items: result.error
					? 500 - Number(st.customersMessaged)
					: result.items.filter((i) => i.json.error).length,
				extra_requests: st.requests - 500,
			};
		});
		row(
			'500 sends, 15 % faults',
			label,
			`${show(s.delivered, 0)} delivered`,
			`${show(s.customers_messaged_twice, 0)} twice`,
			`${show(s.failed_items, 0)} failed`,
			`+${show(s.extra_requests, 0)} requests`,
			`${show(s.seconds, 1, ' s')}`,
		);
	};
	const ours = {
		resource: 'message',
		operation: 'send',
		customerId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
		messengerType: 'telegram',
		content: 'text',
		text: 'Your order has shipped.',
	};
	await run('Messaging CRM node', (apiKey, input) =>
		runNode({
			parameters: ours,
			credentials: { baseUrl: BASE, apiKey },
			items: input,
			continueOnFail: true,
		}),
	);
	const body = {
		method: 'POST',
		url: `=${BASE}/customers/{{ $json.id }}/messages`,
		sendBody: true,
		specifyBody: 'json',
		jsonBody: '={"messenger_type": "telegram", "text": "Your order has shipped."}',
	};
	await run('HTTP Request, Retry On Fail max', (apiKey, input) =>
		runNode({
			...httpNode(body, { retryOnFail: true, maxTries: 5, waitBetweenTries: 5000 }),
			credentials: { baseUrl: BASE, apiKey },
			items: input,
			nodeTypes: types,
		}),
	);
}
