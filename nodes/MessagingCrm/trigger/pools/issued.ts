/** Code Issued to a Customer: each watched pool's issued codes, read on from where the last poll stopped. */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { CODES_PAGE_MAX } from '../../helpers/bounds';
import { issuedCodes, lastIssuedCode } from '../../shared/reads';
import type { Emitted } from '../state';
import type { IssuedProgress, PoolSnapshot } from './state';
import { issuedNeedsRead, readIssuedPage } from './state';

/**
 * Each pool's codes issued since its progress mark, page by page in queue order, within `budget`
 * requests (what does not fit is read on by the next poll: nothing is skipped). A pool without a
 * mark is baselined at its last issued code (one request).
 */
export async function readIssuedCodes(
	ctx: IPollFunctions,
	pools: IDataObject[],
	before: Record<string, PoolSnapshot> | undefined,
	marks: Record<string, IssuedProgress> | undefined,
	budget: number,
): Promise<{ progress: Record<string, IssuedProgress>; events: Emitted[]; requests: number }> {
	const next: Record<string, IssuedProgress> = {};
	const events: Emitted[] = [];
	let requests = 0;
	for (const pool of pools) {
		const id = String(pool.id);
		const mark = marks?.[id];
		if (!mark) {
			// The baseline of a pool: its last issued code now, read whatever the budget (once per
			// pool), so that no code issued after it can be missed.
			const issued = Number(pool.issued) || 0;
			if (issued === 0) next[id] = { position: -1, index: 0 };
			else {
				const last = await lastIssuedCode(ctx, id, issued);
				requests++;
				next[id] = { position: Number(last?.position ?? -1), index: issued };
			}
			continue;
		}
		if (!issuedNeedsRead(before?.[id], pool, mark)) {
			next[id] = mark;
			continue;
		}
		if (requests >= budget) {
			// No request left this poll: the mark stays, and the next poll reads on.
			next[id] = { ...mark, behind: true };
			continue;
		}
		let offset = Math.max(0, mark.index - 1);
		let position = mark.position;
		let first = true;
		let done = false;
		while (!done && requests < budget) {
			const page = await issuedCodes(ctx, id, offset, CODES_PAGE_MAX);
			requests++;
			const read = readIssuedPage({ ...mark, position }, offset, page, first);
			if (read.stepBack) {
				offset = Math.max(0, offset - CODES_PAGE_MAX);
				continue;
			}
			first = false;
			for (const code of read.fresh)
				events.push({
					event: 'codeIssuedToCustomer',
					code: code.code,
					customer_id: code.customer_id ?? null,
					issued_at: code.issued_at ?? null,
					position: code.position,
					pool,
				});
			if (read.fresh.length) position = Number(read.fresh[read.fresh.length - 1].position);
			offset += page.length;
			done = read.done;
		}
		next[id] = { position, index: offset, ...(done ? {} : { behind: true }) };
	}
	return { progress: next, events, requests };
}
