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
import {
	REMINDED,
	REMINDER_TEXT,
	REMINDERS,
	RERUN_CUSTOMERS,
	RERUN_SENDS,
	rerunBody,
	SENDS,
	UPSERTS,
} from './listWorkflows';
import type { ExecutionSummary, Session } from './rest';
import {
	executeInEditor,
	executions as listExecutions,
	hasEnded,
	publishInEditor,
	retryExecution,
	triggerWebhook,
	unpublishInEditor,
	until,
} from './rest';
import { importCredential, importWorkflows, privateFolder, privateLog, setupOwner } from './setup';
import { N8N_PORTS } from './ports';

const PORT = N8N_PORTS.retry;
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
	headers: Record<string, string> = {},
): Promise<ExecutionSummary> =>
	(await triggerWebhook(session(), webhook, workflowId, [body], 120_000, headers))[0];

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
	await importWorkflows(options, [SENDS, UPSERTS, RERUN_SENDS, REMINDERS]);
	await start();
	for (const id of [SENDS.id, UPSERTS.id, RERUN_SENDS.id]) await publishInEditor(session(), id);
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
		const isSend = (method: string, path: string) =>
			method === 'POST' && ids.some((id) => path === `/customers/${id}/messages`);
		const answered = () => sandbox.requests().filter((r) => isSend(r.method, r.path)).length;
		// The sandbox logs a request once it answers it (after the delay); this sees each on arrival
		// and kills n8n the moment the fourth send reaches the sandbox, three answered before it.
		let arrived = 0;
		let answeredAtKill = -1;
		sandbox.onRequest = (method, path) => {
			if (!isSend(method, path) || ++arrived !== 4) return;
			answeredAtKill = answered();
			n8n.process.kill('SIGKILL');
		};
		let gone = false;
		n8n.process.once('exit', () => (gone = true));
		try {
			await fetch(`${n8n.url}/webhook/retry-sends`, {
				method: 'POST',
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({ customers: ids.map((customerId) => ({ customerId })) }),
			});
			await until('n8n killed at the fourth send', () => gone, 60_000);
			await until(
				'the send in flight to land at the sandbox',
				() => answered() === arrived,
				10_000,
			);
		} finally {
			sandbox.onRequest = undefined;
		}
		expect({ arrived, answeredAtKill }).toEqual({ arrived: 4, answeredAtKill: 3 });
		expect(sentTo(ids)).toEqual([1, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
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

describe(`n8n ${N8N_VERSION}: a repeat is the same event run again, never the same words`, () => {
	it("a Schedule Trigger sends the same reminder on each tick; n8n's Retry of the second tick sends nothing twice", async () => {
		REMINDED.forEach((id, i) => sandbox.demoCustomer(`Reminded e2e customer ${i + 1}`, id));
		const ended = async () => (await executions(REMINDERS.id)).filter(hasEnded);
		const counts: Record<string, number[]> = {};
		await publishInEditor(session(), REMINDERS.id);
		try {
			await until('the first tick', async () => (await ended()).length >= 1, 60_000);
			counts['tick 1'] = sentTo(REMINDED);
			// The second customer's channel refuses once: the second tick fails at Send.
			sandbox.store.sendFailures.set(REMINDED[1], ['channel_unavailable']);
			await until('the second tick', async () => (await ended()).length >= 2, 60_000);
		} finally {
			await unpublishInEditor(session(), REMINDERS.id);
		}
		const ticks = await ended(); // newest first
		counts['tick 2'] = sentTo(REMINDED);
		// Retry is n8n's button on a failed execution: the second tick must have failed at Send.
		const retried = ticks[0].status === 'error' ? await retry(ticks[0].id, false) : undefined;
		counts["n8n's Retry of tick 2"] = sentTo(REMINDED);
		// One comparison, so that a failure shows every figure (messages per customer after each run).
		expect({
			ticks: ticks.map((e) => e.status).reverse(),
			retry: retried?.status ?? 'nothing to retry',
			...counts,
		}).toEqual({
			ticks: ['success', 'error'],
			retry: 'success',
			'tick 1': [1, 1],
			'tick 2': [2, 1],
			"n8n's Retry of tick 2": [2, 2],
		});
		// Nothing else ran: two ticks and the retry.
		expect(await executions(REMINDERS.id)).toHaveLength(3);
		const texts = REMINDED.map((id) =>
			[...sandbox.store.messages.values()]
				.filter((m) => m.customer_id === id && m.status === 'sent')
				.map((m) => m.text),
		);
		expect(texts).toEqual([
			[REMINDER_TEXT, REMINDER_TEXT],
			[REMINDER_TEXT, REMINDER_TEXT],
		]);
	});

	it('the same webhook body delivered again with other delivery headers sends nothing twice; another request with the same words sends', async () => {
		const ids = customers(2);
		const body = { requestId: 'R-1', customers: ids.map((customerId) => ({ customerId })) };
		const delivery = (id: string, attempt: number) => ({
			'X-Delivery-Id': id,
			'X-Signature': `t=${Date.now()},v1=${id}`,
			'X-Retry-Count': String(attempt),
		});
		expect((await trigger('retry-sends', SENDS.id, body, delivery('d-1', 0))).status).toBe(
			'success',
		);
		expect((await trigger('retry-sends', SENDS.id, body, delivery('d-2', 1))).status).toBe(
			'success',
		);
		expect(sentTo(ids)).toEqual([1, 1]);
		const second = { ...body, requestId: 'R-2' };
		expect((await trigger('retry-sends', SENDS.id, second, delivery('d-3', 0))).status).toBe(
			'success',
		);
		expect(sentTo(ids)).toEqual([2, 2]);
	});
});
