/**
 * What the sandbox's server and its routes agree on: the scopes, a route and its context and
 * result, the rate limit's settings, a logged request, the server's options, and the small records
 * its pipeline passes along (server.ts).
 */
import type { FaultKind } from './faults';
import type { Store } from './store';
import type { ApiError } from './errors';
import type { Sandbox } from './server';

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
	/**
	 * How X-RateLimit-Reset is written: seconds until the reset to the millisecond (`seconds`) or
	 * in whole seconds rounded down or up; epoch seconds rounded up (`epoch`) or truncated; epoch
	 * milliseconds (`epoch-ms`, as several APIs write it).
	 */
	resetFormat: 'seconds' | 'seconds-floor' | 'seconds-ceil' | 'epoch' | 'epoch-floor' | 'epoch-ms';
	/** The server's clock runs this many seconds behind the host's: epoch resets are written on it. */
	clockBehindSeconds?: number;
	/** The Date header: the host's clock (Node's own, the default), the server's skewed one, or none. */
	dateHeader?: 'host' | 'server' | 'none';
	/** Retry-After on a 429 (default true). */
	retryAfter?: boolean;
	/**
	 * How the key's requests are counted: a fixed window that starts at the first request after
	 * the last one ended (the default), or a sliding log (`sliding`: a slot frees when the request
	 * that took it is a window old; Remaining grows one at a time and the reset names the next
	 * free slot).
	 */
	limiter?: 'fixed' | 'sliding';
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
	/** When the key's rate window this request counted in began (the sandbox's clock). */
	windowStart?: number;
	/** The API endpoint the path matched (e.g. `GET /customers/:customer_id`), if any. */
	route?: string;
	body?: unknown;
}

export interface KeyRecord {
	id: string;
	scopes: Set<string>;
	revoked: boolean;
}

/** What the sandbox answers a request. */
export interface Answer {
	status: number;
	body: unknown;
	headers: Record<string, string>;
}

/** A step of the request pipeline refused the request: this is the answer. */
export class Halt {
	readonly answer: Answer;

	constructor(
		readonly cause: ApiError,
		headers: Record<string, string> = {},
	) {
		this.answer = {
			status: cause.status,
			body: cause.toBody(),
			headers: { ...headers, ...cause.headers },
		};
	}
}

export interface StoredAnswer {
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
	/** Where Idempotency-Keys live (the spec does not say): per API key (default) or per company. */
	idempotencyScope?: IdempotencyScope;
	/** Mark a stored answer with `Idempotent-Replayed: true` (default); false: a server that does not. */
	markReplays?: boolean;
	/**
	 * Moderate business-chat templates as the platform owner would: a template PENDING for this
	 * long becomes APPROVED (`npm run dev`, so that a person sees it happen); off unless given.
	 */
	moderateAfterMs?: number;
}

export type IdempotencyScope = 'key' | 'company';

/** A route's path as a pattern (`:name` a path parameter), with its parameters' names. */
export function compileRoute(route: Route) {
	const names: string[] = [];
	const pattern = route.path.replace(/:([a-z_]+)/g, (_m, name: string) => {
		names.push(name);
		return '([^/]+)';
	});
	return { route, names, regex: new RegExp(`^${pattern}$`) };
}
