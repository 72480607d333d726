/** Promo-code pools: the queue, counters, thresholds and alerts of the spec. */
import { validation } from './errors';
import { newId } from './ids';
import type { PromoCodeRow, PromoPoolRow, Store } from './store';

export const MAX_UPLOAD = 10_000;
export const MAX_CODE_LENGTH = 255;

export function createPool(
	store: Store,
	fields: Partial<PromoPoolRow> & { agent_id: string; title: string },
	at: string,
): PromoPoolRow {
	const pool: PromoPoolRow = {
		id: newId(),
		description: null,
		is_enabled: true,
		low_threshold_pct: 10,
		low_threshold_min: 5,
		strict_follow_gate: false,
		exhausted_instruction: null,
		low_alert_sent_at: null,
		empty_alert_sent_at: null,
		exhausted_requests: 0,
		code_word_titles: [],
		created_at: at,
		rows: [],
		byCode: new Map(),
		nextPosition: 1,
		...fields,
	};
	store.promoPools.set(pool.id, pool);
	return pool;
}

/** Counters are counted from the rows: revoked rows are history, not stock. */
export function counters(pool: PromoPoolRow) {
	let total = 0;
	let issued = 0;
	for (const row of pool.rows) {
		if (row.revoked_at) continue;
		total++;
		if (row.issued_at) issued++;
	}
	return { total, issued, remaining: total - issued };
}

/** low_threshold = max(low_threshold_min, ceil(total × low_threshold_pct / 100)). */
export function lowThreshold(pool: PromoPoolRow, total: number): number {
	return Math.max(pool.low_threshold_min, Math.ceil((total * pool.low_threshold_pct) / 100));
}

export function poolOut(pool: PromoPoolRow) {
	const c = counters(pool);
	return {
		id: pool.id,
		agent_id: pool.agent_id,
		title: pool.title,
		description: pool.description,
		is_enabled: pool.is_enabled,
		total: c.total,
		issued: c.issued,
		remaining: c.remaining,
		low_threshold: lowThreshold(pool, c.total),
		low_alert_sent_at: pool.low_alert_sent_at,
		empty_alert_sent_at: pool.empty_alert_sent_at,
		exhausted_requests: pool.exhausted_requests,
		code_word_titles: [...pool.code_word_titles],
		created_at: pool.created_at,
	};
}

export function codeOut(row: PromoCodeRow) {
	return {
		code: row.code,
		position: row.position,
		customer_id: row.customer_id,
		reserved_at: row.reserved_at,
		issued_at: row.issued_at,
		revoked_at: row.revoked_at,
	};
}

function readCodes(body: unknown, max?: number): string[] {
	const codes = (body as { codes?: unknown } | null)?.codes;
	if (!Array.isArray(codes))
		throw validation('codes is required: an array of strings', { field: 'codes' });
	if (max !== undefined && codes.length > max)
		throw validation(`At most ${max} codes per upload, got ${codes.length}`, {
			field: 'codes',
			max,
		});
	codes.forEach((code, i) => {
		if (typeof code !== 'string' || code.trim() === '' || code.length > MAX_CODE_LENGTH) {
			throw validation(
				`codes[${i}] must be a non-empty string of at most ${MAX_CODE_LENGTH} characters`,
				{ field: `codes[${i}]` },
			);
		}
	});
	return codes as string[];
}

/** Re-arms the alerts once the remaining count is above the threshold again. */
function clearAlertsIfRestocked(pool: PromoPoolRow): void {
	const c = counters(pool);
	if (c.remaining > lowThreshold(pool, c.total)) {
		pool.low_alert_sent_at = null;
		pool.empty_alert_sent_at = null;
	}
}

export function upload(pool: PromoPoolRow, body: unknown) {
	const codes = readCodes(body, MAX_UPLOAD);
	const seen = new Set<string>();
	let accepted = 0;
	let duplicatesInInput = 0;
	let alreadyInPool = 0;
	for (const code of codes) {
		if (seen.has(code)) {
			duplicatesInInput++;
			continue;
		}
		seen.add(code);
		const existing = pool.byCode.get(code);
		if (existing && !(existing.revoked_at && !existing.issued_at)) {
			alreadyInPool++;
			continue;
		}
		if (existing) {
			// A revoked code that was never issued returns to circulation, at the tail of the queue.
			existing.revoked_at = null;
			existing.position = pool.nextPosition++;
			pool.rows.splice(pool.rows.indexOf(existing), 1);
			pool.rows.push(existing);
		} else {
			const row: PromoCodeRow = {
				pool_id: pool.id,
				code,
				position: pool.nextPosition++,
				customer_id: null,
				reserved_at: null,
				issued_at: null,
				revoked_at: null,
				moved_from: null,
			};
			pool.rows.push(row);
			pool.byCode.set(code, row);
		}
		accepted++;
	}
	clearAlertsIfRestocked(pool);
	const c = counters(pool);
	return {
		accepted,
		duplicates_in_input: duplicatesInInput,
		already_in_pool: alreadyInPool,
		total: c.total,
		remaining: c.remaining,
	};
}

export function revoke(pool: PromoPoolRow, body: unknown, at: string) {
	const codes = readCodes(body);
	let revoked = 0;
	let issuedRevoked = 0;
	let alreadyRevoked = 0;
	const notFound: string[] = [];
	for (const code of new Set(codes)) {
		const row = pool.byCode.get(code);
		if (!row) notFound.push(code);
		else if (row.revoked_at) alreadyRevoked++;
		else {
			row.revoked_at = at;
			revoked++;
			if (row.issued_at) issuedRevoked++;
		}
	}
	const c = counters(pool);
	return {
		revoked,
		issued_revoked: issuedRevoked,
		already_revoked: alreadyRevoked,
		total: c.total,
		remaining: c.remaining,
		not_found: notFound,
	};
}

/**
 * A customer asks the agent for a code: the next queued code is issued (earlier uploads first),
 * one code per customer per pool; an empty pool counts an exhausted request; a disabled pool
 * issues nothing.
 */
export function issue(
	pool: PromoPoolRow,
	customerId: string,
	at: string,
): { code: string | null; outcome: 'issued' | 'already_had' | 'exhausted' | 'disabled' } {
	if (!pool.is_enabled) return { code: null, outcome: 'disabled' };
	const had = pool.rows.find((r) => r.customer_id === customerId && !r.revoked_at);
	if (had) return { code: had.code, outcome: 'already_had' };
	const next = pool.rows.find((r) => !r.issued_at && !r.revoked_at);
	if (!next) {
		pool.exhausted_requests++;
		pool.empty_alert_sent_at ??= at;
		return { code: null, outcome: 'exhausted' };
	}
	next.customer_id = customerId;
	next.reserved_at = at;
	next.issued_at = at;
	const c = counters(pool);
	if (c.remaining <= lowThreshold(pool, c.total)) pool.low_alert_sent_at ??= at;
	if (c.remaining === 0) pool.empty_alert_sent_at ??= at;
	return { code: next.code, outcome: 'issued' };
}
