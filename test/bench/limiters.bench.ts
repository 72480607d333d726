/**
 * `npm run bench -- skew`, `tail` and `limiters`. Servers that write their reset otherwise, a lone
 * tail, and limiters that free slots one at a time.
 */
import { runNode } from '../harness/engine';
import type { Json, Log } from './runner';
import {
	BASE,
	eightUpserting,
	failedOf,
	fresh,
	people,
	percent,
	repeated,
	requestLog,
	row,
	show,
	strictWindow,
	UPSERT,
	upsertFigures,
	upsertPeople,
	wanted,
	WINDOW_MS,
} from './runner';
import type { CoTenantJob } from './beside';
import { besideFigures, withCoTenant } from './beside';

/** Seconds from the first to the last accepted upsert, and the physical minimum for `count`. */
export function span(log: Log, count: number, limit: number, windowMs: number) {
	const ok = log.filter((r) => r.method === 'POST' && r.status < 400);
	const seconds = ok.length ? (ok[ok.length - 1].at - ok[0].at) / 1000 : 0;
	const minimum = (Math.floor((count - 1) / limit) * windowMs) / 1000;
	return { seconds, ratio: seconds / minimum };
}

/**
 * A server whose reset hint is early or rounded, with no Retry-After (30 per 6 s, 90 upserts):
 * what is lost, what answers 429 on the wire.
 */
export async function skewedReset() {
	const variants: Array<[string, Json]> = [
		[
			'epoch reset 1 s behind, Date on the host clock',
			{ resetFormat: 'epoch', clockBehindSeconds: 1 },
		],
		[
			'epoch reset 2 s behind, Date on the host clock',
			{ resetFormat: 'epoch', clockBehindSeconds: 2 },
		],
		[
			'epoch reset 2 s behind, matching Date',
			{ resetFormat: 'epoch', clockBehindSeconds: 2, dateHeader: 'server' },
		],
		['truncated epoch reset, no Date', { resetFormat: 'epoch-floor', dateHeader: 'none' }],
		['seconds until reset, rounded down', { resetFormat: 'seconds-floor' }],
	];
	for (const [label, variant] of variants) {
		const s = await repeated('skewedReset', label, async () => {
			const apiKey = await strictWindow(variant);
			const result = await upsertPeople(apiKey, 90, '3');
			const log = await requestLog();
			return {
				failed_items: failedOf(result, 90),
				responses_429: log.filter((r) => r.status === 429).length,
				seconds: span(log, 90, 30, WINDOW_MS).seconds,
			};
		});
		row(
			'Skewed reset, 90 upserts, 30/6 s',
			label,
			`${show(s.failed_items, 0)} lost`,
			`${show(s.responses_429, 0)} answered 429`,
			'',
			'',
			`${show(s.seconds, 1, ' s')}`,
		);
	}
}

/** Alone on the key: the tail of a run is not spread (first to last request, against the minimum). */
export async function loneTail() {
	const variants: Array<[string, number, number, number, string]> = [
		['60 s window, 120/60 s, 300 upserts', 120, 60_000, 300, 'seconds'],
		['6 s window, 30/6 s, 75 upserts', 30, WINDOW_MS, 75, 'seconds'],
		['6 s window, whole seconds rounded down', 30, WINDOW_MS, 75, 'seconds-floor'],
		['6 s window, whole seconds rounded up', 30, WINDOW_MS, 75, 'seconds-ceil'],
		['6 s window, epoch seconds', 30, WINDOW_MS, 75, 'epoch'],
	];
	for (const [label, limit, windowMs, count, resetFormat] of variants) {
		const s = await repeated('loneTail', label, async () => {
			const apiKey = await fresh({ enabled: true, limit, windowMs, resetFormat });
			const result = await runNode({
				parameters: UPSERT,
				credentials: { baseUrl: BASE, apiKey },
				items: people(count, '4'),
				continueOnFail: true,
			});
			const log = await requestLog();
			return { ...span(log, count, limit, windowMs), failed_items: failedOf(result, count) };
		});
		row(
			'Alone, first to last request',
			label,
			`${show(s.seconds, 1, ' s')}`,
			`${show(s.ratio, 3)}× the minimum`,
			`${show(s.failed_items, 0)} failed`,
			'',
			'',
		);
	}
}

/**
 * Limiters the API may be: first contact refused (the key spent before the run), a
 * reset in epoch milliseconds, a sliding log, and the tail of a shared run at the API's own 60 s
 * window (eight processes; beside a co-tenant). The first rows send no Retry-After; the shared-tail
 * rows send it, as the sandbox does by default.
 */
