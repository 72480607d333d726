import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { ScopeRequirement } from '../helpers/scopes';
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
import type { Redactor } from './redact';
import type { ApiContext } from './session';
import { connect, CREDENTIAL_TYPE, rememberRefusal, requestsLeft } from './session';

// The run's session (credential, scopes, pacer, remembered refusals) is session.ts; what the rest
// of the package imports of it is here too.
export type { ApiContext } from './session';
export { CREDENTIAL_TYPE } from './session';

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
	/** Tries after the first for 5xx, timeouts and resets on a request that is safe to repeat. */
	maxRetries: 4,
	backoffBaseMs: 250,
	/** The longest wait a server's Retry-After on a 5xx may ask for before the next try. */
	maxRetryAfterMs: 30_000,
};

const RETRYABLE_STATUS = new Set([502, 503, 504]);

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
	const { baseUrl, pacer, redact, timeoutMs, pacerShare } = credentials;
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
	const wanting = requestsLeft(ctx, request.itemIndex);
	for (;;) {
		const wait = pacer.reserve(Date.now(), pacerShare, wanting);
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

/** Exponential backoff with jitter, for attempt 1, 2, 3 … (a server error or a network failure). */
export function backoffMs(attempt: number, random: number, baseMs = 250, capMs = 8000): number {
	const ceiling = Math.min(capMs, baseMs * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + (ceiling / 2) * random);
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
