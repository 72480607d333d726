import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { dedupe, MAX_CODES_PER_UPLOAD } from '../../helpers/codeLists';
import { chunk } from '../../helpers/lists';
import { invalidInput } from '../../helpers/validate';
import { apiRequest } from '../../transport/request';
import { codesOfItem } from '../../shared/codesInput';
import { resolvePoolId } from '../../shared/pool';
import type { Grouping } from '../node.type';
import { paths } from '../../transport/paths';

export type BulkKind = 'upload' | 'revoke';

const UPLOAD_TOTALS = ['accepted', 'duplicates_in_input', 'already_in_pool'];
const REVOKE_TOTALS = ['revoked', 'issued_revoked', 'already_revoked'];

/**
 * Sends codes to a pool in chunks of at most 10,000 and adds the answers up. Repeats within the
 * list are removed first (and counted as duplicates in the input), so a code never travels twice.
 */
export async function sendCodes(
	ctx: IExecuteFunctions,
	itemIndex: number,
	poolId: string,
	codes: string[],
	kind: BulkKind,
): Promise<IDataObject> {
	if (codes.length === 0) {
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			'Codes',
			'has no codes after blanks and empty lines were dropped',
			'Give at least one code.',
		);
	}
	const { unique, duplicates } = dedupe(codes);
	const totals: IDataObject = { pool_id: poolId, codes_received: codes.length };
	for (const key of kind === 'upload' ? UPLOAD_TOTALS : REVOKE_TOTALS) totals[key] = 0;
	totals.duplicates_in_input = duplicates;
	const notFound: string[] = [];
	let requests = 0;
	for (const part of chunk(unique, MAX_CODES_PER_UPLOAD)) {
		const { body } = await apiRequest<IDataObject>(ctx, {
			method: 'POST',
			path: paths.pool(poolId, kind === 'upload' ? '/codes' : '/codes/revoke'),
			body: { codes: part },
			// Both are safe to repeat: a repeated upload accepts 0, a repeated revoke counts already_revoked.
			idempotent: true,
			scope: 'promo:write',
			itemIndex,
		});
		requests++;
		for (const key of kind === 'upload' ? UPLOAD_TOTALS : REVOKE_TOTALS)
			totals[key] = (totals[key] as number) + Number(body[key] ?? 0);
		if (Array.isArray(body.not_found)) notFound.push(...(body.not_found as string[]));
		totals.total = body.total;
		totals.remaining = body.remaining;
	}
	if (kind === 'revoke') totals.not_found = notFound;
	totals.requests = requests;
	return totals;
}

/** One input item: its own codes, its own pool. */
export async function bulkForItem(
	ctx: IExecuteFunctions,
	itemIndex: number,
	kind: BulkKind,
): Promise<IDataObject[]> {
	const poolId = resolvePoolId(ctx, itemIndex);
	const codes = await codesOfItem(ctx, itemIndex);
	return [await sendCodes(ctx, itemIndex, poolId, codes, kind)];
}

/**
 * "Field of Every Input Item": the codes of all items go to their pool together (one upload in
 * chunks, not one request per item), grouped by pool. An item whose field is unusable fails alone;
 * the router owns the loop, the pairing and the error items.
 */
export function bulkGrouping(kind: BulkKind): Grouping<string[]> {
	return {
		applies(this: IExecuteFunctions) {
			return this.getNodeParameter('codesFrom', 0, 'list') === 'field';
		},
		async prepare(this: IExecuteFunctions, itemIndex: number) {
			return { key: resolvePoolId(this, itemIndex), part: await codesOfItem(this, itemIndex) };
		},
		async run(this: IExecuteFunctions, poolId: string, parts: string[][], itemIndexes: number[]) {
			return [
				{
					...(await sendCodes(this, itemIndexes[0], poolId, parts.flat(), kind)),
					items: itemIndexes.length,
				},
			];
		},
	};
}
