import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { ScopeRequirement } from '../helpers/scopes';
import { describeScope, howToGetScope } from '../helpers/scopes';
import type { Redactor } from './redact';

/** What a failed call said, in the shape every error of this package carries. */
export interface ApiFailure {
	/** HTTP status, absent when no response arrived. */
	status?: number;
	code: string;
	message: string;
	details: IDataObject;
	/** The server answered with its stored answer to this Idempotency-Key (`Idempotent-Replayed`). */
	replayed?: boolean;
	/** HTTP tries the request took, this answer's included. */
	attempts?: number;
}

function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads the `{error: {code, message, details}}` envelope, or null when the body is something else. */
export function readEnvelope(body: unknown): Omit<ApiFailure, 'status'> | null {
	let parsed = body;
	if (typeof body === 'string') {
		try {
			parsed = JSON.parse(body);
		} catch {
			return null;
		}
	}
	if (!isObject(parsed) || !isObject(parsed.error)) return null;
	const { code, message, details } = parsed.error;
	if (typeof code !== 'string' && typeof message !== 'string') return null;
	return {
		code: typeof code === 'string' && code ? code : 'error',
		message: typeof message === 'string' ? message : '',
		details: isObject(details) ? details : {},
	};
}

const STATUS_CODES: Record<number, string> = {
	400: 'bad_request',
	401: 'unauthorized',
	403: 'forbidden',
	404: 'not_found',
	409: 'conflict',
	422: 'validation_error',
	429: 'rate_limited',
	500: 'server_error',
	502: 'bad_gateway',
	503: 'service_unavailable',
	504: 'gateway_timeout',
};

/** The start of a non-envelope body as one line; redacted before it is cut, so no cut splits the key. */
function snippet(body: unknown, redact: Redactor): string {
	const text = typeof body === 'string' ? body : JSON.stringify(body ?? '');
	const plain = text
		.replace(/<[^>]*>/g, ' ')
		.replace(/\s+/g, ' ')
		.trim();
	const clean = redact.text(plain, { headers: true });
	return clean.length > 160 ? `${clean.slice(0, 157)}...` : clean;
}

/**
 * Any HTTP error response, envelope or not, as an ApiFailure. Nothing of the key (and no echoed
 * Authorization value) survives in the message or the details: the one place answers become text.
 */
export function failureFromResponse(status: number, body: unknown, redact: Redactor): ApiFailure {
	const envelope = readEnvelope(body);
	if (envelope) return { status, ...redact.value(envelope, { headers: true }) };
	const text = snippet(body, redact);
	return {
		status,
		code: STATUS_CODES[status] ?? `http_${status}`,
		message: text
			? `The API answered ${status} without its usual envelope: ${text}`
			: `The API answered ${status} with an empty body`,
		details: {},
	};
}

// Code names are our own words, not the system's E-codes: n8n rewrites messages that contain
// those into generic sentences, and the envelope-style code is what users branch on.
const NETWORK_FAILURES: Record<string, [code: string, message: string]> = {
	ECONNRESET: ['connection_reset', 'The connection was reset before the API answered'],
	EPIPE: ['connection_closed', 'The connection was closed while the request was being sent'],
	ECONNABORTED: ['timeout', 'The API did not answer in time'],
	ETIMEDOUT: ['timeout', 'The API did not answer in time'],
	ESOCKETTIMEDOUT: ['timeout', 'The API did not answer in time'],
	ECONNREFUSED: ['connection_refused', 'Nothing answers at the Base URL (connection refused)'],
	ENOTFOUND: ['host_not_found', 'The host of the Base URL was not found'],
	EAI_AGAIN: ['dns_failure', 'The host of the Base URL could not be resolved right now'],
	ERR_BAD_RESPONSE: ['bad_response', 'The API sent a response that could not be read'],
};

/** Network failures worth another try for a request that is safe to repeat. */
export const RETRYABLE_NETWORK_CODES = new Set([
	'ECONNRESET',
	'EPIPE',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EAI_AGAIN',
	'ERR_BAD_RESPONSE',
]);

