/**
 * `npm run bench -- restock`. Restocking a promo pool from a file: the node against the same
 * upload by hand.
 */
import { runNode } from '../harness/engine';
import { measuredUpload } from './restock';
import type { Figures } from './runner';
import {
	BASE,
	control,
	fresh,
	LIMIT,
	repeated,
	requestLog,
	row,
	show,
	WINDOW_MS,
	workers,
} from './runner';

export async function restock() {
	const newPool = async () => {
		const apiKey = await fresh({ enabled: false, limit: LIMIT, windowMs: WINDOW_MS });
		const poolId = String(
			(await control('POST', '/promo-pools', { title: 'Restock benchmark' })).id,
		);
		return { apiKey, poolId };
	};
	// In this (warm) process: resident memory and heap above the baseline, the CSV included.
	const warm = await repeated('restock', 'in the bench process (warm)', async () => {
		const { apiKey, poolId } = await newPool();
		const upload = await measuredUpload({ baseUrl: BASE, apiKey, poolId, count: 100_000 });
		const uploadRequests = (await requestLog()).length;
		await control('DELETE', '/requests');
		const listStarted = Date.now();
		const list = await runNode({
			parameters: {
				resource: 'promoCode',
				operation: 'getMany',
				poolId: { __rl: true, mode: 'id', value: poolId },
				returnAll: true,
			},
			credentials: { baseUrl: BASE, apiKey },
		});
		const codes = list.items.map((i) => i.json.code);
		return {
			upload_requests: uploadRequests,
			upload_seconds: upload.seconds,
			accepted: upload.accepted,
			rss_peak_above_baseline_mb: upload.rss_peak_above_baseline_mb,
			heap_peak_above_baseline_mb: upload.heap_peak_above_baseline_mb,
			return_all_requests: (await requestLog()).length,
			return_all_items: codes.length,
			return_all_distinct: new Set(codes).size,
			return_all_seconds: (Date.now() - listStarted) / 1000,
		};
	});
	// In a fresh process, as a new n8n worker would run it.
	const cold = await repeated('restock', 'in a fresh process', async () => {
		const { apiKey, poolId } = await newPool();
		const [figures] = await workers([
			{ kind: 'restock', baseUrl: BASE, apiKey, count: 100_000, poolId },
		]);
		return figures as Figures;
	});
	row(
		'Restock 100,000 codes (CSV)',
		'Messaging CRM node',
		`${show(warm.upload_requests, 0)} requests`,
		`${show(warm.upload_seconds, 2, ' s')}`,
		`fresh process: +${show(cold.rss_peak_above_baseline_mb, 0, ' MB')} RSS, +${show(cold.heap_peak_above_baseline_mb, 0, ' MB')} heap`,
		`warm: +${show(warm.rss_peak_above_baseline_mb, 0, ' MB')} RSS, +${show(warm.heap_peak_above_baseline_mb, 0, ' MB')} heap`,
		'',
	);
	row(
		'Return All over 100,000 codes',
		'Messaging CRM node',
		`${show(warm.return_all_requests, 0)} requests`,
		`${show(warm.return_all_items, 0)} items`,
		`${show(warm.return_all_distinct, 0)} distinct`,
		'',
		`${show(warm.return_all_seconds, 2, ' s')}`,
	);
}
