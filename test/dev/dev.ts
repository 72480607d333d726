/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * `npm run dev`: the package (built by the npm script before this runs) inside a real n8n, against
 * the sandbox with its demo company. The first run installs n8n into .cache/ (a few minutes);
 * later runs start in seconds.
 *
 * `npm run dev:queue` (this with --queue): the same in n8n's queue mode: PostgreSQL and Redis from
 * Debian's packages, n8n main and two workers (see test/e2e/queue.ts).
 *
 * A rehearsal of a deployment: every process's output goes to a file under `<home>/logs/` (error
 * lines are echoed here too); an n8n process that dies is reported and started again while the
 * rest keeps running; the sandbox's company and control token are kept in `<home>/sandbox.json`
 * across restarts (`--clean` starts from nothing); SIGINT, SIGTERM or SIGHUP stops everything.
 * Home: .cache/dev-home or .cache/dev-queue, or DEV_HOME.
 */
import type { ChildProcess } from 'child_process';
import {
	appendFileSync,
	chmodSync,
	existsSync,
	mkdirSync,
	readFileSync,
	renameSync,
	rmSync,
	writeFileSync,
} from 'fs';
import path from 'path';

import type { N8nOptions } from '../e2e/n8n';
import {
	ensureN8n,
	N8N_VERSION,
	prepareUserFolder,
	removePacked,
	ROOT,
	startN8n,
} from '../e2e/n8n';
import { startQueueStack } from '../e2e/queue';
import type { WorkflowJson } from '../e2e/setup';
import {
	crmCredential,
	DEMO_MCP_TOKEN,
	exampleWorkflows,
	importCredentials,
	importMcpToken,
	importWorkflows,
	MCP_WORKFLOW_ID,
	mcpTokenCredential,
	publishWorkflow,
	setupOwner,
	WINDOW_WORKFLOW_ID,
	workflowIds,
} from '../e2e/setup';
import { examplesToImport, readyText } from './examples';
import { DEMO_API_KEY } from '../sandbox/cli';
import { seedDemoPeople } from '../sandbox/demo';
import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { endDescendants, terminalLines } from './processes';

const N8N_PORT = Number(process.env.N8N_PORT ?? 5678);
const SANDBOX_PORT = Number(process.env.SANDBOX_PORT ?? 4010);
const PG_PORT = Number(process.env.DEV_PG_PORT ?? 5439);
const REDIS_PORT = Number(process.env.DEV_REDIS_PORT ?? 6390);
/** How long a new business-chat template stays PENDING before the sandbox approves it. */
const MODERATE_AFTER_MS = Number(process.env.SANDBOX_MODERATE_AFTER_MS ?? 30_000);
const EMAIL = 'demo@example.com';
const PASSWORD = 'Demo-password-1';
const QUEUE = process.argv.includes('--queue');
const CLEAN = process.argv.includes('--clean');
const HOME = path.resolve(
	process.env.DEV_HOME ?? path.join(ROOT, '.cache', QUEUE ? 'dev-queue' : 'dev-home'),
);
const LOGS = path.join(HOME, 'logs');
const STATE = path.join(HOME, 'sandbox.json');
/** More restarts than this within a minute: something is wrong beyond a crash; stop. */
const MAX_RESTARTS_PER_MINUTE = 5;

const say = (line: string) => console.log(line);
const logFile = (who: string) => path.join(LOGS, `${who}.log`);

/**
 * A process's output into its log; n8n's error lines (PostgreSQL's fatal ones) and each item the
 * node refused also here (terminalLines).
 */
function output(who: string, chunk: string): void {
	appendFileSync(logFile(who), chunk, { mode: 0o600 });
	for (const line of chunk.split('\n'))
		for (const shown of terminalLines(who, line)) console.error(shown);
}

/** Writes a file readable by this user only, whole or not at all. */
function writePrivate(file: string, text: string): void {
	const partial = `${file}.partial`;
	writeFileSync(partial, text, { mode: 0o600 });
	renameSync(partial, file);
}

/** The sandbox, with the company kept from the last run unless --clean. */
async function sandboxFromState(): Promise<Sandbox> {
	const saved = existsSync(STATE)
		? (JSON.parse(readFileSync(STATE, 'utf8')) as { controlToken: string; state: string })
		: undefined;
	const sandbox = await startSandbox({
		port: SANDBOX_PORT,
		seed: 'demo',
		keys: [{ key: DEMO_API_KEY }],
		controlToken: saved?.controlToken,
		// A template created in the editor is approved this long after (Template Approved).
		moderateAfterMs: MODERATE_AFTER_MS,
	});
	if (saved) sandbox.loadState(saved.state);
	else seedDemoPeople(sandbox);
	return sandbox;
}

/**
 * The links of each message that waits for an answer (Send and Wait for Response, example 8), in
 * the terminal: the sandbox's customers have no messenger to open them in, so you open them.
 */