/** Finds the system error code (ECONNRESET …) in an error thrown by the HTTP helper, if any. */
export function networkCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && isObject(current); depth++) {
		const code = current.code;
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		if (typeof code === 'string' && code === 'ERR_BAD_RESPONSE') return code;
		const message = current.message;
		if (typeof message === 'string') {
			if (/socket hang up/i.test(message)) return 'ECONNRESET';
			const timeout = /timeout of \d+ms exceeded/i.test(message);
			if (timeout) return 'ECONNABORTED';
		}
		current = current.cause;
	}
	return undefined;
}

export function failureFromNetwork(systemCode: string, timeoutMs: number): ApiFailure {
	const [code, base] = NETWORK_FAILURES[systemCode] ?? [
		'network_error',
		'The request failed before the API answered',
	];
	const message = code === 'timeout' ? `${base} (${timeoutMs} ms)` : base;
	return { code, message, details: { network: systemCode } };
}

/**
 * What each refusal of a send means and what to do next, for a person reading the error and for
 * an AI agent that gets it as the tool's answer (api-spec: Errors).
 */
const SEND_REFUSALS: Record<string, string> = {
	no_peer:
		'Nothing was sent: the customer never pressed Start in the bot, and a bot cannot write first. Once they have, run the workflow again: this item is tried anew, and what had gone through is not sent twice. Or use another of their messengers.',
	recipient_unreachable:
		'Nothing was sent: the customer blocked the bot, deleted the account, or is not on this messenger. Usually final: use another of their messengers. Running the workflow again tries this item once more (a customer may unblock the bot); a refused try leaves a failed copy in the CRM dialog.',
	channel_unavailable:
		"Nothing was sent: the company's connection to this messenger is broken (revoked token, missing rights, dropped session). Once an operator reconnects it in the CRM, run the workflow again: this item is tried anew, and what had gone through is not sent twice.",
	send_rejected:
		'Nothing was sent: the messenger refused without a reason. Usually final; running the workflow again tries this item once more, and a refused try leaves a failed copy in the CRM dialog.',
	bizchat_window_closed:
		"Nothing was sent: free-form text is allowed only within 24 hours of the customer's last message on this messenger. Send an approved business-chat template instead, or run the workflow again after the customer writes: this item is tried anew.",
	send_failed:
		"The messenger did not answer in time, also on the node's one retry. Run the workflow again later: this item is tried anew, and what had gone through is not sent twice.",
};

/** What to do when the API does not know an ID, by the kind of thing it names. */
const NOT_FOUND: Record<string, string> = {
	customer:
		"No customer of this key's company has this ID: a typo, an ID from another company, or a card merged into another. Look the customer up instead: set Customer to By Phone, By Email or By Messenger. Or map the ID from a Create or Update or Find step.",
	deal: 'No deal has this ID: pick the deal By Customer and Pipeline instead, or map the ID from Get Many deals of the customer.',
	pool: "No promo pool of this key's company has this ID: pick the pool from the list, or map the ID from Get Many promo pools.",
	agent: "No agent of this key's company has this ID: pick one from the Agent list.",
	pipeline: 'No pipeline has this ID: pick one from the Pipeline list.',
	stage: 'No stage of this pipeline has this ID or code: pick one from the Stage list.',
};

/**
 * The kind of thing a not_found names: `details.resource`, or the message's first word, without
 * "promo" ("promo pool" is a pool); a customer whatever the form ("customers", a merge's "donor");
 * '' when it names none.
 */
export function notFoundKind(failure: ApiFailure): string {
	const named =
		typeof failure.details.resource === 'string'
			? failure.details.resource
			: (/^\s*(?:promo[\s_-]*)?([a-z_]+)/i.exec(failure.message)?.[1] ?? '');
	const kind = named
		.toLowerCase()
		.replace(/^promo[\s_-]*/, '')
		.trim();
	return /^(customer|donor)/.test(kind) ? 'customer' : kind;
}

