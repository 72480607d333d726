/* eslint-disable @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The control surface under /__sandbox/ (tests, benchmarks, `npm run dev`): only with the header
 * `X-Sandbox-Token`, and never with an API key. See the README beside this file.
 */
import type { IncomingMessage, ServerResponse } from 'http';

import { createDeal } from './crm';
import type { ChaosConfig, FaultSpec } from './faults';
import { sendJson } from './http';
import { createPool, poolOut } from './promoPools';
import type { RateLimitConfig, Sandbox } from './server';
import { ALL_SCOPES } from './server';
import { DEMO } from './store';

export function control(
	sandbox: Sandbox,
	req: IncomingMessage,
	res: ServerResponse,
	method: string,
	path: string,
	rawBody: string,
): void {
	// Never reachable with an API key: a request that carries one is answered as unknown.
	if (req.headers.authorization || req.headers['x-sandbox-token'] !== sandbox.controlToken) {
		sendJson(res, 404, { error: { code: 'not_found', message: 'Not found', details: {} } });
		return;
	}
	let body: Record<string, unknown> = {};
	try {
		body = rawBody ? (JSON.parse(rawBody) as Record<string, unknown>) : {};
	} catch {
		sendJson(res, 400, { error: { code: 'bad_json', message: 'Body is not JSON', details: {} } });
		return;
	}
	const ok = (data: unknown = { ok: true }) => sendJson(res, 200, data);
	const config = () => ({
		rateLimit: sandbox.rateLimit,
		idempotencyScope: sandbox.idempotencyScope,
		markReplays: sandbox.markReplays,
	});
	const route = `${method} ${path}`;
	switch (route) {
		case 'POST /reset':
			sandbox.reset((body.seed as 'demo' | 'empty') ?? 'demo');
			return ok();
		case 'POST /keys':
			return ok({ key: sandbox.mintKey((body.scopes as string[]) ?? ALL_SCOPES) });
		case 'POST /keys/revoke':
			sandbox.revokeKey(String(body.key));
			return ok();
		case 'POST /keys/scopes':
			sandbox.setScopes(String(body.key), (body.scopes as string[]) ?? []);
			return ok();
		case 'POST /channels':
			if (body.broken === false) sandbox.store.brokenChannels.delete(String(body.messenger_type));
			else sandbox.store.brokenChannels.add(String(body.messenger_type));
			return ok({ broken: [...sandbox.store.brokenChannels] });
		case 'POST /clock':
			sandbox.advanceClock(Number(body.advanceMs) || 0);
			return ok({ now: new Date(sandbox.now()).toISOString() });
		case 'GET /config':
			return ok(config());
		case 'POST /config':
			if (body.rateLimit) sandbox.setRateLimit(body.rateLimit as Partial<RateLimitConfig>);
			if (body.idempotencyScope === 'key' || body.idempotencyScope === 'company')
				sandbox.idempotencyScope = body.idempotencyScope;
			if (typeof body.markReplays === 'boolean') sandbox.markReplays = body.markReplays;
			return ok(config());
		case 'POST /faults':
			sandbox.injectFault(body as unknown as FaultSpec);
			return ok();
		case 'DELETE /faults':
			sandbox.clearFaults();
			return ok();
		case 'POST /chaos':
			sandbox.setChaos(body.seed === undefined ? null : (body as unknown as ChaosConfig));
			return ok();
		case 'POST /customers/bulk': {
			const count = Number(body.count ?? 1);
			const ids = Array.from({ length: count }, (_, i) =>
				sandbox.demoCustomer(`Bulk customer ${i + 1}`),
			);
			if (body.withDeals) {
				const pipeline = sandbox.store.defaultPipeline()!;
				for (const id of ids)
					createDeal(
						sandbox.store,
						id,
						pipeline,
						pipeline.stages[0],
						null,
						new Date(sandbox.now()).toISOString(),
					);
			}
			return ok({ ids });
		}
		case 'POST /promo-pools': {
			const pool = createPool(
				sandbox.store,
				{
					agent_id: String(body.agent_id ?? DEMO.supportBot),
					title: String(body.title ?? 'New pool'),
				},
				new Date(sandbox.now()).toISOString(),
			);
			return ok(poolOut(pool));
		}
		case 'GET /stats':
			return ok(sandbox.stats());
		case 'GET /requests':
			return ok({ requests: sandbox.requests() });
		case 'DELETE /requests':
			sandbox.clearRequests();
			return ok();
		case 'GET /state':
			return ok(sandbox.snapshot());
		case 'POST /templates/moderate': {
			const template = sandbox.store.templates.find(
				(t) => t.name === body.name && (!body.agent_id || t.agent_id === body.agent_id),
			);
			if (!template)
				return sendJson(res, 404, {
					error: { code: 'not_found', message: 'No such template', details: {} },
				});
			template.status = body.status as 'APPROVED' | 'REJECTED';
			return ok(template);
		}
		default: {
			const issueMatch = /^\/promo-pools\/([^/]+)\/issue$/.exec(path);
			if (issueMatch && method === 'POST') {
				const result = sandbox.issueCodes(
					decodeURIComponent(issueMatch[1]),
					Number(body.count ?? 1),
					body.customer_ids as string[] | undefined,
				);
				return result
					? ok(result)
					: sendJson(res, 404, {
							error: { code: 'not_found', message: 'No such pool', details: {} },
						});
			}
			const m = /^\/customers\/([^/]+)\/(inbound|send-failures)$/.exec(path);
			if (m && method === 'POST') {
				const customerId = decodeURIComponent(m[1]);
				if (!sandbox.store.customers.has(customerId)) {
					return sendJson(res, 404, {
						error: { code: 'not_found', message: 'No such customer', details: {} },
					});
				}
				if (m[2] === 'inbound')
					return ok(
						sandbox.inbound(customerId, String(body.messenger_type), String(body.text ?? '')),
					);
				const reasons = Array.from({ length: Number(body.count ?? 1) }, () => String(body.reason));
				sandbox.store.sendFailures.set(customerId, [
					...(sandbox.store.sendFailures.get(customerId) ?? []),
					...reasons,
				]);
				return ok();
			}
			sendJson(res, 404, {
				error: { code: 'not_found', message: `No control endpoint ${route}`, details: {} },
			});
		}
	}
}
