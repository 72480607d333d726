import { createHash, randomBytes, randomUUID } from 'crypto';
import type { IncomingMessage, ServerResponse } from 'http';
import { createServer } from 'http';
import type { AddressInfo, Socket } from 'net';

import { prng } from '../harness/prng';
import { ApiError, validation } from './errors';
import { isUuid } from './ids';
import { agentRoutes } from './routes/agents';
import { customerRoutes } from './routes/customers';
import { dealRoutes } from './routes/deals';
import { messageRoutes } from './routes/messages';
import { promoRoutes } from './routes/promo';
import { templateRoutes } from './routes/templates';
import { pipelineRoutes } from './routes/pipelines';
import { createPool, issue, poolOut, upload } from './promo';
import { createDeal } from './crm';
import { DEMO, seedDemo, Store } from './store';

/** The nine scopes of the spec. */
export const ALL_SCOPES = [
	'agents:read',
	'customers:read',
	'customers:write',
	'pipelines:read',
	'promo:read',
	'promo:write',
	'templates:manage',
	'messages:send',
	'messages:template',
];

export interface HandlerContext {
	store: Store;
	params: Record<string, string>;
	query: URLSearchParams;
	body: unknown;
	keyId: string;
	sandbox: Sandbox;
}

export interface HandlerResult {
	status: number;
	body: unknown;
}

export interface Route {
	method: 'GET' | 'POST' | 'PATCH';
	/** Path with `:name` segments, e.g. `/customers/:customer_id/deals`. */
	path: string;
	/** The scope needed; a list means any one of them; a function decides from the body. */
	scope: string | string[] | ((body: unknown) => string);
	/** Path parameters that must be UUIDs (422 otherwise). */
	uuidParams?: string[];
	/** The endpoint honours `Idempotency-Key`. */
	idempotent?: boolean;
	/** Whether an error answer is stored under the idempotency key (final refusals). */
	storeError?: (error: ApiError) => boolean;
	handler: (ctx: HandlerContext) => HandlerResult;
}

export interface RateLimitConfig {
	enabled: boolean;
	limit: number;
	windowMs: number;
	/** How X-RateLimit-Reset is written: seconds until the reset, or epoch seconds. */
	resetFormat: 'seconds' | 'epoch';
}

export type FaultKind = 'status' | 'html' | 'reset' | 'delay' | 'malformed' | 'echo';

export interface FaultSpec {
	/** Exact path, or a prefix ending in `*`. */
	path: string;
	method?: string;
	/** How many matching requests it hits. */
	count: number;
	kind: FaultKind;
	/** `before`: the request is not processed. `after`: processed, then the answer is lost or spoiled. */
	when?: 'before' | 'after';
	status?: number;
	body?: unknown;
	headers?: Record<string, string>;
	delayMs?: number;
	/**
	 * For `echo`: how the request's headers (the API key among them) come back, as a misconfigured
	 * proxy or a debug page would print them: in the envelope's message and details, or as a
	 * plain-text page. Either way a response header repeats the Authorization value.
	 */
	format?: 'envelope' | 'text';
}

/** Random faults on a share of requests, from a seeded generator (benchmarks, chaos tests). */
export interface ChaosConfig {
	seed: number;
	/** Share of requests answered with an HTML 502 page before processing. */
	p502?: number;
	/** Share of requests whose connection is reset (half before, half after processing). */
	pReset?: number;
	/** Share of requests answered 503 (envelope) before processing. */
	p503?: number;
	/** Share of requests refused with 429 and Retry-After. */
	p429?: number;
	/** The Retry-After of those 429s, in seconds (default 1). */
	retryAfter?: string;
	/** Share of requests answered only after `slowMs` (past a client's timeout, the work still done). */
	pSlow?: number;
	slowMs?: number;
	/** Share of requests processed and then answered with a truncated JSON body. */
	pMalformed?: number;
	/** Only paths starting with this. */
	pathPrefix?: string;
}