/**
 * What to do next, under the error's code and message: for a person reading the error and for an
 * AI agent that gets it as the tool's answer.
 */
function hint(failure: ApiFailure, scope: ScopeRequirement): string | undefined {
	const refusal = SEND_REFUSALS[failure.code];
	if (refusal) return refusal;
	if (failure.code === 'insufficient_scope') {
		return `This operation needs the scope ${describeScope(scope)}, which the key lacks. ${howToGetScope(scope)}`;
	}
	if (failure.code === 'idempotency_key_reused') {
		return 'Your Idempotency Key was used within 24 hours for a different request, so the API refused this one and changed nothing. Map a key that is unique per request (a form submission or order ID), or clear the option to let Repeat Protection make one.';
	}
	if (failure.status === 401) {
		return 'The API refused the key: it is missing, mistyped or revoked. Mint a new key in the company settings (API tab) and update the credential.';
	}
	if (failure.status === 403) {
		return 'The API does not let this key do this. Check that the key belongs to the right company and carries the scope the operation names; mint a new one in the company settings (API tab) if not.';
	}
	if (failure.status === 404 || failure.code === 'not_found') {
		return (
			NOT_FOUND[notFoundKind(failure)] ??
			"The API does not know this ID, or this address. Pick the value from its list in the node, or map it from a step that read it; if every operation answers this, check the credential's Base URL."
		);
	}
	if (failure.status === 409 && failure.code === 'conflict') {
		return 'The API refused because of the current state and changed nothing (for a deal: the customer already has an active deal in that pipeline, or the stage is in another pipeline). Read the state first (Get Many deals of the customer), then move or close the deal instead.';
	}
	if (failure.status === 409) {
		return 'The API refused because of the current state and changed nothing. Read the current state first, then run the item again.';
	}
	if (failure.status === 422 || failure.code === 'validation_error') {
		return 'The API refused a value and changed nothing: the message names it. Correct that field (or the data mapped into it) and run the item again.';
	}
	if (failure.status === 429) {
		return 'The rate limit stayed exhausted through every retry. Lower the number of items per run, lower Options → Share of the Rate Limit in other workflows on this key, or spread the runs out.';
	}
	if (failure.status !== undefined && failure.status >= 500) {
		return 'The API could not answer on its side, and the node already retried. Run the workflow again in a few minutes: what went through is not done twice (Repeat Protection), reads are safe to repeat.';
	}
	if (failure.status === undefined) {
		return 'No answer arrived from the API. If this repeats, check the Base URL and the network between n8n and the API.';
	}
	return undefined;
}

/**
 * The one place an API failure becomes an n8n error: message "<code>: <message>", the HTTP
 * code, and the envelope's details in `context.apiError` for the error output.
 */
export function toNodeApiError(
	node: INode,
	failure: ApiFailure,
	scope: ScopeRequirement,
	itemIndex?: number,
): NodeApiError {
	let message = failure.message ? `${failure.code}: ${failure.message}` : failure.code;
	const variable = failure.details.variable;
	if (typeof variable === 'string' && !message.includes(variable))
		message += ` (variable "${variable}")`;
	if (itemIndex !== undefined) message += ` [item ${itemIndex + 1}]`;
	// `message` is left out on purpose: NodeApiError would copy it into the description.
	const response: JsonObject = {
		code: failure.code,
		apiMessage: failure.message,
		details: failure.details as JsonObject,
	};
	if (failure.status !== undefined) response.httpCode = String(failure.status);
	const error = new NodeApiError(node, response, {
		message,
		description: hint(failure, scope),
		httpCode: failure.status === undefined ? undefined : String(failure.status),
		itemIndex,
	});
	error.context.apiError = { ...failure } as unknown as IDataObject;
	return error;
}

/** The ApiFailure carried by an error of this package, if it is one. */
export function apiFailureOf(error: unknown): ApiFailure | undefined {
	if (!isObject(error) || !isObject(error.context)) return undefined;
	const failure = error.context.apiError;
	return isObject(failure) ? (failure as unknown as ApiFailure) : undefined;
}
