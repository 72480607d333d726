import { createHash } from 'crypto';
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { perRun } from '../helpers/perRun';
import { rateShareOf } from '../helpers/rateShare';
import type { ScopeRequirement } from '../helpers/scopes';
import { configuredScopes, describeScope, howToGetScope, missingScope } from '../helpers/scopes';
import { baseUrlProblem, normalizeBaseUrl } from '../helpers/url';
import type { ApiFailure } from './errors';
import {
	failureFromNetwork,
	failureFromResponse,
	networkCode,
	RETRYABLE_NETWORK_CODES,
	toNodeApiError,
} from './errors';
import type { RateLimitReading } from './rateHeaders';
import {
	headerValue,
	MAX_RESET_AHEAD_MS,
	parseRateLimitHeaders,
	parseRetryAfter,
} from './rateHeaders';
import { backoffMs, Pacer } from './rateLimit';
import type { Redactor } from './redact';
import { redactor } from './redact';

export const CREDENTIAL_TYPE = 'messagingCrmApi';

export type ApiContext = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions;

export interface ApiRequest {
	method: IHttpRequestMethods;
	/** Path relative to the base URL, segments already encoded. */
	path: string;
	/** The scope the endpoint needs (checked against the credential's hints before sending). */
	scope: ScopeRequirement;
	query?: IDataObject;
	body?: IDataObject;
	/** Sent as `Idempotency-Key`, the same on every try; makes the request safe to repeat. */
	idempotencyKey?: string;
	/** The request may be repeated without a key (GET is always safe). */
	idempotent?: boolean;
	/**
	 * Whether an API error is retried, given what the transport would do (`usual`: a 5xx on a
	 * request that is safe to repeat); e.g. a send failure with `details.retryable`.
	 */
	retryWhen?: (failure: ApiFailure, usual: boolean) => boolean;
	/** Error statuses answered as a response instead of thrown (e.g. 404 on a lookup). */
	acceptStatus?: number[];
	/** Item the request is made for, so that errors name it. */
	itemIndex?: number;
}

export interface ApiResponse<T = unknown> {
	status: number;
	body: T;
	headers: Record<string, unknown>;
	/** The rate-limit headers of this answer, parsed: nothing else reads them. */
	rateLimit: RateLimitReading;
	/** HTTP requests spent, retries included. */
	attempts: number;
	/** An answer of `acceptStatus` (an error status): what it said, as a thrown error would carry it. */
	failure?: ApiFailure;
}

/** The error an accepted error answer would have been thrown as, for an operation that cannot use it. */
export function failureError(
	ctx: ApiContext,
	failure: ApiFailure,
	scope: ScopeRequirement,
	itemIndex?: number,
) {
	return toNodeApiError(ctx.getNode(), failure, scope, itemIndex);
}

const TRANSPORT_DEFAULTS = {
	/** The credential's Timeout when it has none. */
	timeoutMs: 30_000,
	/** Tries after the first for 5xx, timeouts and resets on a request that is safe to repeat. */
	maxRetries: 4,
	backoffBaseMs: 250,
	/** The longest wait a server's Retry-After on a 5xx may ask for before the next try. */
	maxRetryAfterMs: 30_000,
};

const RETRYABLE_STATUS = new Set([502, 503, 504]);

// One pacer per key and base URL, shared by every execution in this process. It only holds
// counters read from the API's own headers; a fresh process starts with none and learns from the
// first response, so a second execution or another worker never depends on it being right.
const pacers = new Map<string, Pacer>();
const MAX_PACERS = 256;

function pacerFor(baseUrl: string, apiKey: string): Pacer {
	const id = createHash('sha256').update(`${baseUrl}\n${apiKey}`).digest('hex');
	let pacer = pacers.get(id);
	if (!pacer) {
		if (pacers.size >= MAX_PACERS) pacers.delete(pacers.keys().next().value as string);
		pacer = new Pacer();
		pacers.set(id, pacer);
	}
	return pacer;
}

