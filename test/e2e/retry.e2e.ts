/**
 * Exactly once through n8n's own Retry of an execution, in a running n8n 2.x: a workflow of N
 * sends that stops at item k, retried "with the original workflow" and "with the current one"
 * (n8n's REST call behind the Retry buttons of the Executions list); and the n8n process killed
 * during a run (one send in flight), restarted, and the crashed execution retried. Acceptance is
 * the sandbox's state: messages per customer.
 */
import { appendFileSync, mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { ensureN8n, N8N_VERSION, prepareUserFolder, startN8n } from './n8n';
import type { WorkflowJson } from './setup';
import {
	CREDENTIAL_ID,
	importCredential,
	importWorkflows,
	publishWorkflow,
	setupOwner,
} from './setup';

const PORT = 5693;
const options = {
	userFolder: mkdtempSync(path.join(tmpdir(), 'n8n-e2e-retry-')),
	port: PORT,
	version: N8N_VERSION,
};
const LOG = path.join(tmpdir(), 'n8n-e2e-retry.log');

/** Webhook (a list of customers) → Split Out → Message Send, saving progress so a crash can be retried. */
const WORKFLOW: WorkflowJson = {
	id: 'mcrmRetrySends01',
	name: 'Send to a list of customers (retry e2e)',
	active: false,
	settings: {
		executionOrder: 'v1',
		saveExecutionProgress: true,
		saveDataErrorExecution: 'all',
		saveDataSuccessExecution: 'all',
	},
	nodes: [
		{
			id: 'a0000000-0000-4000-8000-000000000001',
			name: 'Customers',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: 'b0000000-0000-4000-8000-000000000001',
			parameters: {
				httpMethod: 'POST',
				path: 'retry-sends',
				responseMode: 'onReceived',
				options: {},
			},
		} as never,
		{
			id: 'a0000000-0000-4000-8000-000000000002',
			name: 'One item each',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [220, 0],
			parameters: { fieldToSplitOut: 'body.customers', options: {} },
		} as never,
		{
			id: 'a0000000-0000-4000-8000-000000000003',
			name: 'Send',
			type: 'n8n-nodes-messaging-crm.messagingCrm',
			typeVersion: 1,
			position: [440, 0],
			parameters: {
				resource: 'message',
				operation: 'send',
				customerId: { __rl: true, mode: 'id', value: '={{ $json.customerId }}' },
				messengerType: 'telegram',
				content: 'text',
				text: 'Your order has shipped',
				options: {},
			},
			credentials: { messagingCrmApi: { id: CREDENTIAL_ID, name: 'Messaging CRM sandbox' } },
		} as never,
	],
	connections: {
		Customers: { main: [[{ node: 'One item each', type: 'main', index: 0 }]] },
		'One item each': { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
	},
};

/** Webhook (a list of people) → Split Out → Customer Create or Update, with a deal in the default pipeline. */
const UPSERTS: WorkflowJson = {
	...WORKFLOW,
	id: 'mcrmRetryUpserts1',
	name: 'Upsert a list of people (retry e2e)',
	nodes: [
		{
			...(WORKFLOW.nodes[0] as object),
			id: 'c0000000-0000-4000-8000-000000000001',
			webhookId: 'd0000000-0000-4000-8000-000000000001',
			parameters: {
				httpMethod: 'POST',
				path: 'retry-upserts',
				responseMode: 'onReceived',
				options: {},
			},
		} as never,
		{
			...(WORKFLOW.nodes[1] as object),
			id: 'c0000000-0000-4000-8000-000000000002',
			parameters: { fieldToSplitOut: 'body.people', options: {} },
		} as never,
		{
			...(WORKFLOW.nodes[2] as object),
			id: 'c0000000-0000-4000-8000-000000000003',
			name: 'Send',
			parameters: {
				resource: 'customer',
				operation: 'upsert',
				phone: '={{ $json.phone }}',
				additionalFields: { fullName: '={{ $json.name }}' },
				options: {},
			},
		} as never,
	],
};

let sandbox: Sandbox;
let n8n: Awaited<ReturnType<typeof startN8n>>;
let cookie: string;

const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000) => {
	const deadline = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
};

const start = async () => {
	n8n = await startN8n({
		...options,
		env: { EXECUTIONS_DATA_SAVE_ON_PROGRESS: 'true' },
		output: (chunk) => appendFileSync(LOG, chunk),
	});
	cookie = await setupOwner(n8n.url);
};

interface ExecutionSummary {
	id: string;
	status: string;
	retryOf?: string | null;
}

async function executions(workflowId = WORKFLOW.id): Promise<ExecutionSummary[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const response = await fetch(`${n8n.url}/rest/executions?filter=${filter}`, {
		headers: { cookie },
	});
	const body = (await response.json()) as { data: { results: ExecutionSummary[] } };
	return body.data.results;
}

/** n8n's Retry button: with the workflow as it was ("original") or as it is now ("current"). */
async function retry(id: string, loadWorkflow: boolean): Promise<ExecutionSummary> {
	const response = await fetch(`${n8n.url}/rest/executions/${id}/retry`, {
		method: 'POST',
		headers: { cookie, 'Content-Type': 'application/json', 'browser-id': 'e2e' },
		body: JSON.stringify({ loadWorkflow }),
	});
	const body = (await response.json()) as { data?: ExecutionSummary };
	if (!body.data) throw new Error(`Retry answered ${response.status}: ${JSON.stringify(body)}`);
	return body.data;
}

/** Starts the workflow for these customers and waits for its execution to end. */
async function run(ids: string[]): Promise<ExecutionSummary> {
	return await trigger('retry-sends', WORKFLOW.id, {
		customers: ids.map((customerId) => ({ customerId })),
	});
}

async function trigger(
	webhook: string,
	workflowId: string,
	body: unknown,
): Promise<ExecutionSummary> {
	const before = new Set((await executions(workflowId)).map((e) => e.id));
	const response = await fetch(`${n8n.url}/webhook/${webhook}`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(body),
	});
	expect(response.status).toBe(200);
	let found: ExecutionSummary | undefined;
	await until('the execution to end', async () => {
		found = (await executions(workflowId)).find(
			(e) => !before.has(e.id) && !['running', 'new', 'waiting'].includes(e.status),
		);
		return found !== undefined;
	});
	return found!;
}