function showAnswerLinks(crm: Sandbox): void {
	const seen = new Set(crm.store.messages.keys());
	const timer = setInterval(() => {
		for (const [id, message] of crm.store.messages) {
			if (seen.has(id)) continue;
			seen.add(id);
			const links = [
				...(message.text ?? '').matchAll(/\[([^\]]+)\]\((\S+\/webhook-waiting\/\S+)\)/g),
			];
			if (!links.length) continue;
			const name = crm.store.customers.get(message.customer_id)?.full_name ?? message.customer_id;
			say(`${name} got a message on ${message.messenger_type} that waits for an answer:`);
			for (const [, label, url] of links) say(`  ${label}: ${url}`);
		}
	}, 1000);
	timer.unref();
}

let stopping = false;
let stopN8n: (() => Promise<void>) | undefined;
let sandbox: Sandbox | undefined;
let lastSaved = '';

function saveSandbox(): void {
	if (!sandbox) return;
	const state = sandbox.saveState();
	if (state === lastSaved) return;
	writePrivate(STATE, JSON.stringify({ controlToken: sandbox.controlToken, state }));
	lastSaved = state;
}

async function shutdown(code: number, why: string): Promise<void> {
	if (stopping) return;
	stopping = true;
	say(`\n${why}: stopping n8n${QUEUE ? ', PostgreSQL, Redis' : ''} and the sandbox...`);
	try {
		await stopN8n?.();
	} catch (error) {
		console.error(error);
	}
	saveSandbox();
	await sandbox?.stop();
	// Whatever a stop did not end (a signal during the start, a process that would not stop).
	await endDescendants();
	say('Stopped.');
	process.exit(code);
}

/**
 * Watches an n8n process: when it dies, says so and starts it again (`restart`), unless it dies
 * too often; `current` gives the process after a restart.
 */
function keepAlive(who: string, current: () => ChildProcess, restart: () => Promise<void>): void {
	const restarts: number[] = [];
	const watch = (child: ChildProcess) => {
		child.once('exit', (code, signal) => {
			if (stopping) return;
			const now = Date.now();
			restarts.push(now);
			while (restarts[0] < now - 60_000) restarts.shift();
			console.error(
				`${who} exited (${signal ?? `code ${String(code)}`}); its log: ${path.relative(process.cwd(), logFile(who))}`,
			);
			if (restarts.length > MAX_RESTARTS_PER_MINUTE) {
				void shutdown(1, `${who} died ${restarts.length} times in a minute`);
				return;
			}
			say(`Starting ${who} again; the rest keeps running...`);
			restart().then(
				() => {
					say(`${who} is running again (pid ${String(current().pid)}).`);
					watch(current());
				},
				(error: unknown) => {
					console.error(error);
					void shutdown(1, `${who} could not be started again`);
				},
			);
		});
	};
	watch(current());
}