/** Drops undefined values and empty strings from the top level of a body or query. */
export function compact(data: IDataObject | undefined): IDataObject | undefined {
	if (!data) return undefined;
	const out: IDataObject = {};
	for (const [key, value] of Object.entries(data)) {
		if (value === undefined || value === '') continue;
		out[key] = value;
	}
	return out;
}

interface Connection {
	baseUrl: string;
	pacer: Pacer;
	redact: Redactor;
	timeoutMs: number;
	share: number;
}

/** The credential's Timeout (seconds) in milliseconds, within 0.1 s and 300 s; the default when unset. */
function timeoutOf(seconds: unknown): number {
	const value = Number(seconds);
	if (!Number.isFinite(value) || value <= 0) return TRANSPORT_DEFAULTS.timeoutMs;
	return Math.round(Math.min(300, Math.max(0.1, value)) * 1000);
}

/**
 * The part of the key's rate limit an action node's run may take per window (its "Share of the
 * Rate Limit"), 0 to 1; dropdowns and the trigger (which has its own budget) take what they need.
 */
function shareOf(ctx: ApiContext): number {
	if (!('getInputData' in ctx)) return 1;
	const percent = Number(rateShareOf(ctx as IExecuteFunctions));
	return Number.isFinite(percent) && percent > 0 && percent <= 100 ? percent / 100 : 1;
}

interface Credentialed extends Connection {
	scopes: Set<string> | null;
	problem: string | null;
	/**
	 * What the API said of the key in this run: a 401 (under `*`) or an insufficient_scope 403
	 * (under the scope). The run's later requests that would meet it fail at once, unsent.
	 */
	refusals: Map<string, ApiFailure>;
}

const scopeKey = (scope: ScopeRequirement) => JSON.stringify(scope);

/** Remembers a refusal of the key itself for the rest of the run; other failures are the item's own. */
function rememberRefusal(credentials: Credentialed, request: ApiRequest, failure: ApiFailure) {
	if (failure.status === 401) credentials.refusals.set('*', failure);
	else if (failure.status === 403 && failure.code === 'insufficient_scope')
		credentials.refusals.set(scopeKey(request.scope), failure);
}

// The credential as read once per node run (keyed by the run's context object, so nothing
// outlives the run). Items of one run share it instead of decrypting it per request.
const credentialsByRun = new WeakMap<object, Promise<Credentialed>>();

function credentialsOf(ctx: ApiContext): Promise<Credentialed> {
	return perRun(credentialsByRun, ctx, () => {
		// n8n's own error here says only "Node does not have any credentials set". (A dropdown asked
		// for before the editor has set the credential never gets here: methods/index.ts.)
		const selected = ctx.getNode().credentials?.[CREDENTIAL_TYPE];
		const read = selected
			? ctx.getCredentials(CREDENTIAL_TYPE)
			: Promise.reject(
					new NodeOperationError(
						ctx.getNode(),
						'No Messaging CRM API credential is selected: choose or create one at the top of the node',
					),
				);
		const entry = read.then((credentials) => {
			const rawBase = typeof credentials.baseUrl === 'string' ? credentials.baseUrl : '';
			const baseUrl = normalizeBaseUrl(rawBase);
			const apiKey = typeof credentials.apiKey === 'string' ? credentials.apiKey : '';
			return {
				baseUrl,
				pacer: pacerFor(baseUrl, apiKey),
				redact: redactor(apiKey),
				timeoutMs: timeoutOf(credentials.timeoutSeconds),
				share: shareOf(ctx),
				scopes: configuredScopes(credentials.scopes),
				problem: baseUrlProblem(rawBase, credentials.allowPlainHttp === true),
				refusals: new Map<string, ApiFailure>(),
			};
		});
		// A failed read is not kept: the next item tries again.
		entry.catch(() => credentialsByRun.delete(ctx));
		return entry;
	});
}

