/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * n8n's queue mode: main (webhooks, the polling trigger, the API) and two workers pulling
 * executions from Redis, PostgreSQL holding workflows, executions and the trigger's static data;
 * PostgreSQL and Redis from Debian's packages (see queue.ts). Every worker paces itself from the
 * API's headers alone, so two workers are two clients of one rate limit.
 */
import { rmSync } from 'fs';
import path from 'path';

import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { perFullWindow } from '../harness/windows';
import { DEMO } from '../sandbox/store';
import { SENDS, UPSERTS } from './listWorkflows';
import { connectMcp, mcpEndpoint, textOf } from './mcp';
import { ensureN8n, N8N_VERSION, ROOT } from './n8n';
import type { QueueStack } from './queue';
import { startQueueStack } from './queue';
import type { ExecutionSummary, Session } from './rest';
import {
	executions,
	postToWebhook,
	publishInEditor,
	retryExecution,
	holdsFor,
	triggerWebhook,
	until,
} from './rest';
import { answerIn, asking, linksIn, press } from './askWorkflows';
import type { WorkflowJson } from './setup';
import {
	apiCustomer,
	crmCredential,
	exampleWorkflow,
	importCredentials,
	importWorkflows,
	MCP_WORKFLOW_ID,
	mcpTokenCredential,
	privateLog,
	setupOwner,
} from './setup';
import { QUEUE_PORTS } from './ports';

/** The API's 120 per 60 s, ten times faster: the same ratio in a tenth of the time. */
const LIMIT = 120;
const WINDOW_MS = 6000;
const log = privateLog('n8n-queue.log');
const MCP_TOKEN = 'queue-e2e-mcp-token';
/** The stack's folders: PostgreSQL's data, and main's and each worker's n8n user folder. */
const QUEUE_ROOT = path.join(ROOT, '.cache', 'queue-e2e');

let sandbox: Sandbox;
let stack: QueueStack;
let session: Session;
const started = new Map<string, string>(); // execution ID → the worker that ran it
const runs = new Map<string, string[]>(); // execution ID → every process that started it
let anna: string;
const ASK = 'mcrmWaitQueue01';

function restockWorkflow(): WorkflowJson {
	const restock = exampleWorkflow('mcrmRestockFlow01');
	// The shortest poll interval n8n allows: every minute.
	restock.nodes[0].parameters.pollTimes = { item: [{ mode: 'everyMinute' }] };
	return restock;
}

beforeAll(async () => {
	await ensureN8n(N8N_VERSION);
	sandbox = await startSandbox({
		rateLimit: { enabled: true, limit: LIMIT, windowMs: WINDOW_MS, resetFormat: 'seconds' },
	});
	const apiKey = sandbox.mintKey();
	stack = await startQueueStack(
		{
			root: QUEUE_ROOT,
			mainPort: QUEUE_PORTS.main,
			pgPort: QUEUE_PORTS.pg,
			redisPort: QUEUE_PORTS.redis,
			env: { QUEUE_WORKER_STALLED_INTERVAL: '5000' },
			output: (who, chunk) => {
				log(`[${who}] ${chunk}`);
				for (const m of chunk.matchAll(/started execution (\d+)/gi)) {
					started.set(m[1], who);
					runs.set(m[1], [...(runs.get(m[1]) ?? []), who]);
				}
			},
		},
		async (cli) => {
			await importCredentials(cli, [
				crmCredential({ baseUrl: sandbox.url, apiKey }),
				mcpTokenCredential(MCP_TOKEN),
			]);
			const mcp = exampleWorkflow(MCP_WORKFLOW_ID);
			anna = await apiCustomer(sandbox, {
				full_name: 'Anna Queue',
				phone: '+15550200009',
				messengers: [{ type: 'telegram', id: '200009' }],
			});
			const ask = { ...asking(9, 'queue-ask', anna, {}), id: ASK };
			await importWorkflows(cli, [SENDS, UPSERTS, restockWorkflow(), mcp, ask]);
		},
	);
	session = { url: stack.url, cookie: await setupOwner(stack.url) };
	for (const id of [SENDS.id, UPSERTS.id, 'mcrmRestockFlow01', MCP_WORKFLOW_ID, ASK])
		await publishInEditor(session, id);
}, 600_000);

afterAll(async () => {
	await stack?.stop();
	await sandbox?.stop();
	// Made afresh at each run: nothing of it is kept (n8n's editor bundle in there, some 700
	// files, would otherwise be read by `n8n-node lint`, whose default file lints all but dist/).
	rmSync(QUEUE_ROOT, { recursive: true, force: true });
});

const sentTo = (ids: string[]) => sandbox.sentTo(ids);
/** The text of the last message a customer got. */
const lastTo = (customerId: string) =>
	[...sandbox.store.messages.values()].filter((m) => m.customer_id === customerId).pop()?.text ??
	'';

