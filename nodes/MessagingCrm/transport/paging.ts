import type { IDataObject } from 'n8n-workflow';

import type { ApiContext, ApiRequest } from './request';
import { apiRequest } from './request';

/**
 * Offset paging, as the API's code list does it: pages of `pageSize` (`limit` and `offset` in the
 * query) until a short page or until `limit` items are in. The list gives no total, so the end is
 * known only from a short (possibly empty) page.
 */
export async function pagesByOffset(
	ctx: ApiContext,
	request: Omit<ApiRequest, 'method'>,
	options: {
		pageSize: number;
		limit: number;
		items: (body: IDataObject) => IDataObject[] | undefined;
	},
): Promise<IDataObject[]> {
	const out: IDataObject[] = [];
	for (let offset = 0; out.length < options.limit;) {
		const pageSize = Math.min(options.pageSize, options.limit - out.length);
		const { body } = await apiRequest<IDataObject>(ctx, {
			...request,
			method: 'GET',
			query: { ...request.query, limit: pageSize, offset },
		});
		const page = options.items(body) ?? [];
		out.push(...page);
		if (page.length < pageSize) break;
		offset += page.length;
	}
	return out;
}