async function connect(ctx: ApiContext, request: ApiRequest): Promise<Credentialed> {
	const credentials = await credentialsOf(ctx);
	if (credentials.problem) {
		throw new NodeOperationError(ctx.getNode(), credentials.problem, {
			itemIndex: request.itemIndex,
		});
	}
	const lacking = missingScope(request.scope, credentials.scopes);
	if (lacking) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The credential's key does not carry the scope ${describeScope(lacking)} that this operation needs`,
			{ itemIndex: request.itemIndex, description: howToGetScope(lacking) },
		);
	}
	// The key was refused earlier in this run (revoked, or a scope removed, mid-run): the same
	// answer at once, without a request, retry or wait, saying this item was not sent.
	const refused =
		credentials.refusals.get('*') ?? credentials.refusals.get(scopeKey(request.scope));
	if (refused) {
		const error = toNodeApiError(ctx.getNode(), refused, request.scope, request.itemIndex);
		error.description =
			`${error.description ?? ''} Not sent: an earlier request of this run got this answer, so this item was not tried. Running the workflow again after the fix does what had not gone through.`.trim();
		throw error;
	}
	return credentials;
}

/** The server says this is its stored answer to the Idempotency-Key, not a new outcome. */
export function isReplayed(headers: Record<string, unknown>): boolean {
	return String(headerValue(headers, 'idempotent-replayed') ?? '').toLowerCase() === 'true';
}

function isSafeToRepeat(request: ApiRequest): boolean {
	return request.method === 'GET' || request.idempotent === true || !!request.idempotencyKey;
}

/** The JSON body of a successful answer; a JSON answer that does not parse is not usable. */
function parseBody(
	body: unknown,
	headers: Record<string, unknown>,
): { ok: true; value: unknown } | { ok: false } {
	if (typeof body !== 'string') return { ok: true, value: body };
	const type = headerValue(headers, 'content-type');
	if (body.trim() === '') return { ok: true, value: {} };
	if (typeof type === 'string' && !type.includes('json')) return { ok: true, value: body };
	try {
		return { ok: true, value: JSON.parse(body) };
	} catch {
		return { ok: false };
	}
}

/**
 * An answer that holds the key (a server echoing the request) has it replaced; an accepted error
 * answer (a 404 on a lookup) also loses any echoed Authorization value. The common case costs one
 * serialization and no copy.
 */
function cleanBody(body: unknown, redact: Redactor, isError: boolean): unknown {
	if (typeof body === 'string') return redact.text(body, { headers: isError });
	if (isError) return redact.value(body, { headers: true });
	const text = JSON.stringify(body);
	return text !== undefined && redact.holds(text) ? redact.value(body) : body;
}

function cleanHeaders(headers: Record<string, unknown>, redact: Redactor): Record<string, unknown> {
	return redact.holds(JSON.stringify(headers)) ? redact.value(headers, { headers: true }) : headers;
}

/**
 * Sends one API request: paces under the key's rate limit, retries what is safe to retry, and
 * turns every failure into one NodeApiError. The only function in the package that sends HTTP.
 */