async function main() {
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
		process.on(signal, () => void shutdown(0, signal));
	if (CLEAN) {
		say(
			`--clean: removing ${path.relative(process.cwd(), HOME)} (n8n's data, the sandbox's company, logs)`,
		);
		rmSync(HOME, { recursive: true, force: true });
	}
	// The folders above the home as usual (a mode given to a recursive mkdir would close .cache on a
	// fresh clone too); only this user reads the home, PostgreSQL's user may pass through it.
	mkdirSync(HOME, { recursive: true });
	chmodSync(HOME, QUEUE ? 0o711 : 0o700);
	mkdirSync(LOGS, { recursive: true, mode: 0o700 });
	await ensureN8n(N8N_VERSION);
	sandbox = await sandboxFromState();
	saveSandbox();
	const saver = setInterval(saveSandbox, 5_000);
	saver.unref();
	showAnswerLinks(sandbox);

	const ready = path.join(HOME, QUEUE ? 'dev-ready' : path.join('.n8n', 'dev-ready'));
	const firstRun = !existsSync(ready);
	const examples = exampleWorkflows();
	const { url: sandboxUrl } = sandbox;
	const importExamples = async (options: N8nOptions) => {
		if (firstRun) {
			say('Importing the "Messaging CRM sandbox" credential and the example workflows...');
			await importCredentials(options, [
				crmCredential({ baseUrl: sandboxUrl, apiKey: DEMO_API_KEY }),
				mcpTokenCredential(DEMO_MCP_TOKEN),
			]);
			// Example 7 first, published: publishing marks a workflow updated, and the editor lists
			// the last updated first, so the examples before it are stamped after its publishing and
			// those after it before (1 to 8 from the top).
			const isWindow = (w: WorkflowJson) => w.id === WINDOW_WORKFLOW_ID;
			const before = Date.now();
			await importWorkflows(options, examples.filter(isWindow));
			await publishWorkflow(options, WINDOW_WORKFLOW_ID);
			const seventh = examples.findIndex(isWindow);
			const after = Date.now() + 1000 * seventh;
			await importWorkflows(
				options,
				examples
					.map((w, i) => {
						const at = new Date(i < seventh ? after - 1000 * i : before - 1000 * i).toISOString();
						return { ...w, createdAt: at, updatedAt: at };
					})
					.filter((w) => !isWindow(w)),
			);
			return;
		}
		// A home made before an example was added gets that example (and its credential); the
		// workflows it has, changed or not, are left alone.
		let missing: WorkflowJson[];
		try {
			missing = await examplesToImport(
				examples,
				readFileSync(ready, 'utf8'),
				async () => await workflowIds(options),
			);
		} catch (error) {
			say(`Could not tell which example workflows this home lacks: ${String(error)}`);
			return;
		}
		if (missing.length === 0) return;
		say(
			`Importing the example workflows added since this home was made: ${missing.map((w) => `"${w.name}"`).join(', ')}...`,
		);
		if (missing.some((w) => w.id === MCP_WORKFLOW_ID))
			await importMcpToken(options, DEMO_MCP_TOKEN);
		await importWorkflows(options, missing);
		if (missing.some((w) => w.id === WINDOW_WORKFLOW_ID))
			await publishWorkflow(options, WINDOW_WORKFLOW_ID);
	};
	let url: string;
	let processes: () => string[];
	if (QUEUE) {
		say(`Starting PostgreSQL, Redis, n8n ${N8N_VERSION} main and 2 workers (queue mode)...`);
		const stack = await startQueueStack(
			{
				root: HOME,
				mainPort: N8N_PORT,
				pgPort: PG_PORT,
				redisPort: REDIS_PORT,
				fresh: false,
				output,
			},
			importExamples,
		);
		({ url } = stack);
		stopN8n = stack.stop;
		processes = () => [
			`main (pid ${String(stack.main.process.pid)})`,
			...stack.workers.map((w, i) => `worker-${i + 1} (pid ${String(w.process.pid)})`),
		];
		keepAlive('main', () => stack.main.process, stack.restartMain);
		stack.workers.forEach((_w, i) =>
			keepAlive(
				`worker-${i + 1}`,
				() => stack.workers[i].process,
				() => stack.restartWorker(i),
			),
		);
	} else {
		prepareUserFolder(HOME, false);
		const options = { userFolder: HOME, port: N8N_PORT };
		await importExamples(options);
		say(`Starting n8n ${N8N_VERSION}...`);
		const start = () => startN8n({ ...options, output: (chunk) => output('n8n', chunk) });
		let n8n = await start();
		({ url } = n8n);
		stopN8n = () => n8n.stop();
		processes = () => [`n8n (pid ${String(n8n.process.pid)})`];
		keepAlive(
			'n8n',
			() => n8n.process,
			async () => {
				n8n = await start();
			},
		);
	}
	// Every n8n has the package: its tarball is not kept (a restart installs the same files).
	removePacked();
	if (firstRun) await setupOwner(url, EMAIL, PASSWORD);
	writeFileSync(ready, readyText(examples.map((w) => w.id)), { mode: 0o600 });
	const here = (file: string) => path.relative(process.cwd(), file);
	say('');
	say(`n8n is ready: ${url}  (log in as ${EMAIL} / ${PASSWORD})`);
	say(
		`The Messaging CRM nodes, a credential pointing at the sandbox and ${examples.length} example workflows are there ("Example 1: Web form to customer" runs at once from its Execute workflow button).`,
	);
	say(
		`"Example 6: MCP server": once published, MCP clients reach its tools at ${url}/mcp/messaging-crm with the bearer token ${DEMO_MCP_TOKEN}.`,
	);
	say(
		'"Example 7: Follow up before the window closes" is published: Eva Novak\'s Facebook window closes 63 minutes after the demo company was made, and it follows up with her once it is an hour away (in a fresh company, about 4 minutes after the start).',
	);
	say(
		'"Example 4: AI agent answers a customer" needs a model: open its OpenAI Chat Model node and create an OpenAI credential (any OpenAI-compatible Base URL works).',
	);
	say(
		`Sandbox: ${sandbox.url} (API key ${DEMO_API_KEY}, control token ${sandbox.controlToken}); its company is kept in ${here(STATE)} (start with --clean for a new one).`,
	);
	if (QUEUE)
		say(
			'Queue mode: main serves the editor, webhooks and triggers; 2 workers run the executions. A process that dies is started again.',
		);
	say(`Logs: ${here(LOGS)}/ (error lines are shown here too).`);
	say(`Processes: ${processes().join(', ')}.`);
	say('Ctrl-C stops everything.');
}

main().catch((error: unknown) => {
	console.error(error);
	void shutdown(1, 'The start failed');
});
