/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The sandbox's HTTP server and request pipeline: keys, rate limit, routing, body, scope,
 * idempotency, the operation, and the request log. Steps 1, 2 and 7 do their work in auth.ts,
 * keyWindows.ts and replays.ts; what a route and the server agree on is contract.ts. Faults
 * (faults.ts), the control surface (control.ts) and simulations (simulations.ts) live beside it.
 */
import { createHash, randomBytes } from 'crypto';
import type { IncomingMessage, ServerResponse } from 'http';
import { createServer } from 'http';
import type { AddressInfo, Socket } from 'net';

import { control } from './control';
import { ApiError, validation } from './errors';
import type { ChaosConfig, FaultSpec } from './faults';
import { applyFault, FaultPlan } from './faults';
import { readBody, sendJson } from './http';
import { isUuid } from './ids';
import { agentRoutes } from './routes/agents';
import { customerRoutes } from './routes/customers';
import { dealRoutes } from './routes/deals';
import { messageRoutes } from './routes/messages';
import { promoRoutes } from './routes/promo';
import { templateRoutes } from './routes/templates';
import { pipelineRoutes } from './routes/pipelines';
import {
	addMessenger,
	demoCustomer,
	inbound,
	issueCodes,
	sentTo,
	snapshot,
	stats,
} from './simulations';
import { decodeState, encodeState } from './persist';
import { seedDemo, Store } from './store';
import { KeyWindows } from './keyWindows';
import { answerOnce } from './replays';
import { authenticate } from './auth';
import type {
	Route,
	RateLimitConfig,
	LoggedRequest,
	KeyRecord,
	Answer,
	StoredAnswer,
	SandboxOptions,
	IdempotencyScope,
} from './contract';
import { ALL_SCOPES, compileRoute, Halt } from './contract';

export type { ChaosConfig, FaultKind, FaultSpec } from './faults';

export { ALL_SCOPES } from './contract';
export type {
	HandlerContext,
	HandlerResult,
	Route,
	RateLimitConfig,
	LoggedRequest,
	SandboxOptions,
	IdempotencyScope,
} from './contract';

const MAX_LOG = 200_000;
const CONTROL_PREFIX = '/__sandbox';

/**
 * A stateful emulator of the Company API on loopback. One instance is one company.
 * `control` is the test-only surface, reachable only with the control token and never with an
 * API key.
 */
export class Sandbox {
	readonly store = new Store();

	readonly controlToken: string;

	rateLimit!: RateLimitConfig;

	/** Where Idempotency-Keys live: per API key, or shared by every key of the company. */
	idempotencyScope: IdempotencyScope = 'key';

	/** Whether a stored answer says so in `Idempotent-Replayed: true`. */
	markReplays = true;

	url = '';

	private keys = new Map<string, KeyRecord>();

	/** Each key's rate window (or sliding log) under `rateLimit`. */
	private rates = new KeyWindows(() => this.rateLimit);

	private idempotency = new Map<string, StoredAnswer>();

	private readonly faults = new FaultPlan();

	private log: LoggedRequest[] = [];

	private seq = 0;

	private sockets = new Set<Socket>();

	private readonly routes = [
		...agentRoutes,
		...pipelineRoutes,
		...customerRoutes,
		...dealRoutes,
		...messageRoutes,
		...templateRoutes,
		...promoRoutes,
	].map(compileRoute);

	private server = createServer((req, res) => {
		this.handle(req, res).catch((error: unknown) => {
			if (!res.headersSent)
				sendJson(res, 500, { error: { code: 'internal', message: String(error), details: {} } });
		});
	});

	/** Called for every API request before it is processed (tests: changes made mid-poll). */
	onRequest?: (method: string, path: string) => void;

	private readonly hostClock = () => Date.now();

	/**
	 * The server's clock, replaceable by tests of time-based rules: once it is not this host's, the
	 * Date header follows it, as a real server's does.
	 */
	now: () => number = this.hostClock;

	/** Moves the server's clock forward (windows close, reminders fall due), as time passing would. */
	advanceClock(ms: number): void {
		const before = this.now;
		this.now = () => before() + ms;
	}

