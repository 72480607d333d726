/* eslint-disable @n8n/community-nodes/no-restricted-globals -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * Uploads `count` codes from a CSV binary through n8n's engine and measures the process's peak
 * resident memory and heap above the baseline taken just before (the CSV and its base64 included),
 * sampled every 5 ms. Used in the benchmark process (warm) and in a fresh one (worker.ts).
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { runNode } from '../harness/engine';

export async function measuredUpload(options: {
	baseUrl: string;
	apiKey: string;
	poolId: string;
	count: number;
}) {
	global.gc?.();
	const base = process.memoryUsage();
	let rss = base.rss;
	let heap = base.heapUsed;
	const sampler = setInterval(() => {
		const now = process.memoryUsage();
		rss = Math.max(rss, now.rss);
		heap = Math.max(heap, now.heapUsed);
	}, 5);
	const csv = `code,batch\n${Array.from({ length: options.count }, (_, i) => `RS-${String(i).padStart(7, '0')},b1`).join('\n')}\n`;
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
			poolId: { __rl: true, mode: 'id', value: options.poolId },
			codesFrom: 'binary',
			csvColumn: 'code',
		},
		credentials: { baseUrl: options.baseUrl, apiKey: options.apiKey },
		items: [item],
	});
	clearInterval(sampler);
	if (upload.error) throw upload.error;
	const mb = (bytes: number) => bytes / 1024 / 1024;
	return {
		seconds: (Date.now() - started) / 1000,
		accepted: Number(upload.items[0].json.accepted),
		rss_peak_above_baseline_mb: mb(rss - base.rss),
		heap_peak_above_baseline_mb: mb(heap - base.heapUsed),
	};
}