const customers = (count: number) =>
	Array.from({ length: count }, (_, i) => sandbox.demoCustomer(`Retry e2e customer ${i + 1}`));
const sentTo = (ids: string[]) =>
	ids.map(
		(id) =>
			[...sandbox.store.messages.values()].filter(
				(m) => m.customer_id === id && m.status === 'sent',
			).length,
	);

beforeAll(async () => {
	ensureN8n(N8N_VERSION);
	sandbox = await startSandbox({ rateLimit: { enabled: false } });
	prepareUserFolder(options.userFolder);
	await importCredential(options, { baseUrl: sandbox.url, apiKey: sandbox.mintKey() });
	await importWorkflows(options, [WORKFLOW, UPSERTS]);
	await publishWorkflow(options, WORKFLOW.id);
	await publishWorkflow(options, UPSERTS.id);
	await start();
});

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.stop();
});

describe(`n8n ${N8N_VERSION}: its own Retry of an execution sends nothing twice`, () => {
	it.each([
		['with the original workflow', false],
		['with the current workflow', true],
	])(
		'8 sends stopped at item 5 by a disconnected channel, reconnected, retried %s: each customer messaged once',
		async (_name, loadWorkflow) => {
			const ids = customers(8);
			sandbox.store.sendFailures.set(ids[4], ['channel_unavailable']);
			const failed = await run(ids);
			expect(failed.status).toBe('error');
			expect(sentTo(ids)).toEqual([1, 1, 1, 1, 0, 0, 0, 0]);
			// The operator reconnects the channel (the refusal was the only one) and presses Retry.
			const retried = await retry(failed.id, loadWorkflow);
			expect(retried.status).toBe('success');
			expect(sentTo(ids)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
		},
	);

	it('6 upserts stopped at item 4 by a refused request, retried: 6 customers and 6 deals, the first three answered from the store', async () => {
		const people = Array.from({ length: 6 }, (_, i) => ({
			phone: `+1555066000${i}`,
			name: `Upsert e2e ${i + 1}`,
		}));
		const before = { customers: sandbox.store.customers.size, deals: sandbox.store.deals.size };
		sandbox.injectFault({
			path: '/customers',
			method: 'POST',
			skip: 3,
			count: 1,
			kind: 'status',
			status: 409,
			body: { error: { code: 'conflict', message: 'Injected conflict', details: {} } },
		});
		sandbox.clearRequests();
		const failed = await trigger('retry-upserts', UPSERTS.id, { people });
		expect(failed.status).toBe('error');
		expect(sandbox.store.customers.size - before.customers).toBe(3);
		const retried = await retry(failed.id, false);
		expect(retried.status).toBe('success');
		expect({
			customers: sandbox.store.customers.size - before.customers,
			deals: sandbox.store.deals.size - before.deals,
		}).toEqual({ customers: 6, deals: 6 });
		const posts = sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/customers');
		expect(posts.map((r) => (r.fault ? 'refused' : r.replayed ? 'replayed' : 'created'))).toEqual([
			'created',
			'created',
			'created',
			'refused',
			'replayed',
			'replayed',
			'replayed',
			'created',
			'created',
			'created',
		]);
	});

	it('a new event with other customers sends to them; the same list again sends nothing twice', async () => {
		const ids = customers(3);
		expect((await run(ids)).status).toBe('success');
		expect((await run(ids)).status).toBe('success');
		expect(sentTo(ids)).toEqual([1, 1, 1]);
		const others = customers(2);
		expect((await run(others)).status).toBe('success');
		expect(sentTo(others)).toEqual([1, 1]);
	});

	it('n8n killed during a run of 10 sends (one in flight), restarted, the crashed execution retried: each customer messaged once', async () => {
		const ids = customers(10);
		// Each send takes 400 ms at the sandbox, which finishes it even after n8n is gone.
		sandbox.injectFault({
			path: '/customers/*',
			method: 'POST',
			count: 1_000,
			kind: 'delay',
			delayMs: 400,
		});
		const before = new Set((await executions()).map((e) => e.id));
		await fetch(`${n8n.url}/webhook/retry-sends`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ customers: ids.map((customerId) => ({ customerId })) }),
		});
		const posts = () =>
			sandbox
				.requests()
				.filter(
					(r) => r.method === 'POST' && ids.some((id) => r.path === `/customers/${id}/messages`),
				);
		// Three sends answered and the fourth on its way: kill n8n in the middle of it.
		await until(
			'three sends and a fourth in flight',
			() => sentTo(ids).filter((n) => n > 0).length >= 3 && posts().length >= 3,
			60_000,
		);
		await new Promise((resolve) => setTimeout(resolve, 150));
		n8n.process.kill('SIGKILL');
		await new Promise((resolve) => n8n.process.once('exit', resolve));
		await new Promise((resolve) => setTimeout(resolve, 600)); // the in-flight send lands at the sandbox
		const landed = sentTo(ids).filter((n) => n > 0).length;
		expect(landed).toBeGreaterThanOrEqual(4);
		expect(landed).toBeLessThan(10);
		sandbox.clearFaults();
		await start();
		let crashed: ExecutionSummary | undefined;
		await until('n8n to mark the execution crashed', async () => {
			crashed = (await executions()).find((e) => !before.has(e.id));
			return crashed !== undefined && ['crashed', 'error'].includes(crashed.status);
		});
		const retried = await retry(crashed!.id, false);
		expect(retried.status).toBe('success');
		expect(sentTo(ids)).toEqual(ids.map(() => 1));
	});
});