	constructor(private readonly options: SandboxOptions = {}) {
		this.controlToken = options.controlToken ?? randomBytes(16).toString('hex');
		this.reset(options.seed ?? 'demo');
		for (const { key, scopes } of options.keys ?? []) this.addKey(key, scopes ?? ALL_SCOPES);
		this.server.on('connection', (socket) => {
			this.sockets.add(socket);
			socket.on('close', () => this.sockets.delete(socket));
		});
	}

	/** When each PENDING template was first seen pending (the moderation of `moderateAfterMs`). */
	private readonly pendingSince = new Map<string, number>();

	private moderator?: NodeJS.Timeout;

	/** Approves templates that have been PENDING for `moderateAfterMs` (one check a second). */
	private moderate(): void {
		const after = this.options.moderateAfterMs ?? 0;
		const now = this.now();
		for (const template of this.store.templates) {
			if (template.status !== 'PENDING') {
				this.pendingSince.delete(template.id);
				continue;
			}
			const since = this.pendingSince.get(template.id) ?? now;
			this.pendingSince.set(template.id, since);
			if (now - since >= after) {
				template.status = 'APPROVED';
				this.pendingSince.delete(template.id);
			}
		}
	}

	async start(): Promise<string> {
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
		});
		const { port } = this.server.address() as AddressInfo;
		this.url = `http://127.0.0.1:${port}`;
		if (this.options.moderateAfterMs !== undefined) {
			this.moderator = setInterval(() => this.moderate(), 1_000);
			this.moderator.unref();
		}
		return this.url;
	}

	async stop(): Promise<void> {
		clearInterval(this.moderator);
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	/** Back to a fresh company: data, keys, rate limit, windows, idempotency, faults and log. */
	reset(seed: 'demo' | 'empty' = 'demo'): void {
		this.now = this.hostClock;
		this.rateLimit = {
			enabled: true,
			limit: 120,
			windowMs: 60_000,
			resetFormat: 'seconds',
			...this.options.rateLimit,
		};
		Object.assign(this.store, new Store());
		this.idempotencyScope = this.options.idempotencyScope ?? 'key';
		this.markReplays = this.options.markReplays ?? true;
		this.keys.clear();
		this.rates.clear();
		this.idempotency.clear();
		this.faults.clear();
		this.log = [];
		this.onRequest = undefined;
		if (seed === 'demo') {
			seedDemo(this.store, new Date(this.now()).toISOString());
		}
	}

	/** The company, its keys and its stored answers, as text (see persist.ts); faults and log are not kept. */
	saveState(): string {
		return encodeState({
			version: 1,
			store: this.store,
			keys: this.keys,
			idempotency: this.idempotency,
			idempotencyScope: this.idempotencyScope,
			markReplays: this.markReplays,
		});
	}

	/** Back to a state saved by saveState (a restart of `npm run dev`). */
	loadState(text: string): void {
		const state = decodeState(text) as {
			version: number;
			store: Store;
			keys: Map<string, KeyRecord>;
			idempotency: Map<string, StoredAnswer>;
			idempotencyScope: IdempotencyScope;
			markReplays: boolean;
		};
		if (state.version !== 1) throw new Error(`Unknown sandbox state version ${state.version}`);
		this.reset('empty');
		Object.assign(this.store, state.store);
		for (const pool of this.store.promoPools.values())
			pool.byCode = new Map(pool.rows.map((row) => [row.code, row]));
		this.keys = state.keys;
		this.idempotency = state.idempotency;
		this.idempotencyScope = state.idempotencyScope;
		this.markReplays = state.markReplays;
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

	/** A key's scopes changed in the CRM (a scope removed mid-run). */
	setScopes(key: string, scopes: string[]): void {
		const record = this.keys.get(key);
		if (record) record.scopes = new Set(scopes);
	}

	revokeKey(key: string): void {
		const record = this.keys.get(key);
		if (record) record.revoked = true;
	}

	/** Injects a fault on the next `count` requests to a path (see faults.ts). */
	injectFault(fault: FaultSpec): void {
		this.faults.inject(fault);
	}

	clearFaults(): void {
		this.faults.clear();
	}

	setChaos(config: ChaosConfig | null): void {
		this.faults.setChaos(config);
	}

	/** Changes the rate limit; every key starts a fresh window. */
	setRateLimit(config: Partial<RateLimitConfig>): RateLimitConfig {
		this.rateLimit = { ...this.rateLimit, ...config };
		this.rates.clear();
		return this.rateLimit;
	}

	/** How many API requests were logged since the sandbox started (ids of simulated events). */
	get requestCount(): number {
		return this.seq;
	}

	requests(): LoggedRequest[] {
		return [...this.log];
	}

	clearRequests(): void {
		this.log = [];
	}

	// ---- the request pipeline ------------------------------------------------------------

	private record(entry: Omit<LoggedRequest, 'seq' | 'at'>) {
		if (this.log.length >= MAX_LOG) this.log.shift();
		this.log.push({ seq: ++this.seq, at: this.now(), ...entry });
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const method = (req.method ?? 'GET').toUpperCase();
		const url = new URL(req.url ?? '/', 'http://sandbox.local');
		const path = url.pathname;
		const rawBody = await readBody(req);

		if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) {
			control(this, req, res, method, path.slice(CONTROL_PREFIX.length), rawBody);
			return;
		}

		this.onRequest?.(method, path);
		if (this.rateLimit.enabled && this.rateLimit.dateHeader === 'none') res.sendDate = false;
		else if (this.now !== this.hostClock && this.rateLimit.dateHeader !== 'server')
			res.setHeader('Date', new Date(this.now()).toUTCString());
		const fault = this.faults.take(method, path);
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
				applyFault(req, res, fault);
				return;
			}
		}

		const { status, body, headers } = this.process(
			req,
			method,
			path,
			url.searchParams,
			rawBody,
			entry,
		);
		entry.status = status;
		this.record(entry);

		if (fault && fault.when === 'after') {
			entry.fault = fault.kind;
			if (fault.kind === 'delay')
				await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 1000));
			else {
				applyFault(req, res, fault);
				return;
			}
		}
		sendJson(res, status, body, headers);
	}

	/**
	 * The request pipeline, one named step each: authenticate, rate limit, route, body, scope, path
	 * parameters, idempotency, the operation. A step that refuses the request halts with its answer.
	 */
	private process(
		req: IncomingMessage,
		method: string,
		path: string,
		query: URLSearchParams,
		rawBody: string,
		entry: Omit<LoggedRequest, 'seq' | 'at'>,
	): Answer {
		try {
			const key = this.authenticate(req);
			entry.keyId = key.id;
			let rate: Record<string, string>;
			try {
				rate = this.limitRate(key);
			} finally {
				entry.windowStart = this.rates.windowStart(key.id);
			}
			const { route, params } = this.routeOf(method, path, rate);
			entry.route = `${route.method} ${route.path}`;
			const body = this.jsonBody(req, method, rawBody, rate);
			this.checkScope(route, key, body, rate);
			this.checkPathParams(route, params, rate);
			const operate = () => this.operate(route, params, query, body, key, rate);
			const idemKey = route.idempotent
				? (req.headers['idempotency-key'] as string | undefined)
				: undefined;
			if (!idemKey) return operate();
			const owner = this.idempotencyScope === 'company' ? 'company' : key.id;
			// 7. Idempotency (replays.ts).
			const storeKey = `${owner} ${method} ${path} ${idemKey}`;
			const request = {
				storeKey,
				route,
				body,
				rate,
				entry,
				now: this.now(),
				mark: this.markReplays,
			};
			return answerOnce(this.idempotency, request, operate);
		} catch (error) {
			if (error instanceof Halt) return error.answer;
			throw error;
		}
	}

	/** 1. Authentication: a missing, malformed, unknown or revoked key is a 401 in the envelope. */
	private authenticate(req: IncomingMessage): KeyRecord {
		return authenticate(this.keys, req.headers.authorization);
	}

	/** 2. Rate limit, per key, on every authenticated request: the headers every answer carries. */
	private limitRate(key: KeyRecord): Record<string, string> {
		return this.rates.admit(key.id, this.now());
	}

	/** 3. The endpoint the method and path name, with its path parameters. */
	private routeOf(
		method: string,
		path: string,
		rate: Record<string, string>,
	): { route: Route; params: Record<string, string> } {
		for (const { route, names, regex } of this.routes) {
			if (route.method !== method) continue;
			const m = regex.exec(path);
			if (!m) continue;
			const params: Record<string, string> = {};
			names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1])));
			return { route, params };
		}
		throw new Halt(new ApiError(404, 'not_found', `No endpoint ${method} ${path}`), rate);
	}

	/**
	 * 4. Body. The spec: "bodies are Content-Type: application/json". Every POST and PATCH of the
	 * API takes a JSON object, so an empty body or another content type is refused (strictly, as
	 * some servers do; a lenient server would read an empty body as {}).
	 */
	private jsonBody(
		req: IncomingMessage,
		method: string,
		rawBody: string,
		rate: Record<string, string>,
	): unknown {
		if (method !== 'GET') {
			const type = String(req.headers['content-type'] ?? '');
			if (!rawBody.trim())
				throw new Halt(
					validation(
						'The request has no body: send a JSON object ({} when every field is optional)',
					),
					rate,
				);
			if (!/^application\/json\b/i.test(type))
				throw new Halt(
					validation(
						`The request body must be Content-Type: application/json (got "${type || 'none'}")`,
					),
					rate,
				);
		}
		if (!rawBody.trim()) return undefined;
		try {
			return JSON.parse(rawBody);
		} catch {
			throw new Halt(validation('The request body is not valid JSON'), rate);
		}
	}

	/** 5. Scope: the key carries one the endpoint (or, for a send, its body) needs. */
	private checkScope(
		route: Route,
		key: KeyRecord,
		body: unknown,
		rate: Record<string, string>,
	): void {
		let needed: string[];
		try {
			needed =
				typeof route.scope === 'function'
					? [route.scope(body)]
					: ([] as string[]).concat(route.scope);
		} catch (error) {
			if (error instanceof ApiError) throw new Halt(error, rate);
			throw error;
		}
		if (!needed.some((s) => key.scopes.has(s)))
			throw new Halt(
				new ApiError(403, 'insufficient_scope', `This key lacks the scope ${needed.join(' or ')}`, {
					required_scope: needed.length === 1 ? needed[0] : needed,
				}),
				rate,
			);
	}

	/** 6. Path parameters that must be UUIDs. */
	private checkPathParams(
		route: Route,
		params: Record<string, string>,
		rate: Record<string, string>,
	): void {
		for (const name of route.uuidParams ?? [])
			if (!isUuid(params[name]))
				throw new Halt(validation(`${name} must be a UUID`, { field: name }), rate);
	}

	/** 8. The operation. */
	private operate(
		route: Route,
		params: Record<string, string>,
		query: URLSearchParams,
		body: unknown,
		key: KeyRecord,
		rate: Record<string, string>,
	): Answer {
		try {
			const result = route.handler({
				store: this.store,
				params,
				query,
				body,
				keyId: key.id,
				sandbox: this,
			});
			return { status: result.status, body: result.body, headers: rate };
		} catch (error) {
			if (error instanceof ApiError) throw new Halt(error, rate);
			throw error;
		}
	}

	// ---- simulations and state (simulations.ts), for tests and the control surface ----------

	/** A message from the customer: anchors the window, counts as Start, cancels follow-ups. */
	inbound(customerId: string, messengerType: string, text: string) {
		return inbound(this, customerId, messengerType, text);
	}

	/** Customers asking the agent for codes (see simulations.ts). */
	issueCodes(poolId: string, count: number, customerIds?: string[]) {
		return issueCodes(this, poolId, count, customerIds);
	}

	/** A customer card for simulations, with a bot messenger (and this id, when given). */
	demoCustomer(name: string, id?: string): string {
		return demoCustomer(this, name, id);
	}

	/** Another messenger on a customer's card (see simulations.ts). */
	addMessenger(customerId: string, type: string, id: string): void {
		addMessenger(this, customerId, type, id);
	}

	/** Messages sent to each of these customers, in their order. */
	sentTo(customerIds: string[]): number[] {
		return sentTo(this, customerIds);
	}

	/** Failed copies left in the CRM dialogs of each of these customers (one per refused try). */
	failedTo(customerIds: string[]): number[] {
		return sentTo(this, customerIds, 'failed');
	}

	/** Counts for benchmarks: customers, messages per customer, pools, requests by status. */
	stats() {
		return stats(this);
	}

	/** The company's data as plain JSON. */
	snapshot(): SandboxSnapshot {
		return snapshot(this);
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
