/**
 * `npm run dev`: the package (built by the npm script before this runs) inside a real n8n, against
 * the sandbox with its demo company. The first run installs n8n into .cache/ (a few minutes);
 * later runs start in seconds. Ctrl-C stops everything it started.
 *
 * `npm run dev:queue` (this with --queue): the same in n8n's queue mode: PostgreSQL and Redis from
 * Debian's packages, n8n main and two workers (see test/e2e/queue.ts).
 */
import { existsSync, writeFileSync } from 'fs';
import path from 'path';

import type { N8nOptions } from '../e2e/n8n';
import { ensureN8n, N8N_VERSION, prepareUserFolder, ROOT, startN8n } from '../e2e/n8n';
import { startQueueStack } from '../e2e/queue';
import { exampleWorkflows, importCredential, importWorkflows, setupOwner } from '../e2e/setup';
import { DEMO_API_KEY } from '../sandbox/cli';
import { startSandbox } from '../sandbox/server';
import { DEMO } from '../sandbox/store';

const N8N_PORT = Number(process.env.N8N_PORT ?? 5678);
const SANDBOX_PORT = Number(process.env.SANDBOX_PORT ?? 4010);
const EMAIL = 'demo@example.com';
const PASSWORD = 'Demo-password-1';
const QUEUE = process.argv.includes('--queue');

async function main() {
	ensureN8n(N8N_VERSION);
	const sandbox = await startSandbox({
		port: SANDBOX_PORT,
		seed: 'demo',
		keys: [{ key: DEMO_API_KEY }],
	});
	// Some customers have asked for codes already: one pool is comfortable, the other runs low.
	sandbox.issueCodes(DEMO.welcomePool, 12);
	sandbox.issueCodes(DEMO.vipPool, 8);
	console.log(
		`Sandbox with the demo company: ${sandbox.url} (API key ${DEMO_API_KEY}, control token ${sandbox.controlToken})`,
	);

	const home = path.join(ROOT, '.cache', QUEUE ? 'dev-queue' : 'dev-home');
	const ready = path.join(home, QUEUE ? 'dev-ready' : path.join('.n8n', 'dev-ready'));
	const firstRun = !existsSync(ready);
	const importExamples = async (options: N8nOptions) => {
		if (!firstRun) return;
		console.log('Importing the "Messaging CRM sandbox" credential and the example workflows...');
		await importCredential(options, { baseUrl: sandbox.url, apiKey: DEMO_API_KEY });
		await importWorkflows(options, exampleWorkflows());
	};
	let stopAll: () => Promise<void>;
	let url: string;
	let exits: Array<{ on(event: 'exit', listener: (code: number | null) => void): unknown }>;
	if (QUEUE) {
		console.log(
			`Starting PostgreSQL, Redis, n8n ${N8N_VERSION} main and 2 workers (queue mode)...`,
		);
		const stack = await startQueueStack(
			{ root: home, mainPort: N8N_PORT, fresh: false },
			importExamples,
		);
		({ url } = stack);
		stopAll = stack.stop;
		exits = [stack.main.process, ...stack.workers.map((w) => w.process)];
	} else {
		prepareUserFolder(home, false);
		const options = { userFolder: home, port: N8N_PORT };
		await importExamples(options);
		console.log(`Starting n8n ${N8N_VERSION}...`);
		const n8n = await startN8n(options);
		({ url } = n8n);
		stopAll = n8n.stop;
		exits = [n8n.process];
	}
	if (firstRun) {
		await setupOwner(url, EMAIL, PASSWORD);
		writeFileSync(ready, new Date().toISOString());
	}
	console.log('');
	console.log(`n8n is ready: ${url}  (log in as ${EMAIL} / ${PASSWORD})`);
	console.log(
		'The Messaging CRM nodes, a credential pointing at the sandbox and four example workflows are there.',
	);
	console.log(
		'"AI agent answers a customer" needs a model: open its OpenAI Chat Model node and create an OpenAI credential (any OpenAI-compatible Base URL works).',
	);
	if (QUEUE)
		console.log(
			'Queue mode: main serves the editor, webhooks and triggers; 2 workers run the executions.',
		);
	console.log('Ctrl-C stops everything.');
	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		console.log('\nStopping n8n and the sandbox...');
		await stopAll();
		await sandbox.stop();
		process.exit(0);
	};
	process.on('SIGINT', () => void stop());
	process.on('SIGTERM', () => void stop());
	for (const child of exits) {
		child.on('exit', (code) => {
			if (!stopping) {
				console.error(`An n8n process exited (${String(code)})`);
				void stop().then(() => process.exit(1));
			}
		});
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