describe(`n8n ${N8N_VERSION} in queue mode: main and 2 workers, PostgreSQL and Redis`, () => {
	it('4 executions of 150 upserts at once, spread over both workers: 600 customers, none failed, none twice', async () => {
		const people = (run: number) =>
			Array.from({ length: 150 }, (_, i) => ({
				phone: `+1555${run}${String(100000 + i)}`,
				name: `Queue ${run}-${i}`,
			}));
		sandbox.clearRequests();
		const before = sandbox.store.customers.size;
		const startedAt = Date.now();
		const ended = await triggerWebhook(
			session,
			'retry-upserts',
			UPSERTS.id,
			[1, 2, 3, 4].map((run) => ({ people: people(run) })),
			300_000,
		);
		const seconds = (Date.now() - startedAt) / 1000;
		expect(ended.map((e) => e.status)).toEqual(['success', 'success', 'success', 'success']);
		const customers = [...sandbox.store.customers.values()].slice(before);
		expect(customers).toHaveLength(600);
		expect(new Set(customers.map((c) => c.phone)).size).toBe(600);
		// Both workers took part.
		expect(new Set(ended.map((e) => started.get(e.id))).size).toBe(2);
		const posts = sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/customers');
		const refused = posts.filter((r) => r.status === 429).length;
		const throughput = perFullWindow(posts, WINDOW_MS, 'server') / LIMIT;
		console.log(
			`queue mode: 600 upserts in ${seconds.toFixed(1)} s, ${posts.length} requests, ${refused} answered 429 (${((refused / posts.length) * 100).toFixed(2)} %), ${(throughput * 100).toFixed(1)} % of the limit per full window, workers ${JSON.stringify(Object.fromEntries([...new Set(started.values())].map((w) => [w, [...started.values()].filter((x) => x === w).length])))}`,
		);
		// The share of the limit and the share of 429s are printed, not asserted: they follow how late
		// each answer comes on a machine shared with n8n, PostgreSQL and Redis; `npm run bench -- queue`
		// measures them. A 429 is waited out and retried: what holds on any machine is above, every
		// item done once.
		expect(throughput).toBeGreaterThan(0);
	});

	it('a worker killed in the middle of 12 sends, the same input run again: each customer is messaged once', async () => {
		sandbox.setRateLimit({ enabled: false });
		const ids = Array.from({ length: 12 }, (_, i) => sandbox.demoCustomer(`Queue send ${i + 1}`));
		sandbox.injectFault({
			path: '/customers/*',
			method: 'POST',
			count: 1_000,
			kind: 'delay',
			delayMs: 400,
		});
		const before = new Set((await executions(session, SENDS.id)).map((e) => e.id));
		await fetch(`${session.url}/webhook/retry-sends`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ customers: ids.map((customerId) => ({ customerId })) }),
		});
		await until('three sends', () => sentTo(ids).filter((n) => n > 0).length >= 3, 60_000);
		const execution = (await executions(session, SENDS.id)).find(
			(e) => !before.has(e.id),
		) as ExecutionSummary;
		const worker = started.get(execution.id);
		expect(worker).toMatch(/^worker-[12]$/);
		await stack.killWorker(Number(worker?.slice(-1)) - 1);
		const landed = sentTo(ids).filter((n) => n > 0).length;
		expect(landed).toBeLessThan(12);
		sandbox.clearFaults();
		// n8n 2.x gives a stalled job no second run (its queue sets maxStalledCount 0): main marks the
		// execution failed and keeps none of its data, so its Retry has nothing to resume. What does work
		// is running the same input again (the webhook called again with the same list), which sends only
		// what had not gone through, since the keys come from the event (the same body) and the request.
		let status = '';
		await until(
			'the execution to end',
			async () => {
				status =
					(await executions(session, SENDS.id)).find((e) => e.id === execution.id)?.status ?? '';
				return ['success', 'crashed', 'error'].includes(status);
			},
			120_000,
		);
		expect(status).not.toBe('success');
		const retried = await retryExecution(session, execution.id, false);
		expect(sentTo(ids).filter((n) => n > 1)).toEqual([]);
		const [again] = await triggerWebhook(session, 'retry-sends', SENDS.id, [
			{ customers: ids.map((customerId) => ({ customerId })) },
		]);
		expect(again.status).toBe('success');
		console.log(
			`queue mode: worker killed after ${landed} of 12 sends; the execution ended ${status}, n8n's Retry ended ${retried.status}, the same input run again ended ${again.status}`,
		);
		expect(sentTo(ids)).toEqual(ids.map(() => 1));
	}, 300_000);

	it('an MCP client of main (example 6): each tool call runs on a worker, and a refusal still arrives as isError: true with the hint', async () => {
		sandbox.setRateLimit({ enabled: false });
		const id = await apiCustomer(sandbox, {
			full_name: 'Queue MCP',
			phone: '+15550200001',
			messengers: [{ type: 'telegram', id: 'blocked15550200001' }],
		});
		const before = new Set((await executions(session, MCP_WORKFLOW_ID)).map((e) => e.id));
		const client = await connectMcp(mcpEndpoint(stack.url), MCP_TOKEN);
		try {
			const found = await client.callTool({
				name: 'Find_customer',
				arguments: { phone: '+15550200001' },
			});
			expect(found.isError).toBeFalsy();
			expect((JSON.parse(textOf(found)) as Array<{ id: string }>).map((c) => c.id)).toEqual([id]);
			const refused = await client.callTool({
				name: 'Send_text',
				arguments: { customer_id: id, messenger: 'telegram', text: 'Hello' },
			});
			expect(refused.isError).toBe(true);
			// The worker passes on the error's message alone, as {"error": {"message", "name"}}.
			const { error } = JSON.parse(textOf(refused)) as { error: { message: string } };
			expect(error.message).toMatch(
				/^recipient_unreachable: .*Usually final: use another of their messengers.*\n\nDetails: \{.*"code":"recipient_unreachable"/s,
			);
		} finally {
			await client.close();
		}
		let ran: ExecutionSummary[] = [];
		await until(
			'the two tool calls as executions',
			async () => {
				ran = (await executions(session, MCP_WORKFLOW_ID)).filter((e) => !before.has(e.id));
				return ran.length >= 2 && ran.every((e) => !['running', 'new'].includes(e.status));
			},
			60_000,
		);
		expect(ran.map((e) => started.get(e.id))).toEqual([
			expect.stringMatching(/^worker-[12]$/),
			expect.stringMatching(/^worker-[12]$/),
		]);
	});

	it('Send and Wait for Response: the execution waits, the press of Approve resumes it once, on a worker', async () => {
		sandbox.setRateLimit({ enabled: false });
		const response = await postToWebhook(`${stack.url}/webhook/queue-ask`, {}, {});
		expect(response.status).toBe(200);
		let id = '';
		await until('the execution to wait', async () => {
			const [latest] = await executions(session, ASK);
			id = latest?.id ?? '';
			return latest?.status === 'waiting';
		});
		const links = linksIn(lastTo(anna));
		// A link preview opens it: nothing resumes.
		expect((await fetch(links.Approve)).status).toBe(200);
		// The thank-you page, which n8n sends once the execution took the answer (on its way to a worker).
		const pressed = await press(links.Approve, 'approve');
		expect(pressed.status).toBe(200);
		expect(await pressed.text()).toContain('Your answer was recorded');
		await until(
			'the execution to end',
			async () => (await executions(session, ASK))[0]?.status === 'success',
		);
		expect(answerIn(lastTo(anna))).toMatchObject({ data: { approved: true }, customer_id: anna });
		// Started on a worker, and resumed on a worker.
		expect(runs.get(id)).toEqual([
			expect.stringMatching(/^worker-[12]$/),
			expect.stringMatching(/^worker-[12]$/),
		]);
		// Pressed again: n8n's page that says so, and no second resume, however late it would come.
		const again = await press(links.Approve, 'approve');
		expect(again.status).toBe(200);
		expect(await again.text()).toContain('No action required');
		await holdsFor(
			'one execution, and Anna messaged twice (the question and the answer)',
			async () =>
				(await executions(session, ASK)).length === 1 &&
				[...sandbox.store.messages.values()].filter((m) => m.customer_id === anna).length === 2,
		);
	});

	it('the polling trigger on main keeps its state in PostgreSQL: a pool change is emitted once, across a restart of main', async () => {
		sandbox.setRateLimit({ enabled: false });
		const polls = () =>
			sandbox.requests().filter((r) => r.method === 'GET' && r.path === '/promo-pools').length;
		const uploads = () =>
			sandbox
				.requests()
				.filter((r) => r.method === 'POST' && r.path === `/promo-pools/${DEMO.vipPool}/codes`)
				.length;
		await until('the baseline poll', () => polls() >= 1, 120_000);
		// Between two polls, main restarts: the baseline must come back from PostgreSQL, not be made anew.
		await stack.restartMain();
		session = { url: stack.url, cookie: session.cookie };
		sandbox.issueCodes(DEMO.vipPool, 8); // 2 of 10 left: at or below the threshold of 3
		await until('the restock upload', () => uploads() > 0, 150_000);
		const seen = polls();
		await until('one more poll', () => polls() >= seen + 1, 150_000);
		expect(uploads()).toBe(1);
	}, 400_000);
});
