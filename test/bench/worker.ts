/* eslint-disable @n8n/community-nodes/no-restricted-globals -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * One benchmark job in a fresh process, as a queue-mode worker or a new n8n process would run
 * it. Started by bench.ts with a JSON job in BENCH_JOB; prints `ready`, waits for a line on
 * stdin (so that several workers start together), runs, prints one JSON line with its figures.
 *
 * - `upserts`: Create or Update `count` customers through n8n's engine (its own pacer, as each
 *   worker process has).
 * - `restock`: uploads `count` codes from a CSV binary and reports the peak resident memory and
 *   heap above the process's baseline.
 */
import { loadPackage, runNode } from '../harness/engine';
import { measuredUpload } from './restock';

interface Job {
	kind: 'upserts' | 'restock';
	baseUrl: string;
	apiKey: string;
	count: number;
	prefix?: string;
	poolId?: string;
}

const job = JSON.parse(process.env.BENCH_JOB ?? '{}') as Job;

async function upserts() {
	const items = Array.from({ length: job.count }, (_, i) => ({
		json: { phone: `+1555${job.prefix ?? '9'}${String(100000 + i)}`, name: `Worker ${i}` },
	}));
	const started = Date.now();
	const result = await runNode({
		parameters: {
			resource: 'customer',
			operation: 'upsert',
			phone: '={{ $json.phone }}',
			additionalFields: { fullName: '={{ $json.name }}' },
		},
		credentials: { baseUrl: job.baseUrl, apiKey: job.apiKey },
		items,
		continueOnFail: true,
	});
	return {
		seconds: (Date.now() - started) / 1000,
		finished_at: Date.now(),
		failed: result.error ? job.count : result.items.filter((i) => i.json.error).length,
	};
}

async function restock() {
	return await measuredUpload({
		baseUrl: job.baseUrl,
		apiKey: job.apiKey,
		poolId: String(job.poolId),
		count: job.count,
	});
}

async function main() {
	// Load the package before the start signal, so that workers start sending together.
	await loadPackage();
	process.stdout.write('ready\n');
	await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
	const figures = job.kind === 'restock' ? await restock() : await upserts();
	process.stdout.write(`${JSON.stringify(figures)}\n`);
	process.exit(0);
}

main().catch((error: unknown) => {
	process.stderr.write(`${String(error)}\n`);
	process.exit(1);
});
