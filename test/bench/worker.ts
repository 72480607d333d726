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
import type { INodeExecutionData } from 'n8n-workflow';

import { loadPackage, runNode } from '../harness/n8n';

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
	global.gc?.();
	const base = process.memoryUsage();
	let rss = base.rss;
	let heap = base.heapUsed;
	const sampler = setInterval(() => {
		const now = process.memoryUsage();
		rss = Math.max(rss, now.rss);
		heap = Math.max(heap, now.heapUsed);
	}, 5);
	const csv = `code,batch\n${Array.from({ length: job.count }, (_, i) => `RS-${String(i).padStart(7, '0')},b1`).join('\n')}\n`;
	const item: INodeExecutionData = {
		json: {},
		binary: {
			data: {
				data: Buffer.from(csv).toString('base64'),
				mimeType: 'text/csv',
				fileName: 'codes.csv',
			},
		},
	};
	const started = Date.now();
	const upload = await runNode({
		parameters: {
			resource: 'promoCode',
			operation: 'upload',
			poolId: { __rl: true, mode: 'id', value: job.poolId },
			codesFrom: 'binary',
			csvColumn: 'code',
		},
		credentials: { baseUrl: job.baseUrl, apiKey: job.apiKey },
		items: [item],
	});
	clearInterval(sampler);
	if (upload.error) throw upload.error;
	const mb = (bytes: number) => Number((bytes / 1024 / 1024).toFixed(1));
	return {
		seconds: (Date.now() - started) / 1000,
		rss_peak_above_baseline_mb: mb(rss - base.rss),
		heap_peak_above_baseline_mb: mb(heap - base.heapUsed),
	};
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