export async function limiters() {
	const firstVariant = 'first contact refused, 5 per 4 s';
	if (wanted(firstVariant)) {
		const first = await repeated('limiters', firstVariant, async () => {
			const apiKey = await fresh({ enabled: true, limit: 5, windowMs: 4000, retryAfter: false });
			// Another client spends the key's window, as a second workflow or worker would.
			for (let i = 0; i < 5; i++)
				await fetch(`${BASE}/agents`, { headers: { Authorization: `Bearer ${apiKey}` } });
			const spentAt = (await requestLog())[0].at;
			const result = await upsertPeople(apiKey, 24, '6');
			const { log } = await upsertFigures();
			return {
				requests_before_the_reset: log.filter((r) => r.at < spentAt + 4000).length,
				responses_429: log.filter((r) => r.status === 429).length,
				failed_items: failedOf(result, 24),
			};
		});
		row(
			'First contact refused: key spent before the run, 24 upserts at 5 per 4 s',
			'Messaging CRM node',
			`${show(first.requests_before_the_reset, 0)} request(s) before the reset`,
			`${show(first.responses_429, 0)} answered 429`,
			`${show(first.failed_items, 0)} failed`,
		);
	}
	const alone: Array<[string, Json]> = [
		['Reset in epoch milliseconds', { resetFormat: 'epoch-ms' }],
		[
			'Sliding log, reset in whole seconds rounded down',
			{ limiter: 'sliding', resetFormat: 'seconds-floor' },
		],
		['Sliding log, reset to the millisecond', { limiter: 'sliding' }],
	];
	for (const [label, variant] of alone) {
		if (!wanted(label)) continue;
		const s = await repeated('limiters', label, async () => {
			const apiKey = await strictWindow(variant);
			const result = await upsertPeople(apiKey, 75, '7');
			const { seconds, share_429 } = await upsertFigures();
			return { seconds, ratio: seconds / 12, share_429, failed_items: failedOf(result, 75) };
		});
		row(
			`${label}, 75 upserts at 30 per 6 s`,
			'Messaging CRM node',
			`${show(s.seconds, 2, ' s')}, ${show(s.ratio, 3)}× the minimum (12 s)`,
			`${percent(s.share_429)} answered 429`,
			`${show(s.failed_items, 0)} failed`,
		);
	}
	const tailVariant = 'eight processes, 296 upserts at 120 per 60 s';
	if (wanted(tailVariant)) {
		const tail = await repeated('limiters', tailVariant, async (run) => {
			const apiKey = await fresh({ enabled: true, limit: 120, windowMs: 60_000 });
			const figures = await eightUpserting(apiKey, 37, `8${run}`);
			const { seconds, share_429 } = await upsertFigures();
			const failed_items = figures.reduce((a, f) => a + Number(f.failed), 0);
			return { seconds, ratio: seconds / 120, share_429, failed_items };
		});
		row(
			'Shared tail: eight processes, 296 upserts at 120 per 60 s',
			'Messaging CRM node',
			`${show(tail.seconds, 1, ' s')}, ${show(tail.ratio, 3)}× the minimum (120 s)`,
			`${percent(tail.share_429)} answered 429`,
			`${show(tail.failed_items, 0)} failed`,
		);
	}
	const besideVariant = 'co-tenant 40 per 60 s, 300 upserts';
	if (!wanted(besideVariant)) return;
	const beside = await repeated('limiters', besideVariant, async () => {
		const apiKey = await fresh({ enabled: true, limit: 120, windowMs: 60_000 });
		const job: CoTenantJob = { mode: 'spread', perWindow: 40, windowMs: 60_000 };
		const { result, report } = await withCoTenant(apiKey, job, async (tenant) => {
			tenant.go();
			const result = await upsertPeople(apiKey, 300, '9');
			return { result, report: await tenant.stop() };
		});
		const { figures } = await besideFigures(60_000, report);
		return {
			seconds: figures.seconds,
			ratio: figures.seconds / 180,
			cotenant_refused_share: report.refused / Math.max(1, report.sent),
			cotenant_refused_after_shown: figures.cotenant_refused_after_shown,
			failed_items: failedOf(result, 300),
		};
	});
	row(
		'Shared tail: co-tenant at 40 per 60 s, 300 upserts at 120 per 60 s',
		'Messaging CRM node',
		`${show(beside.seconds, 1, ' s')}, ${show(beside.ratio, 3)}× the fair-share minimum (180 s)`,
		`co-tenant ${percent(beside.cotenant_refused_share)} refused`,
		`${show(beside.failed_items, 0)} failed`,
	);
}
