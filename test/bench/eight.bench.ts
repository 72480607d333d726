/** `npm run bench -- eight`. Eight processes of the node on one key, each its own pacer. */
import { perFullWindow } from '../harness/windows';
import {
	eightUpserting,
	fresh,
	percent,
	repeated,
	requestLog,
	row,
	show,
	stats,
	upsertFigures,
	wanted,
	WINDOW_MS,
} from './runner';

/**
 * Eight processes (eight pacers, as eight queue-mode workers) share the key at 30/6 s: 48 upserts
 * each, throughput over the full windows before the first of them ran out of work; 12 upserts each,
 * first to last accepted upsert against the minimum.
 */
export async function eightProcesses() {
	const manyVariant = '8 processes × 48 upserts, 30/6 s';
	if (wanted(manyVariant)) {
		const s = await repeated('eightProcesses', manyVariant, async (run) => {
			const apiKey = await fresh({ enabled: true, limit: 30, windowMs: WINDOW_MS });
			const figures = await eightUpserting(apiKey, 48, `5${run}`);
			const log = (await requestLog()).filter(
				(r) => r.method === 'POST' && r.path === '/customers',
			);
			const t0 = log[0]?.at ?? 0;
			const after = log.filter((r) => r.at >= t0 + WINDOW_MS);
			const st = await stats();
			return {
				failed_items: figures.reduce((a, f) => a + Number(f.failed), 0),
				requests_after_first_window: after.length,
				answered_429_after_first_window: after.filter((r) => r.status === 429).length,
				share_429_after_first_window:
					after.filter((r) => r.status === 429).length / Math.max(1, after.length),
				share_of_limit:
					perFullWindow(
						log.filter((r) => r.at <= Math.min(...figures.map((f) => Number(f.finished_at)))),
						WINDOW_MS,
					) / 30,
				duplicates: Math.max(0, st.customers - (st.distinctPhones as number)),
			};
		});
		row(
			'Eight processes, 384 upserts',
			'Messaging CRM node',
			`${percent(s.share_of_limit)} of limit`,
			`${percent(s.share_429_after_first_window)} 429 after window 1`,
			`${show(s.failed_items, 0)} failed`,
			`${show(s.duplicates, 0)} duplicates`,
			'',
		);
	}
	// A short shared run: 96 upserts need 4 windows, the last begun 18 s after the first.
	const fewVariant = '8 processes × 12 upserts, 30/6 s';
	if (!wanted(fewVariant)) return;
	const few = await repeated('eightProcesses', fewVariant, async (run) => {
		const apiKey = await fresh({ enabled: true, limit: 30, windowMs: WINDOW_MS });
		const figures = await eightUpserting(apiKey, 12, `4${run}`);
		const { seconds, share_429 } = await upsertFigures();
		return {
			seconds,
			ratio: seconds / 18,
			share_429,
			failed_items: figures.reduce((a, f) => a + Number(f.failed), 0),
		};
	});
	row(
		'Eight processes, 96 upserts at 30 per 6 s',
		'Messaging CRM node',
		`${show(few.seconds, 2, ' s')}, ${show(few.ratio, 3)}× the minimum (18 s)`,
		`${percent(few.share_429)} answered 429`,
		`${show(few.failed_items, 0)} failed`,
	);
}
