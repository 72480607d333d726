/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * `npm run sandbox`: the sandbox on a fixed port with the demo company, for trying the node by
 * hand or with `npm run dev`. Prints its URL, a demo key with every scope and the control token.
 */
import { seedDemoPeople } from './demo';
import { startSandbox } from './server';

export const DEMO_API_KEY = 'mcrm_demo_sandbox_key_all_scopes';

async function main() {
	const port = Number(process.env.SANDBOX_PORT ?? 4010);
	const windowMs = Number(process.env.SANDBOX_RATE_WINDOW_MS ?? 60_000);
	const limit = Number(process.env.SANDBOX_RATE_LIMIT ?? 120);
	const sandbox = await startSandbox({
		port,
		seed: 'demo',
		keys: [{ key: process.env.SANDBOX_API_KEY ?? DEMO_API_KEY }],
		rateLimit: { limit, windowMs },
		controlToken: process.env.SANDBOX_CONTROL_TOKEN,
	});
	seedDemoPeople(sandbox);
	console.log(`Messaging CRM sandbox listening on ${sandbox.url}`);
	console.log(
		`  API key (all scopes): ${process.env.SANDBOX_API_KEY ? '(from SANDBOX_API_KEY)' : DEMO_API_KEY}`,
	);
	console.log(`  Control token (X-Sandbox-Token): ${sandbox.controlToken}`);
	console.log(`  Rate limit: ${limit} requests per ${windowMs / 1000} s per key`);
	const stop = () => {
		void sandbox.stop().then(() => process.exit(0));
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

if (require.main === module) {
	main().catch((error: unknown) => {
		console.error(error);
		process.exit(1);
	});
}