export interface LoggedRequest {
	seq: number;
	at: number;
	method: string;
	/** The path after URL normalisation, as routed. */
	path: string;
	/** The request target exactly as it arrived, before any normalisation (`/customers/../agents` stays so). */
	target: string;
	/** The request's Content-Type, when it had a body. */
	contentType?: string;
	query: string;
	status: number;
	keyId?: string;
	idempotencyKey?: string;
	replayed?: boolean;
	fault?: FaultKind;
	/** The API endpoint the path matched (e.g. `GET /customers/:customer_id`), if any. */
	route?: string;
	body?: unknown;
}

interface KeyRecord {
	id: string;
	scopes: Set<string>;
	revoked: boolean;
}

interface StoredAnswer {
	status: number;
	body: unknown;
	bodyHash: string;
	at: number;
}

export interface SandboxOptions {
	port?: number;
	host?: string;
	seed?: 'demo' | 'empty';
	rateLimit?: Partial<RateLimitConfig>;
	/** Keys to accept from the start (e.g. the demo key of `npm run sandbox`). */
	keys?: Array<{ key: string; scopes?: string[] }>;
	/** The token of the control surface; random unless given. */
	controlToken?: string;
	/** Log request bodies too (tests). */
	logBodies?: boolean;
}

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const MAX_LOG = 200_000;
const CONTROL_PREFIX = '/__sandbox';

function compileRoute(route: Route) {
	const names: string[] = [];
	const pattern = route.path.replace(/:([a-z_]+)/g, (_m, name: string) => {
		names.push(name);
		return '([^/]+)';
	});
	return { route, names, regex: new RegExp(`^${pattern}$`) };
}

function hashBody(body: unknown): string {
	return createHash('sha256').update(JSON.stringify(body ?? null)).digest('hex');
}

/**
 * A stateful emulator of the Company API on loopback. One instance is one company.
 * `control` is the test-only surface, reachable only with the control token and never with an
 * API key.
 */
export class Sandbox {
	readonly store = new Store();

	readonly controlToken: string;

	rateLimit!: RateLimitConfig;

	url = '';

	private keys = new Map<string, KeyRecord>();

	private windows = new Map<string, { start: number; count: number }>();

	private idempotency = new Map<string, StoredAnswer>();

	private faults: Array<FaultSpec & { left: number }> = [];

	private chaos: (ChaosConfig & { next: () => number }) | null = null;

	private log: LoggedRequest[] = [];

	private seq = 0;

	private sockets = new Set<Socket>();

	private readonly routes = [...agentRoutes, ...pipelineRoutes, ...customerRoutes, ...dealRoutes, ...messageRoutes, ...templateRoutes, ...promoRoutes].map(compileRoute);

	private server = createServer((req, res) => {
		this.handle(req, res).catch((error: unknown) => {
			if (!res.headersSent) this.send(res, 500, { error: { code: 'internal', message: String(error), details: {} } });
		});
	});

	/** Called for every API request before it is processed (tests: changes made mid-poll). */
	onRequest?: (method: string, path: string) => void;

	/** The clock, replaceable by tests of time-based rules. */
	now: () => number = () => Date.now();

	constructor(private readonly options: SandboxOptions = {}) {
		this.controlToken = options.controlToken ?? randomBytes(16).toString('hex');
		this.reset(options.seed ?? 'demo');
		for (const { key, scopes } of options.keys ?? []) this.addKey(key, scopes ?? ALL_SCOPES);
		this.server.on('connection', (socket) => {
			this.sockets.add(socket);
			socket.on('close', () => this.sockets.delete(socket));
		});
	}

