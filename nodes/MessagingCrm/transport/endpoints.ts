/**
 * The API's paths and the reads (and the one chunked write) that actions, the trigger and the
 * dropdowns share: each written once here, so they ask the API the same way everywhere.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Agent, Pipeline } from '../helpers/types';
import { pathSegment } from '../helpers/url';
import type { RateLimitReading } from './rateLimit';
import type { ApiContext } from './request';
import { apiRequest } from './request';

/** Paths relative to the base URL; every value is one encoded segment that cannot bend the path. */
export const paths = {
	customer: (id: string, suffix = '') => `/customers/${pathSegment(id)}${suffix}`,
	deal: (id: string, suffix = '') => `/deals/${pathSegment(id)}${suffix}`,
	pool: (id: string, suffix = '') => `/promo-pools/${pathSegment(id)}${suffix}`,
	promoCode: (code: string) => `/promo-codes/${pathSegment(code)}`,
};

/** A deal that is won or lost; any other status is active. */
export function isClosed(deal: IDataObject): boolean {
	return deal.status === 'won' || deal.status === 'lost';
}

/** How the lookup names a customer: exactly one of phone, email or a messenger identity. */
export type LookupQuery =
	{ messenger_type: string; messenger_id: string } | { phone: string } | { email: string };

/** GET /customers/lookup; null when nobody matches (the API answers 404). */
export async function lookupCustomer(
	ctx: ApiContext,
	query: LookupQuery,
	itemIndex?: number,
): Promise<IDataObject | null> {
	const { status, body } = await apiRequest<IDataObject>(ctx, {
		method: 'GET',
		path: '/customers/lookup',
		query: query as unknown as IDataObject,
		scope: 'customers:read',
		acceptStatus: [404],
		itemIndex,
	});
	return status === 404 ? null : body;
}

/** GET /agents: every agent of the company with its messengers. */
export async function listAgents(ctx: ApiContext, itemIndex?: number): Promise<Agent[]> {
	const { body } = await apiRequest<Agent[]>(ctx, {
		method: 'GET',
		path: '/agents',
		scope: 'agents:read',
		itemIndex,
	});
	return Array.isArray(body) ? body : [];
}

/** GET /pipelines with their stages, optionally of one agent. */
export async function listPipelines(
	ctx: ApiContext,
	options: { agentId?: string; itemIndex?: number } = {},
): Promise<Pipeline[]> {
	const { body } = await apiRequest<Pipeline[]>(ctx, {
		method: 'GET',
		path: '/pipelines',
		query: { agent_id: options.agentId || undefined },
		scope: 'pipelines:read',
		itemIndex: options.itemIndex,
	});
	return Array.isArray(body) ? body : [];
}

/** GET /promo-pools, optionally of one agent, with the rate-limit reading of the answer. */
export async function listPools(
	ctx: ApiContext,
	options: { agentId?: string; itemIndex?: number } = {},
): Promise<{ pools: IDataObject[]; rateLimit: RateLimitReading }> {
	const { body, rateLimit } = await apiRequest<{ pools?: IDataObject[] }>(ctx, {
		method: 'GET',
		path: '/promo-pools',
		query: { agent_id: options.agentId || undefined },
		scope: 'promo:read',
		itemIndex: options.itemIndex,
	});
	return { pools: body.pools ?? [], rateLimit };
}

/** GET /customers/{id}/deals, optionally in one pipeline, with the rate-limit reading of the answer. */
export async function customerDeals(
	ctx: ApiContext,
	customerId: string,
	options: { pipelineId?: string; itemIndex?: number } = {},
): Promise<{ deals: IDataObject[]; rateLimit: RateLimitReading }> {
	const { body, rateLimit } = await apiRequest<{ deals?: IDataObject[] }>(ctx, {
		method: 'GET',
		path: paths.customer(customerId, '/deals'),
		query: { pipeline_id: options.pipelineId || undefined },
		scope: 'customers:read',
		itemIndex: options.itemIndex,
	});
	return { deals: body.deals ?? [], rateLimit };
}

/** GET /bizchat/templates, optionally of one agent: every status. */
export async function listTemplates(
	ctx: ApiContext,
	options: { agentId?: string; itemIndex?: number } = {},
): Promise<IDataObject[]> {
	const { body } = await apiRequest<{ templates?: IDataObject[] }>(ctx, {
		method: 'GET',
		path: '/bizchat/templates',
		query: { agent_id: options.agentId || undefined },
		scope: ['messages:template', 'agents:read'],
		itemIndex: options.itemIndex,
	});
	return body.templates ?? [];
}

/** GET /customers/{id}/messengers: each with its 24-hour window fields. */
export async function customerMessengers(
	ctx: ApiContext,
	customerId: string,
	itemIndex?: number,
): Promise<IDataObject[]> {
	const { body } = await apiRequest<{ messengers?: IDataObject[] }>(ctx, {
		method: 'GET',
		path: paths.customer(customerId, '/messengers'),
		scope: 'customers:read',
		itemIndex,
	});
	return body.messengers ?? [];
}

/** The API takes at most this many variables in one call. */
export const MAX_VARIABLES_PER_CALL = 50;

/** Splits a variables map into requests of at most 50, in order. */
export function chunkVariables(variables: IDataObject): IDataObject[] {
	const entries = Object.entries(variables);
	const chunks: IDataObject[] = [];
	for (let i = 0; i < entries.length; i += MAX_VARIABLES_PER_CALL) {
		chunks.push(Object.fromEntries(entries.slice(i, i + MAX_VARIABLES_PER_CALL)));
	}
	return chunks;
}

/**
 * PATCH …/variables once per chunk, in order (safe to repeat: the same PATCH gives the same state).
 * Returns the variables after the last call: the final state; empty when there was nothing to send.
 */
export async function patchVariables(
	ctx: ApiContext,
	path: string,
	chunks: IDataObject[],
	itemIndex?: number,
): Promise<IDataObject[]> {
	let latest: IDataObject[] = [];
	for (const chunk of chunks) {
		const { body } = await apiRequest<{ variables?: IDataObject[] }>(ctx, {
			method: 'PATCH',
			path,
			body: { variables: chunk },
			idempotent: true,
			scope: 'customers:write',
			itemIndex,
		});
		latest = body.variables ?? [];
	}
	return latest;
}
