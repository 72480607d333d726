/**
 * Exactly once through n8n's own Retry of an execution, in a running n8n 2.x: a workflow of N
 * sends that stops at item k, retried "with the original workflow" and "with the current one"
 * (n8n's REST call behind the Retry buttons of the Executions list); and the n8n process killed
 * during a run (one send in flight), restarted, and the crashed execution retried. Acceptance is
 * the sandbox's state: messages per customer.
 */

import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { ensureN8n, N8N_VERSION, prepareUserFolder, startN8n } from './n8n';
import { RERUN_CUSTOMERS, RERUN_SENDS, rerunBody, SENDS, UPSERTS } from './listWorkflows';
import type { ExecutionSummary, Session } from './rest';
import {
	executeInEditor,
	executions as listExecutions,
	retryExecution,
	triggerWebhook,
	until,
} from './rest';
import {
	importCredential,
	importWorkflows,
	privateFolder,
	privateLog,
	publishWorkflow,
	setupOwner,
} from './setup';

const PORT = 5693;
const options = {
	userFolder: privateFolder('n8n-e2e-retry-'),
	port: PORT,
	version: N8N_VERSION,
};
const log = privateLog('n8n-retry.log');

let sandbox: Sandbox;
let n8n: Awaited<ReturnType<typeof startN8n>>;
let cookie: string;

const start = async () => {
	n8n = await startN8n({
		...options,
		env: { EXECUTIONS_DATA_SAVE_ON_PROGRESS: 'true' },
		output: log,
	});
	cookie = await setupOwner(n8n.url);
};

const session = (): Session => ({ url: n8n.url, cookie });
const executions = async (workflowId = SENDS.id) => await listExecutions(session(), workflowId);
const retry = async (id: string, loadWorkflow: boolean) =>
	await retryExecution(session(), id, loadWorkflow);
const trigger = async (
	webhook: string,
	workflowId: string,
	body: unknown,
): Promise<ExecutionSummary> => (await triggerWebhook(session(), webhook, workflowId, [body]))[0];

/** Starts the workflow for these customers and waits for its execution to end. */
async function run(ids: string[]): Promise<ExecutionSummary> {
	return await trigger('retry-sends', SENDS.id, {
		customers: ids.map((customerId) => ({ customerId })),
	});
}

const customers = (count: number) =>
	Array.from({ length: count }, (_, i) => sandbox.demoCustomer(`Retry e2e customer ${i + 1}`));
const sentTo = (ids: string[]) => sandbox.sentTo(ids);

beforeAll(async () => {
	await ensureN8n(N8N_VERSION);
	sandbox = await startSandbox({ rateLimit: { enabled: false } });
	prepareUserFolder(options.userFolder);
	await importCredential(options, { baseUrl: sandbox.url, apiKey: sandbox.mintKey() });
	await importWorkflows(options, [SENDS, UPSERTS, RERUN_SENDS]);
	await publishWorkflow(options, SENDS.id);
	await publishWorkflow(options, UPSERTS.id);
	await publishWorkflow(options, RERUN_SENDS.id);
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

	it.each([
		['Execute workflow in the editor, on the pinned data', 'editor'],
		['the same webhook delivered again', 'webhook'],
	] as const)(
		'a channel disconnected for customer 2 of 3, reconnected, run again by %s: each customer messaged once, a third run sends nothing',
		async (_name, how) => {
			const ids = RERUN_CUSTOMERS[how];
			ids.forEach((id, i) => sandbox.demoCustomer(`Re-run e2e customer ${i + 1}`, id));
			sandbox.addMessenger(ids[1], 'vk', `vk-${how}`);
			const again = async () =>
				how === 'editor'
					? await executeInEditor(session(), RERUN_SENDS.id, 'Customers')
					: await trigger('rerun-sends', RERUN_SENDS.id, rerunBody(ids));
			sandbox.store.brokenChannels.add('vk');
			expect((await again()).status).toBe('success'); // the error is the item's output
			const counts = [sentTo(ids)];
			sandbox.store.brokenChannels.delete('vk');
			expect((await again()).status).toBe('success');
			counts.push(sentTo(ids));
			expect((await again()).status).toBe('success');
			counts.push(sentTo(ids));
			expect(counts).toEqual([
				[1, 0, 1],
				[1, 1, 1],
				[1, 1, 1],
			]);
			expect(sandbox.failedTo(ids)).toEqual([0, 1, 0]);
		},
	);

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