	async start(): Promise<string> {
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
		});
		const { port } = this.server.address() as AddressInfo;
		this.url = `http://127.0.0.1:${port}`;
		return this.url;
	}

	async stop(): Promise<void> {
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	/** Back to a fresh company: data, keys, rate limit, windows, idempotency, faults and log. */
	reset(seed: 'demo' | 'empty' = 'demo'): void {
		this.rateLimit = { enabled: true, limit: 120, windowMs: 60_000, resetFormat: 'seconds', ...this.options.rateLimit };
		Object.assign(this.store, new Store());
		this.keys.clear();
		this.windows.clear();
		this.idempotency.clear();
		this.faults = [];
		this.log = [];
		this.onRequest = undefined;
		if (seed === 'demo') {
			seedDemo(this.store);
			this.seedDemoPools();
		}
	}

	/** Two demo pools with queued codes (`npm run dev` hands some out so that counters show). */
	private seedDemoPools(): void {
		const at = new Date(this.now()).toISOString();
		const welcome = createPool(this.store, { id: DEMO.welcomePool, agent_id: DEMO.supportBot, title: 'Welcome discount', description: '10% off the first order', code_word_titles: ['WELCOME'], low_threshold_pct: 20, low_threshold_min: 5 }, at);
		const vip = createPool(this.store, { id: DEMO.vipPool, agent_id: DEMO.salesChat, title: 'VIP gifts', code_word_titles: ['VIP'], low_threshold_pct: 10, low_threshold_min: 3 }, at);
		upload(welcome, { codes: Array.from({ length: 50 }, (_, i) => `WELCOME-${String(i + 1).padStart(3, '0')}`) });
		upload(vip, { codes: Array.from({ length: 10 }, (_, i) => `VIP-${String(i + 1).padStart(2, '0')}`) });
	}

	addKey(key: string, scopes: string[] = ALL_SCOPES): string {
		const id = `key_${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
		this.keys.set(key, { id, scopes: new Set(scopes), revoked: false });
		return id;
	}

	mintKey(scopes: string[] = ALL_SCOPES): string {
		const key = `mcrm_test_${randomBytes(18).toString('base64url')}`;
		this.addKey(key, scopes);
		return key;
	}

	revokeKey(key: string): void {
		const record = this.keys.get(key);
		if (record) record.revoked = true;
	}

	injectFault(fault: FaultSpec): void {
		this.faults.push({ ...fault, left: fault.count });
	}

	clearFaults(): void {
		this.faults = [];
		this.chaos = null;
	}

	setChaos(config: ChaosConfig | null): void {
		if (!config) {
			this.chaos = null;
			return;
		}
		this.chaos = { ...config, next: prng(config.seed) };
	}

	/** A fault drawn by the chaos generator for this request, if any. */
	private chaosFault(path: string): FaultSpec | undefined {
		const c = this.chaos;
		if (!c || (c.pathPrefix && !path.startsWith(c.pathPrefix))) return undefined;
		let r = c.next();
		const hit = (p = 0) => {
			if (r < p) return true;
			r -= p;
			return false;
		};
		if (hit(c.p502)) return { path, count: 1, kind: 'html', status: 502 };
		if (hit(c.p503)) return { path, count: 1, kind: 'status', status: 503, body: { error: { code: 'unavailable', message: 'Injected 503', details: {} } } };
		if (hit(c.pReset)) return { path, count: 1, kind: 'reset', when: c.next() < 0.5 ? 'before' : 'after' };
		if (hit(c.p429)) {
			return { path, count: 1, kind: 'status', status: 429, headers: { 'Retry-After': c.retryAfter ?? '1' }, body: { error: { code: 'rate_limited', message: 'Injected rate limit', details: {} } } };
		}
		if (hit(c.pSlow)) return { path, count: 1, kind: 'delay', when: 'after', delayMs: c.slowMs ?? 5000 };
		if (hit(c.pMalformed)) return { path, count: 1, kind: 'malformed', when: 'after' };
		return undefined;
	}

	requests(): LoggedRequest[] {
		return [...this.log];
	}

	clearRequests(): void {
		this.log = [];
	}

	// ---- the request pipeline ------------------------------------------------------------

	private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
		const text = body === undefined ? '' : JSON.stringify(body);
		res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
		res.end(text);
	}

	private record(entry: Omit<LoggedRequest, 'seq' | 'at'>) {
		if (this.log.length >= MAX_LOG) this.log.shift();
		this.log.push({ seq: ++this.seq, at: this.now(), ...entry });
	}

	private takeFault(method: string, path: string): (FaultSpec & { left: number }) | undefined {
		const fault = this.faults.find(
			(f) =>
				f.left > 0 &&
				(!f.method || f.method.toUpperCase() === method) &&
				(f.path.endsWith('*') ? path.startsWith(f.path.slice(0, -1)) : f.path === path),
		);
		if (fault) {
			fault.left--;
			if (fault.left === 0) this.faults = this.faults.filter((f) => f !== fault);
		}
		return fault;
	}

	private async readBody(req: IncomingMessage): Promise<string> {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		return Buffer.concat(chunks).toString('utf8');
	}

	private rateHeaders(keyId: string): { headers: Record<string, string>; exceeded: boolean; retryAfterMs: number } {
		const cfg = this.rateLimit;
		if (!cfg.enabled) return { headers: {}, exceeded: false, retryAfterMs: 0 };
		const now = this.now();
		let window = this.windows.get(keyId);
		if (!window || now >= window.start + cfg.windowMs) {
			window = { start: now, count: 0 };
			this.windows.set(keyId, window);
		}
		const resetAt = window.start + cfg.windowMs;
		const exceeded = window.count >= cfg.limit;
		if (!exceeded) window.count++;
		const untilReset = Math.max(0, resetAt - now);
		const reset =
			cfg.resetFormat === 'epoch' ? String(Math.ceil(resetAt / 1000)) : (untilReset / 1000).toFixed(3);
		return {
			headers: {
				'X-RateLimit-Limit': String(cfg.limit),
				'X-RateLimit-Remaining': String(Math.max(0, cfg.limit - window.count)),
				'X-RateLimit-Reset': reset,
			},
			exceeded,
			retryAfterMs: untilReset,
		};
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const method = (req.method ?? 'GET').toUpperCase();
		const url = new URL(req.url ?? '/', 'http://sandbox.local');
		const path = url.pathname;
		const rawBody = await this.readBody(req);

		if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) {
			this.control(req, res, method, path.slice(CONTROL_PREFIX.length), rawBody);
			return;
		}

		this.onRequest?.(method, path);
		const fault = this.takeFault(method, path) ?? this.chaosFault(path);
		const entry: Omit<LoggedRequest, 'seq' | 'at'> = {
			method,
			path,
			target: req.url ?? '',
			query: url.search,
			status: 0,
			idempotencyKey: (req.headers['idempotency-key'] as string | undefined) ?? undefined,
		};
		if (this.options.logBodies && rawBody) entry.body = rawBody;
		if (req.headers['content-type']) entry.contentType = req.headers['content-type'];

		if (fault && (fault.when ?? 'before') === 'before') {
			entry.fault = fault.kind;
			if (fault.kind === 'delay') {
				await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 1000));
			} else {
				this.record({ ...entry, status: fault.kind === 'reset' ? 0 : (fault.status ?? 502) });
				this.applyFault(req, res, fault);
				return;
			}
		}

		const { status, body, headers } = this.process(req, method, path, url.searchParams, rawBody, entry);
		entry.status = status;
		this.record(entry);

		if (fault && fault.when === 'after') {
			entry.fault = fault.kind;
			if (fault.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 1000));
			else {
				this.applyFault(req, res, fault);
				return;
			}
		}
		this.send(res, status, body, headers);
	}

	private applyFault(req: IncomingMessage, res: ServerResponse, fault: FaultSpec): void {
		switch (fault.kind) {
			case 'echo': {
				const auth = String(req.headers.authorization ?? '');
				const key = auth.replace(/^Bearer\s+/i, '');
				const dump = JSON.stringify(req.headers);
				const status = fault.status ?? 500;
				const headers = { 'X-Debug-Authorization': auth, ...fault.headers };
				if (fault.format === 'text') {
					res.writeHead(status, { 'Content-Type': 'text/plain', ...headers });
					res.end(`Upstream failed for key ${key}. Request headers: ${dump}\nAuthorization: ${auth}\n`);
					return;
				}
				this.send(res, status, {
					error: {
						code: status >= 500 ? 'internal_error' : 'bad_request',
						message: `Upstream failed (key ${key}). Request headers: ${dump}`,
						details: { headers: req.headers, authorization: auth, key, url: `${req.url ?? ''}?token=${encodeURIComponent(key)}`, provider_error: `Bearer ${key} rejected upstream` },
					},
				}, headers);
				return;
			}
			case 'reset':
				res.socket?.destroy();
				return;
			case 'html':
				res.writeHead(fault.status ?? 502, { 'Content-Type': 'text/html', ...fault.headers });
				res.end('<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>');
				return;
			case 'malformed':
				res.writeHead(fault.status ?? 200, { 'Content-Type': 'application/json', ...fault.headers });
				res.end('{"truncated": ');
				return;
			default:
				this.send(
					res,
					fault.status ?? 502,
					fault.body ?? { error: { code: 'injected', message: 'Injected fault', details: {} } },
					fault.headers,
				);
		}
	}

	private process(
		req: IncomingMessage,
		method: string,
		path: string,
		query: URLSearchParams,
		rawBody: string,
		entry: Omit<LoggedRequest, 'seq' | 'at'>,
	): { status: number; body: unknown; headers: Record<string, string> } {
		const fail = (error: ApiError, headers: Record<string, string> = {}) => ({
			status: error.status,
			body: error.toBody(),
			headers: { ...headers, ...error.headers },
		});

		// 1. Authentication: a missing, malformed, unknown or revoked key is a 401 in the envelope.
		const auth = req.headers.authorization;
		const match = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
		if (!match) {
			return fail(new ApiError(401, 'unauthorized', auth ? 'The Authorization header is not "Bearer <API_KEY>"' : 'No API key was sent'));
		}
		const key = this.keys.get(match[1]);
		if (!key || key.revoked) {
			return fail(new ApiError(401, 'unauthorized', key ? 'This API key has been revoked' : 'Unknown API key'));
		}
		entry.keyId = key.id;

		// 2. Rate limit, per key, on every authenticated request.
		const rate = this.rateHeaders(key.id);
		if (rate.exceeded) {
			const seconds = Math.max(1, Math.ceil(rate.retryAfterMs / 1000));
			return fail(
				new ApiError(429, 'rate_limited', `Rate limit of ${this.rateLimit.limit} requests per ${this.rateLimit.windowMs / 1000} s exceeded`, {
					retry_after_seconds: seconds,
				}),
				{ ...rate.headers, 'Retry-After': String(seconds) },
			);
		}

		// 3. Route.
		let found: { route: Route; params: Record<string, string> } | undefined;
		for (const { route, names, regex } of this.routes) {
			if (route.method !== method) continue;
			const m = regex.exec(path);
			if (!m) continue;
			const params: Record<string, string> = {};
			names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1])));
			found = { route, params };
			break;
		}
		if (!found) return fail(new ApiError(404, 'not_found', `No endpoint ${method} ${path}`), rate.headers);
		const { route, params } = found;
		entry.route = `${route.method} ${route.path}`;

		// 4. Body. The spec: "bodies are Content-Type: application/json". Every POST and PATCH of the
		// API takes a JSON object, so an empty body or another content type is refused (strictly, as
		// some servers do; a lenient server would read an empty body as {}).
		let body: unknown = undefined;
		if (method !== 'GET') {
			const type = String(req.headers['content-type'] ?? '');
			if (!rawBody.trim()) return fail(validation('The request has no body: send a JSON object ({} when every field is optional)'), rate.headers);
			if (!/^application\/json\b/i.test(type)) {
				return fail(validation(`The request body must be Content-Type: application/json (got "${type || 'none'}")`), rate.headers);
			}
		}
		if (rawBody.trim()) {
			try {
				body = JSON.parse(rawBody);
			} catch {
				return fail(validation('The request body is not valid JSON'), rate.headers);
			}
		}

		// 5. Scope.
		let needed: string[];
		try {
			needed = typeof route.scope === 'function' ? [route.scope(body)] : ([] as string[]).concat(route.scope);
		} catch (error) {
			if (error instanceof ApiError) return fail(error, rate.headers);
			throw error;
		}
		if (!needed.some((s) => key.scopes.has(s))) {
			return fail(
				new ApiError(403, 'insufficient_scope', `This key lacks the scope ${needed.join(' or ')}`, {
					required_scope: needed.length === 1 ? needed[0] : needed,
				}),
				rate.headers,
			);
		}

		// 6. Path parameters.
		for (const name of route.uuidParams ?? []) {
			if (!isUuid(params[name])) {
				return fail(validation(`${name} must be a UUID`, { field: name }), rate.headers);
			}
		}

		// 7. Idempotency: a repeat with the same key returns the stored answer and does nothing.
		const idemKey = route.idempotent ? (req.headers['idempotency-key'] as string | undefined) : undefined;
		const storeKey = idemKey ? `${key.id} ${method} ${path} ${idemKey}` : '';
		const bodyHash = hashBody(body);
		if (idemKey) {
			const stored = this.idempotency.get(storeKey);
			if (stored && this.now() - stored.at < IDEMPOTENCY_TTL_MS) {
				if (stored.bodyHash !== bodyHash) {
					return fail(
						new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different body', {
							field: 'Idempotency-Key',
						}),
						rate.headers,
					);
				}
				entry.replayed = true;
				return { status: stored.status, body: stored.body, headers: { ...rate.headers, 'Idempotent-Replayed': 'true' } };
			}
		}

		// 8. The operation.
		try {
			const result = route.handler({ store: this.store, params, query, body, keyId: key.id, sandbox: this });
			if (idemKey) this.idempotency.set(storeKey, { status: result.status, body: result.body, bodyHash, at: this.now() });
			return { status: result.status, body: result.body, headers: rate.headers };
		} catch (error) {
			if (!(error instanceof ApiError)) throw error;
			if (idemKey && route.storeError?.(error)) {
				this.idempotency.set(storeKey, { status: error.status, body: error.toBody(), bodyHash, at: this.now() });
			}
			return fail(error, rate.headers);
		}
	}

	// ---- simulations and state, for tests and the control surface --------------------------

	/** A message from the customer: anchors the window, counts as Start, cancels follow-ups. */
	inbound(customerId: string, messengerType: string, text: string) {
		const customer = this.store.customers.get(customerId);
		if (!customer) throw new Error(`No customer ${customerId}`);
		const messenger = customer.messengers.find((m) => m.type === messengerType);
		if (!messenger) throw new Error(`Customer has no ${messengerType} messenger`);
		const at = new Date(this.now()).toISOString();
		messenger.last_inbound_at = at;
		messenger.started = true;
		let cancelled = 0;
		for (const job of this.store.followUps.values()) {
			if (job.customer_id === customerId && job.status === 'scheduled') {
				job.status = 'cancelled';
				cancelled++;
			}
		}
		const agent = [...this.store.agents.values()].find((a) => a.messengers.includes(messengerType));
		const dialog = [...this.store.conversations.values()].find((c) => c.customer_id === customerId && c.status === 'active' && c.agent_id === agent?.id);
		dialog?.timeline.push({ id: `in-${this.seq}`, kind: 'inbound', text, at, messenger_type: messengerType });
		return { last_inbound_at: at, follow_ups_cancelled: cancelled };
	}

	/**
	 * Simulates customers asking the agent for a code: each gets the next queued code (a new demo
	 * customer per request unless ids are given); an empty pool counts exhausted requests.
	 */
	issueCodes(poolId: string, count: number, customerIds?: string[]) {
		const pool = this.store.promoPools.get(poolId);
		if (!pool) return undefined;
		const at = new Date(this.now()).toISOString();
		const outcomes: Array<{ customer_id: string; code: string | null; outcome: string }> = [];
		for (let i = 0; i < count; i++) {
			const customerId = customerIds?.[i] ?? this.demoCustomer(`Promo requester ${this.store.customers.size + 1}`);
			outcomes.push({ customer_id: customerId, ...issue(pool, customerId, at) });
		}
		return { outcomes, pool: poolOut(pool) };
	}

	/** A customer card for simulations, with a bot messenger. */
	demoCustomer(name: string): string {
		const id = randomUUID();
		const n = this.store.customers.size + 1;
		this.store.customers.set(id, {
			id,
			full_name: name,
			phone: null,
			email: null,
			avatar_url: null,
			avatar_source: null,
			avatar_downloads: 0,
			source: 'sandbox',
			language: null,
			tags: [],
			messengers: [{ type: 'telegram', id: `9${String(n).padStart(8, '0')}`, username: null, last_inbound_at: null, started: true, blocked: false, has_photo: true }],
			variables: new Map(),
			notes: 0,
			merged_into: null,
			is_active: true,
			created_at: new Date(this.now()).toISOString(),
		});
		return id;
	}

	/** Counts for benchmarks: customers, messages per customer, pools, requests by status. */
	stats() {
		const byStatus: Record<string, number> = {};
		for (const r of this.log) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
		const sentPerCustomer: Record<string, number> = {};
		for (const m of this.store.messages.values()) if (m.status === 'sent') sentPerCustomer[m.customer_id] = (sentPerCustomer[m.customer_id] ?? 0) + 1;
		return {
			customers: this.store.customers.size,
			distinctPhones: new Set([...this.store.customers.values()].map((c) => c.phone).filter(Boolean)).size,
			messagesSent: [...this.store.messages.values()].filter((m) => m.status === 'sent').length,
			messagesFailed: [...this.store.messages.values()].filter((m) => m.status === 'failed').length,
			customersWithMoreThanOneMessage: Object.values(sentPerCustomer).filter((n) => n > 1).length,
			customersMessaged: Object.keys(sentPerCustomer).length,
			requests: this.log.length,
			byStatus,
			pools: [...this.store.promoPools.values()].map(poolOut),
		};
	}

	/** The company's data as plain JSON. */
	snapshot(): SandboxSnapshot {
		const plain = (value: unknown): unknown =>
			value instanceof Map ? Object.fromEntries([...value].map(([k, v]) => [k, plain(v)])) : Array.isArray(value) ? value.map(plain) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)])) : value;
		const s = this.store;
		return plain({
			agents: [...s.agents.values()],
			pipelines: [...s.pipelines.values()],
			customers: [...s.customers.values()],
			deals: [...s.deals.values()],
			conversations: [...s.conversations.values()],
			messages: [...s.messages.values()],
			followUps: [...s.followUps.values()],
			templates: s.templates,
			promoPools: [...s.promoPools.values()].map((p) => ({ ...poolOut(p), codes: p.rows.length })),
		}) as SandboxSnapshot;
	}

	// ---- the control surface (tests, benchmarks, `npm run dev`) ----------------------------

	private control(req: IncomingMessage, res: ServerResponse, method: string, path: string, rawBody: string): void {
		// Never reachable with an API key: a request that carries one is answered as unknown.
		if (req.headers.authorization || req.headers['x-sandbox-token'] !== this.controlToken) {
			this.send(res, 404, { error: { code: 'not_found', message: 'Not found', details: {} } });
			return;
		}
		let body: Record<string, unknown> = {};
		try {
			body = rawBody ? (JSON.parse(rawBody) as Record<string, unknown>) : {};
		} catch {
			this.send(res, 400, { error: { code: 'bad_json', message: 'Body is not JSON', details: {} } });
			return;
		}
		const ok = (data: unknown = { ok: true }) => this.send(res, 200, data);
		const route = `${method} ${path}`;
		switch (route) {
			case 'POST /reset':
				this.reset((body.seed as 'demo' | 'empty') ?? 'demo');
				return ok();
			case 'POST /keys':
				return ok({ key: this.mintKey((body.scopes as string[]) ?? ALL_SCOPES) });
			case 'POST /keys/revoke':
				this.revokeKey(String(body.key));
				return ok();
			case 'GET /config':
				return ok({ rateLimit: this.rateLimit });
			case 'POST /config':
				if (body.rateLimit) {
					this.rateLimit = { ...this.rateLimit, ...(body.rateLimit as Partial<RateLimitConfig>) };
					this.windows.clear();
				}
				return ok({ rateLimit: this.rateLimit });
			case 'POST /faults':
				this.injectFault(body as unknown as FaultSpec);
				return ok();
			case 'DELETE /faults':
				this.clearFaults();
				return ok();
			case 'POST /chaos':
				this.setChaos(body.seed === undefined ? null : (body as unknown as ChaosConfig));
				return ok();
			case 'POST /customers/bulk': {
				const count = Number(body.count ?? 1);
				const ids = Array.from({ length: count }, (_, i) => this.demoCustomer(`Bulk customer ${i + 1}`));
				if (body.withDeals) {
					const pipeline = this.store.defaultPipeline()!;
					for (const id of ids) createDeal(this.store, id, pipeline, pipeline.stages[0], null, new Date(this.now()).toISOString());
				}
				return ok({ ids });
			}
			case 'POST /promo-pools': {
				const pool = createPool(this.store, { agent_id: String(body.agent_id ?? DEMO.supportBot), title: String(body.title ?? 'New pool') }, new Date(this.now()).toISOString());
				return ok(poolOut(pool));
			}
			case 'GET /stats':
				return ok(this.stats());
			case 'GET /requests':
				return ok({ requests: this.requests() });
			case 'DELETE /requests':
				this.clearRequests();
				return ok();
			case 'GET /state':
				return ok(this.snapshot());
			case 'POST /templates/moderate': {
				const template = this.store.templates.find((t) => t.name === body.name && (!body.agent_id || t.agent_id === body.agent_id));
				if (!template) return this.send(res, 404, { error: { code: 'not_found', message: 'No such template', details: {} } });
				template.status = body.status as 'APPROVED' | 'REJECTED';
				return ok(template);
			}
			default: {
				const issueMatch = /^\/promo-pools\/([^/]+)\/issue$/.exec(path);
				if (issueMatch && method === 'POST') {
					const result = this.issueCodes(decodeURIComponent(issueMatch[1]), Number(body.count ?? 1), body.customer_ids as string[] | undefined);
					return result ? ok(result) : this.send(res, 404, { error: { code: 'not_found', message: 'No such pool', details: {} } });
				}
				const m = /^\/customers\/([^/]+)\/(inbound|send-failures)$/.exec(path);
				if (m && method === 'POST') {
					const customerId = decodeURIComponent(m[1]);
					if (!this.store.customers.has(customerId)) {
						return this.send(res, 404, { error: { code: 'not_found', message: 'No such customer', details: {} } });
					}
					if (m[2] === 'inbound') return ok(this.inbound(customerId, String(body.messenger_type), String(body.text ?? '')));
					const reasons = Array.from({ length: Number(body.count ?? 1) }, () => String(body.reason));
					this.store.sendFailures.set(customerId, [...(this.store.sendFailures.get(customerId) ?? []), ...reasons]);
					return ok();
				}
				this.send(res, 404, { error: { code: 'not_found', message: `No control endpoint ${route}`, details: {} } });
			}
		}
	}
}

export interface SandboxSnapshot {
	[collection: string]: unknown;
}

/** Starts a sandbox on loopback (an ephemeral port unless one is given). */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const sandbox = new Sandbox(options);
	await sandbox.start();
	return sandbox;
}
