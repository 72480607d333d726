/* eslint-disable @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * `npm run bench -- queue`. Queue mode in real n8n: PostgreSQL, Redis, main and workers, at the
 * limit.
 */
import path from 'path';
import { UPSERTS } from '../e2e/listWorkflows';
import { ROOT } from '../e2e/n8n';
import { startQueueStack } from '../e2e/queue';
import { triggerWebhook } from '../e2e/rest';
import { importCredential, importWorkflows, publishWorkflow, setupOwner } from '../e2e/setup';
import {
	BASE,
	control,
	fresh,
	LIMIT,
	percent,
	repeated,
	requestLog,
	row,
	show,
	stats,
	WINDOW_MS,
	windowShare,
} from './runner';

/**
 * Queue mode (n8n main and 2 workers, PostgreSQL, Redis; see test/e2e/queue.ts): 4 executions of
 * upserts started at once, spread over the workers, each pacing itself from the API's headers.
 * Once at the shortened window, once at the API's own 60-second window.
 */
export async function queueMode() {
	const apiKey = await fresh({ enabled: true, limit: LIMIT, windowMs: WINDOW_MS });
	const stack = await startQueueStack(
		{
			root: path.join(ROOT, '.cache', 'queue-bench'),
			mainPort: 5740,
			pgPort: 5441,
			redisPort: 6392,
		},
		async (cli) => {
			await importCredential(cli, { baseUrl: BASE, apiKey });
			await importWorkflows(cli, [UPSERTS]);
			await publishWorkflow(cli, UPSERTS.id);
		},
	);
	try {
		const session = { url: stack.url, cookie: await setupOwner(stack.url) };
		for (const [label, windowMs, perRun, base] of [
			['6 s window', WINDOW_MS, 150, 300000],
			['60 s window', 60_000, 75, 400000],
		] as const) {
			const s = await repeated('queueMode', label, async (run) => {
				// The same key for every run (the credential holds it): a new rate window and a clean log.
				await control('POST', '/config', { rateLimit: { enabled: true, limit: LIMIT, windowMs } });
				await control('DELETE', '/requests');
				const before = await stats();
				const started = Date.now();
				const ended = await triggerWebhook(
					session,
					'retry-upserts',
					UPSERTS.id,
					[1, 2, 3, 4].map((n) => ({
						people: Array.from({ length: perRun }, (_, i) => ({
							phone: `+1555${run}${n}${String(base + i)}`,
							name: `Queue ${n}-${i}`,
						})),
					})),
					20 * 60_000,
				);
				const seconds = (Date.now() - started) / 1000;
				const log = (await requestLog()).filter(
					(r) => r.method === 'POST' && r.path === '/customers',
				);
				const st = await stats();
				return {
					seconds,
					requests: log.length,
					responses_429: log.filter((r) => r.status === 429).length,
					share_of_limit: windowShare(
						log.filter((r) => r.status < 400),
						windowMs,
					),
					failed_executions: ended.filter((e) => e.status !== 'success').length,
					customers: st.customers - before.customers,
					duplicates: Math.max(
						0,
						st.customers -
							(st.distinctPhones as number) -
							(before.customers - (before.distinctPhones as number)),
					),
				};
			});
			row(
				`Queue mode, ${4 * perRun} upserts`,
				`2 workers, ${label}`,
				`${percent(s.share_of_limit)} of limit`,
				`${show(s.responses_429, 0)} 429 on the wire`,
				`${show(s.failed_executions, 0)} failed`,
				`${show(s.duplicates, 0)} duplicates`,
				`${show(s.seconds, 1, ' s')}`,
			);
		}
	} finally {
		await stack.stop();
	}
}
