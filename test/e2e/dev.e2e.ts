/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * `npm run dev:queue` as a newcomer meets it, run through npm as the README says, in a private
 * home (DEV_HOME) on ports of its own: the examples imported, published and run under PostgreSQL
 * with no error line in n8n's logs; every port on loopback; the README's worker-death walkthrough
 * (a worker killed while it sends, reported and started again, the same input run again, the
 * customer messaged once); the sandbox's company and control token kept across a restart; and a
 * stop by SIGTERM to npm, by SIGINT to npm, and by Ctrl-C (SIGINT to the whole process group)
 * that leaves no process and no port behind.
 */
import type { ChildProcess } from 'child_process';
import { spawn } from 'child_process';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'fs';
import path from 'path';

import { recordedExamples } from '../dev/examples';
import { alive, descendants, isErrorLine, listening, portInUse } from '../dev/processes';
import { DEMO_API_KEY } from '../sandbox/cli';
import { demoPersonId } from '../sandbox/demo';
import { openEditor } from './browser';
import { connectMcp, mcpEndpoint } from './mcp';
import { ensureN8n, N8N_VERSION, NODE24, ROOT } from './n8n';
import type { ExecutionSummary, Session } from './rest';
import {
	deleteWorkflow,
	executeInEditor,
	executions,
	hasEnded,
	publishInEditor,
	startInEditor,
	until,
	workflowExists,
} from './rest';
import { press } from './askWorkflows';
import {
	DEMO_MCP_TOKEN,
	exampleWorkflows,
	MCP_WORKFLOW_ID,
	privateFolder,
	setupOwner,
	WINDOW_WORKFLOW_ID,
} from './setup';
import { DEV_PORTS, workerPorts } from './ports';

/**
 * A fresh clone's `.cache/dev-queue`, under a folder others may pass through (as a clone's parent
 * usually is): dev.ts makes `clone/.cache/dev-queue` itself, as on a clone's first run.
 */
const CLONE = privateFolder('mcrm-dev-e2e-');
chmodSync(CLONE, 0o711);
const HOME = path.join(CLONE, 'clone', '.cache', 'dev-queue');
const PORTS = DEV_PORTS;
/** Every port the stack listens on: main, the workers' health checks and task brokers, PostgreSQL, Redis, the sandbox. */
const ALL_PORTS = [
	PORTS.n8n,
	...[0, 1].map((i) => workerPorts(PORTS.n8n, i)).flatMap(({ health, broker }) => [health, broker]),
	PORTS.sandbox,
	PORTS.pg,
	PORTS.redis,
];
/** Example 1's Form Trigger: the editor runs it on its pinned sample submission. */
const SAMPLE = 'When the form is submitted';
/** Example 5, deleted to make a home that predates it. */
const TEMPLATE_FLOW = 'mcrmTemplateFlow1';
const WELCOME_FLOW = 'mcrmWelcomeFlow01';
/** The form's path: its trigger's webhookId in workflows/1-form-to-customer.json. */
const FORM_PATH = '9a1f4c6e-2b7d-4e8a-9c3f-5d6e7f8a9b0c';

interface Dev {
	npm: ChildProcess;
	output: () => string;
	exited: Promise<number | null>;
}

