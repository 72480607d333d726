/**
 * `npm run bench -- cotenant` and `cotenant60`. Another client of the key beside the node, at the
 * benchmark's 6 s window and at the API's 60 s.
 */
import {
	failedOf,
	fresh,
	LIMIT,
	lists,
	percent,
	repeated,
	row,
	show,
	sleep,
	upsertPeople,
	wanted,
	WINDOW_MS,
	windowShare,
} from './runner';
import type { CoTenantJob } from './beside';
import { besideFigures, isCoTenant, isNodeUpsert, withCoTenant } from './beside';

/**
 * Another client of the same key (the company's backend, another workflow, another worker) spends
 * 40 (or 80) requests per window, evenly, from its own process, started with the node, while the
 * node upserts 300 customers: how many of the co-tenant's requests are refused, and how much of
 * what it leaves the node takes.
 */
export async function coTenant() {
	for (const perWindow of [40, 80]) {
		const variant = `${perWindow} per window`;
		if (!wanted(variant)) continue;
		const s = await repeated('coTenant', variant, async () => {
			const apiKey = await fresh({ enabled: true, limit: LIMIT, windowMs: WINDOW_MS });
			const job: CoTenantJob = { mode: 'spread', perWindow, windowMs: WINDOW_MS };
			const { result, seconds, report } = await withCoTenant(apiKey, job, async (tenant) => {
				tenant.go();
				const started = Date.now();
				const result = await upsertPeople(apiKey, 300, '2');
				const seconds = (Date.now() - started) / 1000;
				return { result, seconds, report: await tenant.stop() };
			});
			const beside = await besideFigures(WINDOW_MS, report);
			const log = beside.log.filter(isNodeUpsert);
			const nodeShare = windowShare(log) * LIMIT;
			return {
				seconds,
				cotenant_requests: report.sent,
				cotenant_refused_429: report.refused,
				cotenant_refused_share: report.refused / Math.max(1, report.sent),
				cotenant_refused_after_shown: beside.figures.cotenant_refused_after_shown,
				node_per_full_window: nodeShare,
				node_share_of_what_is_left: nodeShare / (LIMIT - perWindow),
				node_429_on_the_wire: log.filter((r) => r.status === 429).length,
				failed_items: failedOf(result, 300),
			};
		});
		row(
			`Co-tenant ${perWindow}/window + 300 upserts`,
			'Messaging CRM node',
			`co-tenant ${percent(s.cotenant_refused_share)} refused`,
			`node ${show(s.node_per_full_window)}/window (${percent(s.node_share_of_what_is_left)} of the rest)`,
			`${show(s.failed_items, 0)} failed`,
			`${show(s.seconds, 1, ' s')}`,
		);
	}
}

/**
 * Beside a co-tenant at the API's own 120 requests per 60 s (the company's backend, in a process
 * of its own, 40 requests per window), the node upserts 300 customers. Whether the node, pacing
 * itself from the API's headers, takes slots the co-tenant needs once the co-tenant has shown
 * itself (a request of its accepted): the co-tenant's refusals window by window, the node's
 * accepted requests window by window (the sandbox's windows, rebuilt from its log), and the node's
 * first to last accepted upsert against the fair-share minimum (180 s: 300 at 80 per window).
 * Rows: a co-tenant spreading its requests from 20 s before the node; a cron job (one request at
 * its start, 40 at once each minute) whose minute lands near the start, the middle or the end of
 * the server's window (the node's requests open the later windows), the node 1 s after it; one
 * spreading that joins 30 s into the node's run; one that stops 80 s into the node's run, and how
 * soon the node takes the whole window then.
 */
export async function coTenant60() {
	const windowMs = 60_000;
	const rows60: Array<{
		variant: string;
		job: CoTenantJob;
		/** When the node starts, in ms after the co-tenant (negative: before it). */
		nodeAfterMs: number;
	}> = [
		{
			variant: 'spread, from 20 s before the node',
			job: { mode: 'spread', perWindow: 40, windowMs },
			nodeAfterMs: 20_000,
		},
		...[2, 30, 57].map((phase) => ({
			variant: `burst at ${phase} s each minute, one request at its start, the node 1 s after`,
			job: {
				mode: 'burst' as const,
				perWindow: 40,
				windowMs,
				phaseMs: phase * 1000,
				startup: true,
			},
			nodeAfterMs: 1000,
		})),
		{
			variant: 'spread, joining 30 s after the node',
			job: { mode: 'spread', perWindow: 40, windowMs },
			nodeAfterMs: -30_000,
		},
		{
			variant: 'spread, from 20 s before the node to 80 s after its start',
			job: { mode: 'spread', perWindow: 40, windowMs, stopAfterMs: 100_000 },
			nodeAfterMs: 20_000,
		},
	];
	for (const { variant, job, nodeAfterMs } of rows60) {
		if (!wanted(variant)) continue;
		const stops = job.stopAfterMs !== undefined;
		const s = await repeated('coTenant60', variant, async (run) => {
			const apiKey = await fresh({ enabled: true, limit: LIMIT, windowMs });
			const { result, report } = await withCoTenant(apiKey, job, async (tenant) => {
				let joined: Promise<void> = Promise.resolve();
				if (nodeAfterMs >= 0) {
					tenant.go();
					await sleep(nodeAfterMs);
				} else joined = sleep(-nodeAfterMs).then(() => tenant.go());
				// A co-tenant that stops: enough work for the node to show the windows after it.
				const result = await upsertPeople(apiKey, stops ? 500 : 300, `1${run}`);
				await joined;
				return { result, report: await tenant.stop() };
			});
			const { log, windows, figures } = await besideFigures(windowMs, report);
			const common = { ...figures, failed_items: failedOf(result, stops ? 500 : 300) };
			if (!stops) return { ...common, ratio: figures.seconds / 180 };
			// Windows counted from the one the co-tenant's last request fell in (0).
			const lastAt = log.filter(isCoTenant).pop()?.at ?? -Infinity;
			const stopIndex = Math.max(0, windows.filter((w) => w.start <= lastAt).length - 1);
			const whole = windows.findIndex((w, i) => i >= stopIndex && w.node.accepted >= LIMIT - 2);
			return {
				...common,
				cotenant_stop_window: stopIndex,
				node_whole_window_after_stop: whole < 0 ? -1 : whole - stopIndex,
			};
		});
		row(
			'Co-tenant 40/window at 120 per 60 s, 300 upserts',
			variant,
			stops
				? `${show(s.seconds, 1, ' s')}, node ≥ 118 in window ${show(s.node_whole_window_after_stop, 0)} after the stop`
				: `${show(s.seconds, 1, ' s')}, ${show(s.ratio, 3)}× the fair-share minimum (180 s)`,
			`co-tenant ${show(s.cotenant_sent, 0)} sent, ${show(s.cotenant_refused, 0)} refused, ${show(s.cotenant_refused_after_shown, 0)} after the window it showed itself in`,
			`co-tenant refused per window ${lists('coTenant60', variant, 'cotenant_refused_per_window')}`,
			`node per window ${lists('coTenant60', variant, 'node_accepted_per_window')}`,
			`${show(s.failed_items, 0)} failed`,
		);
	}
}
