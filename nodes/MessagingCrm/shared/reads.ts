/**
 * The reads that actions, the trigger and the dropdowns share: each written once here, so they ask
 * the API the same way everywhere. (The one shared write, variables in chunks, is in variables.ts.)
 */
import type { IDataObject } from 'n8n-workflow';

import type { Agent, Pipeline } from '../helpers/apiShapes';
import { paths } from '../transport/paths';
import type { RateLimitReading } from '../transport/rateHeaders';
import type { ApiContext } from '../transport/request';
import { apiRequest } from '../transport/request';

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
		path: paths.customerLookup(),
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
		path: paths.agents(),
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
		path: paths.pipelines(),
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
		path: paths.pools(),
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
		path: paths.templates(),
		query: { agent_id: options.agentId || undefined },
		scope: ['messages:template', 'agents:read'],
		itemIndex: options.itemIndex,
	});
	return body.templates ?? [];
}

/**
 * GET /customers/{id}/messengers: each with its 24-hour window fields, and the answer's rate-limit
 * reading, whose `serverDate` is the server's clock (the trigger's window events are timed by it).
 */
export async function customerWindows(
	ctx: ApiContext,
	customerId: string,
	itemIndex?: number,
): Promise<{ messengers: IDataObject[]; rateLimit: RateLimitReading }> {
	const { body, rateLimit } = await apiRequest<{ messengers?: IDataObject[] }>(ctx, {
		method: 'GET',
		path: paths.customer(customerId, '/messengers'),
		scope: 'customers:read',
		itemIndex,
	});
	return { messengers: body.messengers ?? [], rateLimit };
}

/** GET /customers/{id}/messengers: each with its 24-hour window fields. */
export async function customerMessengers(
	ctx: ApiContext,
	customerId: string,
	itemIndex?: number,
): Promise<IDataObject[]> {
	return (await customerWindows(ctx, customerId, itemIndex)).messengers;
}

/** One page of a pool's issued codes (GET /promo-pools/{id}/codes?issued_only=true), in queue order. */
export async function issuedCodes(
	ctx: ApiContext,
	poolId: string,
	offset: number,
	limit: number,
): Promise<IDataObject[]> {
	const { body } = await apiRequest<{ codes?: IDataObject[] }>(ctx, {
		method: 'GET',
		path: paths.pool(poolId, '/codes'),
		query: { issued_only: true, limit, offset },
		scope: 'promo:read',
	});
	return body.codes ?? [];
}

/** A pool's last issued code, of the `issued` it has issued (one request). */
export async function lastIssuedCode(
	ctx: ApiContext,
	poolId: string,
	issued: number,
): Promise<IDataObject | undefined> {
	const [last] = await issuedCodes(ctx, poolId, issued - 1, 1);
	return last;
}
