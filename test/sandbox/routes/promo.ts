import { ApiError, notFound, validation } from '../errors';
import { isUuid } from '../ids';
import { codeOut, poolOut, revoke, upload } from '../promoPools';
import { asBody, isoNow, messengerOut } from '../crm';
import type { Route } from '../server';
import type { PromoPoolRow, Store } from '../store';

function requirePool(store: Store, id: string): PromoPoolRow {
	const pool = store.promoPools.get(id);
	if (!pool) throw notFound('promo pool', id);
	return pool;
}

function intParam(
	query: URLSearchParams,
	name: string,
	fallback: number,
	min: number,
	max?: number,
): number {
	const raw = query.get(name);
	if (raw === null) return fallback;
	const n = Number(raw);
	if (!/^-?\d+$/.test(raw) || n < min || (max !== undefined && n > max)) {
		throw validation(
			`${name} must be a whole number ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}`,
			{ field: name },
		);
	}
	return n;
}

const PATCHABLE: Record<string, 'boolean' | 'string' | 'integer'> = {
	is_enabled: 'boolean',
	title: 'string',
	description: 'string',
	low_threshold_pct: 'integer',
	low_threshold_min: 'integer',
	strict_follow_gate: 'boolean',
	exhausted_instruction: 'string',
};

export const promoRoutes: Route[] = [
	{
		method: 'GET',
		path: '/promo-codes/:code',
		scope: 'promo:read',
		handler: ({ store, params }) => {
			const code = params.code;
			if (!code.trim() || code.length > 255)
				throw validation('code must be 1 to 255 characters', { field: 'code' });
			for (const pool of store.promoPools.values()) {
				const row = pool.byCode.get(code);
				if (!row?.customer_id) continue;
				const customer = store.customers.get(row.customer_id);
				return {
					status: 200,
					body: {
						code: row.code,
						pool_id: pool.id,
						pool_title: pool.title,
						customer_id: row.customer_id,
						customer_name: customer?.full_name ?? null,
						messengers: (customer?.messengers ?? []).map(messengerOut),
						reserved_at: row.reserved_at,
						issued_at: row.issued_at,
						revoked_at: row.revoked_at,
					},
				};
			}
			throw new ApiError(404, 'not_found', `No issued code "${code}" in any pool`, {
				resource: 'promo code',
				code,
			});
		},
	},
	{
		method: 'GET',
		path: '/promo-pools',
		scope: 'promo:read',
		handler: ({ store, query }) => {
			const agentId = query.get('agent_id');
			if (agentId !== null && !isUuid(agentId))
				throw validation('agent_id must be a UUID', { field: 'agent_id' });
			return {
				status: 200,
				body: {
					pools: [...store.promoPools.values()]
						.filter((p) => !agentId || p.agent_id === agentId)
						.map(poolOut),
				},
			};
		},
	},
	{
		method: 'GET',
		path: '/promo-pools/:pool_id',
		scope: 'promo:read',
		uuidParams: ['pool_id'],
		handler: ({ store, params }) => ({
			status: 200,
			body: poolOut(requirePool(store, params.pool_id)),
		}),
	},
	{
		method: 'PATCH',
		path: '/promo-pools/:pool_id',
		scope: 'promo:write',
		uuidParams: ['pool_id'],
		handler: ({ store, params, body }) => {
			const pool = requirePool(store, params.pool_id);
			const b = asBody(body);
			for (const [field, value] of Object.entries(b)) {
				const kind = PATCHABLE[field];
				if (!kind)
					throw validation(
						`${field} cannot be set${['total', 'issued', 'remaining'].includes(field) ? ': counters are counted from the codes' : ''}`,
						{ field },
					);
				if (value === null) continue;
				const ok =
					kind === 'boolean'
						? typeof value === 'boolean'
						: kind === 'string'
							? typeof value === 'string'
							: Number.isInteger(value);
				if (!ok)
					throw validation(
						`${field} must be ${kind === 'integer' ? 'a whole number' : `a ${kind}`}`,
						{ field },
					);
				if (field === 'low_threshold_pct' && ((value as number) < 0 || (value as number) > 100))
					throw validation('low_threshold_pct must be 0 to 100', { field });
				if (field === 'low_threshold_min' && (value as number) < 0)
					throw validation('low_threshold_min must be at least 0', { field });
				if (field === 'title' && !(value as string).trim())
					throw validation('title must not be empty', { field });
			}
			for (const [field, value] of Object.entries(b)) {
				if (value !== null) (pool as unknown as Record<string, unknown>)[field] = value;
				else if (field === 'description' || field === 'exhausted_instruction')
					(pool as unknown as Record<string, unknown>)[field] = null;
			}
			return { status: 200, body: poolOut(pool) };
		},
	},
	{
		method: 'GET',
		path: '/promo-pools/:pool_id/codes',
		scope: 'promo:read',
		uuidParams: ['pool_id'],
		handler: ({ store, params, query }) => {
			const pool = requirePool(store, params.pool_id);
			const limit = intParam(query, 'limit', 100, 1, 500);
			const offset = intParam(query, 'offset', 0, 0);
			const issuedOnlyRaw = query.get('issued_only');
			if (issuedOnlyRaw !== null && !['true', 'false'].includes(issuedOnlyRaw))
				throw validation('issued_only must be true or false', { field: 'issued_only' });
			const issuedOnly = issuedOnlyRaw === 'true';
			const search = query.get('search');
			const out = [];
			let skipped = 0;
			for (const row of pool.rows) {
				if (issuedOnly && (!row.issued_at || row.revoked_at)) continue;
				if (search && !row.code.toLowerCase().includes(search.toLowerCase())) continue;
				if (skipped < offset) {
					skipped++;
					continue;
				}
				out.push(codeOut(row));
				if (out.length === limit) break;
			}
			return { status: 200, body: { codes: out } };
		},
	},
	{
		method: 'POST',
		path: '/promo-pools/:pool_id/codes',
		scope: 'promo:write',
		uuidParams: ['pool_id'],
		handler: ({ store, params, body }) => ({
			status: 200,
			body: upload(requirePool(store, params.pool_id), body),
		}),
	},
	{
		method: 'POST',
		path: '/promo-pools/:pool_id/codes/revoke',
		scope: 'promo:write',
		uuidParams: ['pool_id'],
		handler: ({ store, params, body, sandbox }) => ({
			status: 200,
			body: revoke(requirePool(store, params.pool_id), body, isoNow(sandbox.now())),
		}),
	},
];
