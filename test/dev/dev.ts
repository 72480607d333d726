/**
 * `npm run dev`: the package (built by the npm script before this runs) inside a real n8n, against
 * the sandbox with its demo company. The first run installs n8n into .cache/ (a few minutes);
 * later runs start in seconds. Ctrl-C stops everything it started.
 */
import { existsSync, writeFileSync } from 'fs';
import path from 'path';

import { ensureN8n, N8N_VERSION, prepareUserFolder, ROOT, startN8n } from '../e2e/n8n';
import { exampleWorkflows, importCredential, importWorkflows, setupOwner } from '../e2e/setup';
import { DEMO_API_KEY } from '../sandbox/cli';
import { startSandbox } from '../sandbox/server';
import { DEMO } from '../sandbox/store';

const N8N_PORT = Number(process.env.N8N_PORT ?? 5678);
const SANDBOX_PORT = Number(process.env.SANDBOX_PORT ?? 4010);
const EMAIL = 'demo@example.com';
const PASSWORD = 'Demo-password-1';

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

	const userFolder = path.join(ROOT, '.cache', 'dev-home');
	const firstRun = !existsSync(path.join(userFolder, '.n8n', 'dev-ready'));
	prepareUserFolder(userFolder, false);
	const options = { userFolder, port: N8N_PORT };
	if (firstRun) {
		console.log('Importing the "Messaging CRM sandbox" credential and the example workflows...');
		await importCredential(options, { baseUrl: sandbox.url, apiKey: DEMO_API_KEY });
		await importWorkflows(options, exampleWorkflows());
	}
	console.log(`Starting n8n ${N8N_VERSION}...`);
	const n8n = await startN8n(options);
	if (firstRun) {
		await setupOwner(n8n.url, EMAIL, PASSWORD);
		writeFileSync(path.join(userFolder, '.n8n', 'dev-ready'), new Date().toISOString());
	}
	console.log('');
	console.log(`n8n is ready: ${n8n.url}  (log in as ${EMAIL} / ${PASSWORD})`);
	console.log(
		'The Messaging CRM nodes, a credential pointing at the sandbox and three example workflows are there.',
	);
	console.log('Ctrl-C stops n8n and the sandbox.');
	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		console.log('\nStopping n8n and the sandbox...');
		await n8n.stop();
		await sandbox.stop();
		process.exit(0);
	};
	process.on('SIGINT', () => void stop());
	process.on('SIGTERM', () => void stop());
	n8n.process.on('exit', (code) => {
		if (!stopping) {
			console.error(`n8n exited (${String(code)})`);
			void sandbox.stop().then(() => process.exit(1));
		}
	});
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
