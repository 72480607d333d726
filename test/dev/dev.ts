/**
 * `npm run dev`: builds the package (done by the npm script before this runs) and starts the
 * sandbox with the demo company on http://127.0.0.1:4010, so the node can be tried without an
 * account. Ctrl-C stops it.
 */
import path from 'path';

import { DEMO_API_KEY } from '../sandbox/cli';
import { startSandbox } from '../sandbox/server';
import { DEMO } from '../sandbox/store';

async function main() {
	const port = Number(process.env.SANDBOX_PORT ?? 4010);
	const sandbox = await startSandbox({ port, seed: 'demo', keys: [{ key: DEMO_API_KEY }] });
	// Some customers have asked for codes already: one pool is comfortable, the other runs low.
	sandbox.issueCodes(DEMO.welcomePool, 12);
	sandbox.issueCodes(DEMO.vipPool, 8);
	const dist = path.resolve(__dirname, '../..');
	console.log(`Sandbox with the demo company: ${sandbox.url} (API key ${DEMO_API_KEY})`);
	console.log(`Control token: ${sandbox.controlToken}`);
	console.log('');
	console.log('To load the package into an n8n you run yourself:');
	console.log(`  N8N_CUSTOM_EXTENSIONS=${dist} n8n start`);
	console.log(`then create a "Messaging CRM API" credential with Base URL ${sandbox.url} and the key above.`);
	console.log('Ctrl-C stops the sandbox.');
	const stop = () => void sandbox.stop().then(() => process.exit(0));
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