function startDev(home = HOME): Dev {
	let text = '';
	const npm = spawn('npm', ['run', 'dev:queue'], {
		cwd: ROOT,
		// Its own process group, as a terminal gives a command: Ctrl-C is SIGINT to the group.
		detached: true,
		env: {
			...process.env,
			PATH: `${path.dirname(NODE24)}${path.delimiter}${process.env.PATH ?? ''}`,
			DEV_HOME: home,
			N8N_PORT: String(PORTS.n8n),
			SANDBOX_PORT: String(PORTS.sandbox),
			DEV_PG_PORT: String(PORTS.pg),
			DEV_REDIS_PORT: String(PORTS.redis),
		},
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	npm.stdout?.on('data', (c: Buffer) => (text += c.toString()));
	npm.stderr?.on('data', (c: Buffer) => (text += c.toString()));
	const exited = new Promise<number | null>((resolve) => npm.once('exit', resolve));
	return { npm, output: () => text, exited };
}

async function ready(dev: Dev): Promise<number> {
	const started = Date.now();
	await until(
		'n8n is ready',
		() => {
			if (dev.npm.exitCode !== null)
				throw new Error(`npm run dev:queue exited (${dev.npm.exitCode}):\n${dev.output()}`);
			return dev.output().includes('n8n is ready');
		},
		600_000,
	);
	return (Date.now() - started) / 1000;
}

/** Everything npm started (npm itself included). */
const tree = (dev: Dev) => [dev.npm.pid!, ...descendants(dev.npm.pid!)];

/** Stops it with `signal` (to npm, or to its whole group); checks that nothing is left. */
async function stop(dev: Dev, signal: NodeJS.Signals, group: boolean): Promise<void> {
	const pids = tree(dev);
	expect(pids.length).toBeGreaterThan(6);
	const before = dev.output().length;
	process.kill(group ? -dev.npm.pid! : dev.npm.pid!, signal);
	expect(await dev.exited).toBe(0);
	// n8n stops before the databases under it: no process reports an error on the way out.
	const echoed = dev
		.output()
		.slice(before)
		.split('\n')
		.filter((line) => /^\[[\w-]+\] /.test(line));
	// What each process wrote last, to tell its own race from a database stopped under it.
	if (echoed.length)
		for (const file of readdirSync(logs))
			console.log(
				`${file}, its last lines:\n${logOf(file.replace(/\.log$/, ''))
					.split('\n')
					.slice(-40)
					.join('\n')}`,
			);
	expect(echoed).toEqual([]);
	// Every process it had (its descendants are orphaned, not listed, once npm is gone): a moment to end.
	await until('every process to end', () => !pids.some(alive), 30_000).catch(() => undefined);
	expect(pids.filter(alive)).toEqual([]);
	expect(ALL_PORTS.filter(portInUse)).toEqual([]);
	expect(dev.output()).toContain('Stopped.');
}

const logs = path.join(HOME, 'logs');
const logOf = (who: string) => readFileSync(path.join(logs, `${who}.log`), 'utf8');
/** Lines of n8n's own logs that report an error (PostgreSQL: FATAL or PANIC). */
function errorLines(): string[] {
	return readdirSync(logs).flatMap((file) => {
		return readFileSync(path.join(logs, file), 'utf8')
			.split('\n')
			.filter((line) => isErrorLine(file, line))
			.map((line) => `${file}: ${line}`);
	});
}

const controlToken = (dev: Dev) => /control token (\w+)/.exec(dev.output())?.[1];
async function sandboxState(dev: Dev) {
	const response = await fetch(`http://127.0.0.1:${PORTS.sandbox}/__sandbox/state`, {
		headers: { 'X-Sandbox-Token': controlToken(dev)! },
	});
	return (await response.json()) as {
		customers: Array<{ id: string; phone: string | null }>;
		messages: Array<{ customer_id: string; status: string; text: string | null }>;
	};
}
/** Welcome messages sent to the customer with this phone (the sample submission's, by default). */
const welcomed = async (dev: Dev, phone = '+15550107788') => {
	const state = await sandboxState(dev);
	const customer = state.customers.find((c) => c.phone === phone);
	return state.messages.filter((m) => m.customer_id === customer?.id && m.status === 'sent').length;
};

/** The sends to a customer the sandbox has seen (a resend under the same key counts again). */
async function sendsTo(dev: Dev, customerId: string): Promise<number> {
	const response = await fetch(`http://127.0.0.1:${PORTS.sandbox}/__sandbox/requests`, {
		headers: { 'X-Sandbox-Token': controlToken(dev)! },
	});
	const { requests } = (await response.json()) as {
		requests: Array<{ method: string; path: string }>;
	};
	return requests.filter(
		(r) => r.method === 'POST' && r.path === `/customers/${customerId}/messages`,
	).length;
}

let dev: Dev | undefined;
afterAll(() => {
	// Whatever a failed test left running: npm's group and every process under it (each n8n has a
	// process group of its own, which a signal to npm's group does not reach).
	if (dev && dev.npm.exitCode === null)
		for (const pid of [-dev.npm.pid!, ...descendants(dev.npm.pid!)])
			try {
				process.kill(pid, 'SIGKILL');
			} catch {
				// Gone.
			}
});

/** The duration the Executions tab shows beside a run's status, in seconds. */
function shownDuration(run: ExecutionSummary | undefined): string {
	return ((Date.parse(run?.stoppedAt ?? '') - Date.parse(run?.startedAt ?? '')) / 1000).toFixed(1);
}

/**
 * Opens an execution in the editor's Executions tab `times` times, as a person clicks it: for each
 * visit, whether n8n showed its toast for a stalled job ("failed to be processed too many times").
 */
async function executionPageToasts(
	session: Session,
	workflowId: string,
	executionId: string,
	times: number,
): Promise<boolean[]> {
	const { browser, page } = await openEditor(session.cookie);
	const seen: boolean[] = [];
	try {
		for (let visit = 0; visit < times; visit++) {
			await page.goto(`${session.url}/workflow/${workflowId}/executions/${executionId}`, {
				waitUntil: 'domcontentloaded',
			});
			seen.push(
				await page
					.locator('.el-notification')
					.filter({ hasText: /failed to be processed too many times/ })
					.first()
					.waitFor({ timeout: 30_000 })
					.then(
						() => true,
						() => false,
					),
			);
			await page.screenshot({
				path: path.join(ROOT, 'test', 'e2e', 'screenshots', 'queue-stalled-execution.png'),
			});
		}
	} finally {
		await browser.close();
	}
	return seen;
}

describe(`npm run dev:queue (n8n ${N8N_VERSION}, PostgreSQL, Redis, 2 workers), as a newcomer runs it`, () => {
	let session: Session;
	const timings: string[] = [];

	it('starts from nothing; imports, publishes and runs the examples under PostgreSQL with no error line in any log; listens on loopback only; keeps its files private', async () => {
		await ensureN8n(N8N_VERSION);
		const since = Date.now();
		dev = startDev();
		timings.push(`first start ${(await ready(dev)).toFixed(1)} s`);
		expect(dev.output()).toContain(`Logs: ${path.relative(ROOT, logs)}/`);
		session = {
			url: `http://localhost:${PORTS.n8n}`,
			cookie: await setupOwner(`http://localhost:${PORTS.n8n}`),
		};
		// The editor's list, as it first shows it (last updated first): the README's 1 to 6.
		const listed = await fetch(`${session.url}/rest/workflows?sortBy=updatedAt:desc`, {
			headers: { cookie: session.cookie },
		});
		const { data: workflows } = (await listed.json()) as { data: Array<{ name: string }> };
		expect(workflows.map((w) => w.name)).toEqual(exampleWorkflows().map((w) => w.name));
		for (const id of [WELCOME_FLOW, 'mcrmRestockFlow01', 'mcrmProposalFlow1', MCP_WORKFLOW_ID])
			await publishInEditor(session, id);
		// The MCP server example answers a client with the token the start printed.
		expect(dev.output()).toContain(
			`reach its tools at ${session.url}/mcp/messaging-crm with the bearer token ${DEMO_MCP_TOKEN}`,
		);
		const mcp = await connectMcp(mcpEndpoint(session.url), DEMO_MCP_TOKEN);
		expect((await mcp.listTools()).tools).toHaveLength(5);
		await mcp.close();
		// A visitor submits the published form (fields as n8n's form page posts them).
		const form = new FormData();
		for (const [i, value] of [
			'Ada Lovelace',
			'+1 555 010 4242',
			'ada@example.com',
			'4242001',
			'gears',
		].entries())
			form.append(`field-${i}`, value);
		const submitted = await fetch(`${session.url}/form/${FORM_PATH}`, {
			method: 'POST',
			body: form,
		});
		expect(submitted.status).toBe(200);
		await until(
			'the form submission to be welcomed',
			async () => (await welcomed(dev!, '+15550104242')) === 1,
			120_000,
		);
		await until('its execution to end', async () =>
			(await executions(session, WELCOME_FLOW)).some((e) => e.status === 'success'),
		);
		// Example 8: Send and Wait for Response asks Anna Petrova; the terminal shows the message's
		// links; the press of "Yes" resumes the execution, which thanks her.
		const anna = demoPersonId('Anna Petrova');
		const asked = await startInEditor(session, 'mcrmConfirmAppt01', 'Ask Anna (run me)');
		let yes = '';
		await until(
			'the terminal to show the links of example 8',
			() => {
				yes = /^ {2}Yes, I'll be there: (\S+)$/m.exec(dev!.output())?.[1] ?? '';
				return yes !== '';
			},
			120_000,
		);
		expect(dev.output()).toContain(
			'Anna Petrova got a message on telegram that waits for an answer:',
		);
		expect((await press(yes, 'approve')).status).toBe(200);
		await until(
			'example 8 to end',
			async () =>
				(await executions(session, 'mcrmConfirmAppt01')).find((e) => e.id === asked)?.status ===
				'success',
			120_000,
		);
		expect(
			(await sandboxState(dev!)).messages.filter((m) => m.customer_id === anna).map((m) => m.text),
		).toContain('Thank you, see you on **Tuesday at 10:00**!');
		// Example 7, published at the first start, follows up with Eva Novak once her window (63
		// minutes after the company was made) is an hour from closing: by the sandbox's own clock.
		const eva = demoPersonId('Eva Novak');
		await until(
			'example 7 to follow up with Eva Novak',
			async () =>
				(await sandboxState(dev!)).messages.some(
					(m) => m.customer_id === eva && m.status === 'sent',
				),
			300_000,
		);
		timings.push(`example 7 fired ${((Date.now() - since) / 1000).toFixed(0)} s after the start`);
		// The message reaches the sandbox before the worker has written the execution's end.
		const ended = async () => (await executions(session, WINDOW_WORKFLOW_ID)).every(hasEnded);
		await until("example 7's execution to end", ended, 60_000);
		expect((await executions(session, WINDOW_WORKFLOW_ID)).map((e) => e.status)).toEqual([
			'success',
		]);
		expect(errorLines()).toEqual([]);
		expect(readdirSync(logs).sort()).toEqual(
			['main', 'postgres', 'redis', 'worker-1', 'worker-2'].map((w) => `${w}.log`),
		);
		const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);
		expect(mode(logs)).toBe('700');
		expect(readdirSync(logs).map((f) => mode(path.join(logs, f)))).toEqual(
			readdirSync(logs).map(() => '600'),
		);
		expect(mode(path.join(HOME, 'sandbox.json'))).toBe('600');
		for (const folder of ['main', 'worker-1', 'worker-2'])
			expect(mode(path.join(HOME, folder))).toBe('700');
		const ports = listening(tree(dev));
		expect(ports.map((p) => p.port).sort()).toEqual(expect.arrayContaining(ALL_PORTS.sort()));
		expect(ports.filter((p) => !['127.0.0.1', '[::1]'].includes(p.address))).toEqual([]);
	}, 900_000);

	it("the README's walkthrough: a worker killed while it sends is reported and started again; the same input run again messages the customer once", async () => {
		const token = controlToken(dev!)!;
		// The send's answer held back for 60 s, and the answers to the node's resends under the same
		// key after its 30 s timeout too (four at most), as docs/queue-mode.md's step 2 does; the
		// conversation, before the send, goes through.
		await fetch(`http://127.0.0.1:${PORTS.sandbox}/__sandbox/faults`, {
			method: 'POST',
			headers: { 'X-Sandbox-Token': token, 'Content-Type': 'application/json' },
			body: JSON.stringify({
				path: '/customers/*',
				method: 'POST',
				skip: 1,
				count: 5,
				kind: 'delay',
				when: 'after',
				delayMs: 60_000,
			}),
		});
		const id = await startInEditor(session, WELCOME_FLOW, SAMPLE);
		let worker = '';
		await until(`a worker to start execution ${id}`, () => {
			worker =
				['worker-1', 'worker-2'].find((w) =>
					new RegExp(`started execution ${id}\\b`, 'i').test(logOf(w)),
				) ?? '';
			return worker !== '';
		});
		const pid = Number(new RegExp(`${worker} \\(pid (\\d+)`).exec(dev!.output())?.[1]);
		expect(pid).toBeGreaterThan(0);
		// The message went out; its answer is held back, and the worker dies before it comes.
		await until('the send to reach the sandbox', async () => (await welcomed(dev!)) === 1, 60_000);
		// A reader takes longer than the node's 30 s timeout to find the worker: past it, the node
		// sends again under the same key, that answer is held too, and the execution still runs.
		const customer = (await sandboxState(dev!)).customers.find((c) => c.phone === '+15550107788');
		await until(
			"the node's resend after its timeout to reach the sandbox",
			async () => (await sendsTo(dev!, String(customer?.id))) >= 2,
			120_000,
		);
		expect((await executions(session, WELCOME_FLOW)).find((e) => e.id === id)?.status).toBe(
			'running',
		);
		process.kill(pid, 'SIGKILL');
		const killedAt = Date.now();
		// The held answers not yet spent would hold the next run's send too: cleared, as step 4 does.
		await fetch(`http://127.0.0.1:${PORTS.sandbox}/__sandbox/faults`, {
			method: 'DELETE',
			headers: { 'X-Sandbox-Token': token },
		});
		await until(
			`${worker} to be started again`,
			() => dev!.output().includes(`${worker} is running again`),
			120_000,
		);
		expect(dev!.output()).toContain(`${worker} exited (SIGKILL)`);
		let status = '';
		let lasted = '';
		await until(
			'the execution to end',
			async () => {
				const run = (await executions(session, WELCOME_FLOW)).find((e) => e.id === id);
				status = run?.status ?? '';
				lasted = shownDuration(run);
				return !['', 'running', 'new', 'waiting'].includes(status);
			},
			180_000,
		);
		expect(status).not.toBe('success');
		const ended = ((Date.now() - killedAt) / 1000).toFixed(0);
		// The Executions tab has it ended; main gives up on the job itself only once the dead
		// worker's lock has lapsed (60 s) and its next stalled check comes (every 30 s): n8n's word
		// for it in main's log, then what it means in the terminal (docs/queue-mode.md).
		await until(
			"main to give up on the dead worker's job",
			() => /job stalled more than maxStalledCount/.test(logOf('main')),
			180_000,
		);
		const stalled = ((Date.now() - killedAt) / 1000).toFixed(0);
		const marked = (await executions(session, WELCOME_FLOW)).find((e) => e.id === id);
		const lastedThen = shownDuration(marked);
		expect(dev!.output()).toMatch(
			/\[main\] .*job stalled more than maxStalledCount.*\n\[main\] \(n8n: the worker that ran this execution died/,
		);
		// What a person sees of that run in the Executions tab, opened twice in Chromium: n8n's toast
		// about a stalled job, each time (docs/queue-mode.md, step 5).
		const toasts = await executionPageToasts(session, WELCOME_FLOW, id, 2);
		expect(toasts).toEqual([true, true]);
		const again = await executeInEditor(session, WELCOME_FLOW, SAMPLE);
		expect(again.status).toBe('success');
		expect(await welcomed(dev!)).toBe(1);
		timings.push(
			`${worker} killed mid-send: the execution ${status} (lasting ${lasted} s) ${ended} s after the kill, main's "job stalled" ${stalled} s after it (the execution then ${marked?.status} lasting ${lastedThen} s), the same input run again ${again.status}, welcome messages 1`,
		);
	}, 600_000);

	it('SIGTERM to npm stops everything; a restart keeps the company and the control token; SIGINT to npm, then Ctrl-C to the group, stop it too', async () => {
		const token = controlToken(dev!);
		const customers = (await sandboxState(dev!)).customers.length;
		// A home made before an example was added: its ready file holds a date, as it did then, and
		// it lacks example 5. The restart imports that one and leaves the others as they are.
		await deleteWorkflow(session, TEMPLATE_FLOW);
		await stop(dev!, 'SIGTERM', false);
		writeFileSync(path.join(HOME, 'dev-ready'), '2026-11-20T10:00:00.000Z');
		dev = startDev();
		timings.push(`restart ${(await ready(dev)).toFixed(1)} s`);
		expect(controlToken(dev)).toBe(token);
		expect((await sandboxState(dev)).customers).toHaveLength(customers);
		// That one alone ("..." ends the list).
		expect(dev.output()).toContain(
			'Importing the example workflows added since this home was made: "Example 5: Template approved, send it"...',
		);
		expect(await workflowExists(session, TEMPLATE_FLOW)).toBe(true);
		expect(recordedExamples(readFileSync(path.join(HOME, 'dev-ready'), 'utf8'))).toEqual(
			exampleWorkflows()
				.map((w) => w.id)
				.sort(),
		);
		await stop(dev, 'SIGINT', false);
		dev = startDev();
		await ready(dev);
		await stop(dev, 'SIGINT', true);
		// No log or state file holds the API key of the sandbox (a demo key, but the code would write any).
		const holders = readdirSync(logs).filter((f) =>
			readFileSync(path.join(logs, f), 'utf8').includes(DEMO_API_KEY),
		);
		expect(holders).toEqual([]);
		console.log(`dev:queue: ${timings.join('; ')}`);
	}, 900_000);

	it('says what to do when PostgreSQL cannot reach its data (the project cloned under a folder only its owner may enter)', async () => {
		const closed = privateFolder('mcrm-dev-e2e-closed-');
		const blocked = startDev(path.join(closed, 'home'));
		expect(await blocked.exited).toBe(1);
		expect(blocked.output()).toContain(
			`PostgreSQL runs as the user "postgres", which cannot pass through ${closed} (mode 700)`,
		);
		expect(blocked.output()).toContain(`chmod o+x ${closed}`);
		expect(blocked.output()).toContain('Stopped.');
		expect(ALL_PORTS.filter(portInUse)).toEqual([]);
	}, 300_000);
});