export async function apiRequest<T = unknown>(
	ctx: ApiContext,
	request: ApiRequest,
): Promise<ApiResponse<T>> {
	const credentials = await connect(ctx, request);
	const { baseUrl, pacer, redact, timeoutMs, share } = credentials;
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${request.path}`,
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: timeoutMs,
	};
	const qs = compact(request.query);
	if (qs && Object.keys(qs).length) options.qs = qs;
	const headers: IDataObject = {};
	if (request.method !== 'GET') {
		// Every write carries a JSON object, `{}` when no field is set: n8n's helper would send an
		// empty object as no body at all, which a strict server refuses.
		const body = compact(request.body);
		options.body = body && Object.keys(body).length ? body : '{}';
		headers['Content-Type'] = 'application/json';
	}
	if (request.idempotencyKey) headers['Idempotency-Key'] = request.idempotencyKey;
	if (Object.keys(headers).length) options.headers = headers;

	const safe = isSafeToRepeat(request);
	const retries = retryBudget(TRANSPORT_DEFAULTS.maxRetries, TRANSPORT_DEFAULTS.backoffBaseMs);
	let attempts = 0;
	/** When the first 429 of this request came: 429s are retried for a time, not a count. */
	let refusedSince: number | undefined;
	for (;;) {
		const wait = pacer.reserve(Date.now(), share);
		if (wait > 0) {
			// Never longer than a reset the pacer believes (an hour): the pacer is asked again after.
			await sleep(Math.min(wait, MAX_RESET_AHEAD_MS));
			continue;
		}
		attempts++;
		let response: { statusCode: number; body: unknown; headers: Record<string, unknown> };
		try {
			response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_TYPE,
				options,
			)) as typeof response;
		} catch (error) {
			pacer.release();
			const code = networkCode(error);
			if (code === undefined && error instanceof NodeOperationError) {
				throw new NodeOperationError(ctx.getNode(), error, { itemIndex: request.itemIndex });
			}
			if (code && RETRYABLE_NETWORK_CODES.has(code) && safe && (await retries.next())) continue;
			throw toNodeApiError(
				ctx.getNode(),
				failureFromNetwork(code ?? 'EUNKNOWN', timeoutMs),
				request.scope,
				request.itemIndex,
			);
		}

		const now = Date.now();
		const headers = response.headers ?? {};
		const rateLimit = parseRateLimitHeaders(headers, now);
		const refused =
			response.statusCode === 429
				? { retryAfterMs: parseRetryAfter(headers, now, pacer.serverClockOffset) }
				: undefined;
		pacer.observe(rateLimit, now, refused);
		const status = response.statusCode;
		if (status < 400 || request.acceptStatus?.includes(status)) {
			const parsed = parseBody(response.body, headers);
			if (parsed.ok)
				return {
					status,
					body: cleanBody(parsed.value, redact, status >= 400) as T,
					headers: cleanHeaders(headers, redact),
					rateLimit,
					attempts,
					...(status >= 400
						? { failure: { ...failureFromResponse(status, response.body, redact), attempts } }
						: {}),
				};
			// A success whose body cannot be read: like a lost answer, retried only when safe to repeat.
			if (safe && (await retries.next())) continue;
			throw toNodeApiError(
				ctx.getNode(),
				failureFromNetwork('ERR_BAD_RESPONSE', timeoutMs),
				request.scope,
				request.itemIndex,
			);
		}

		if (refused) {
			// A 429 is refused before anything happens, so any request may be repeated; the pacer
			// holds it until a probe finds the new window, for as long as its patience allows.
			refusedSince ??= now;
			if (pacer.mayRetry(refusedSince, now)) continue;
		}
		const failure = failureFromResponse(status, response.body, redact);
		failure.attempts = attempts;
		if (isReplayed(headers)) failure.replayed = true;
		rememberRefusal(credentials, request, failure);
		const usual = RETRYABLE_STATUS.has(status) && safe;
		const retryable = request.retryWhen ? request.retryWhen(failure, usual) : usual;
		// A 503 (or other 5xx) may say when to come back; otherwise the backoff decides.
		if (retryable && (await retries.next(parseRetryAfter(headers, now)))) continue;
		throw toNodeApiError(ctx.getNode(), failure, request.scope, request.itemIndex);
	}
}

/**
 * The retries of one request after a 5xx, a timeout, a reset or an unreadable answer: `next`
 * waits the backoff and says whether another try is allowed.
 */
function retryBudget(
	max: number,
	baseMs: number,
): { next(serverWaitMs?: number): Promise<boolean> } {
	let used = 0;
	return {
		async next(serverWaitMs?: number) {
			if (used >= max) return false;
			used++;
			const wait =
				serverWaitMs !== undefined
					? Math.min(serverWaitMs, TRANSPORT_DEFAULTS.maxRetryAfterMs)
					: backoffMs(used, Math.random(), baseMs);
			await sleep(wait);
			return true;
		},
	};
}
