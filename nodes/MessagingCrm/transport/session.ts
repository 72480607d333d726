import { createHash } from 'crypto';
import type { IExecuteFunctions, ILoadOptionsFunctions, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { perRun } from '../helpers/perRun';
import { pacerSharePercentOf } from '../helpers/pacerShare';
import type { ScopeRequirement } from '../helpers/scopes';
import { configuredScopes, describeScope, howToGetScope, missingScope } from '../helpers/scopes';
import { baseUrlProblem, normalizeBaseUrl } from '../helpers/url';
import type { Refusal } from '../helpers/validate';
import { refusing } from '../helpers/validate';
import type { ApiFailure } from './errors';
import { toNodeApiError } from './errors';
import { Pacer } from './rateLimit';
import type { Redactor } from './redact';
import { redactor } from './redact';

/**
 * The session of a node run with the API, apart from the send loop (request.ts): the credential
 * read once per run and its rules (base URL, scopes, timeout, the node's share of the rate limit),
 * the key's pacer, and what the API said of the key itself during the run.
 */

/** n8n's name of the package's credential type. */
export const CREDENTIAL_TYPE = 'messagingCrmApi';

export type ApiContext = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions;

/** What the session checks of a request before it is sent: the scope it needs, the item it is for. */
export interface SessionRequest {
	scope: ScopeRequirement;
	itemIndex?: number;
}

/** The credential's Timeout when it has none. */
const DEFAULT_TIMEOUT_MS = 30_000;

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

interface Connection {
	baseUrl: string;
	pacer: Pacer;
	redact: Redactor;
	timeoutMs: number;
	pacerShare: number;
}

/** The credential's Timeout (seconds) in milliseconds, within 0.1 s and 300 s; the default when unset. */
function timeoutOf(seconds: unknown): number {
	const value = Number(seconds);
	if (!Number.isFinite(value) || value <= 0) return DEFAULT_TIMEOUT_MS;
	return Math.round(Math.min(300, Math.max(0.1, value)) * 1000);
}

/**
 * The part of the key's rate limit an action node's run may take per window (its "Share of the
 * Rate Limit"), 0 to 1; dropdowns and the trigger (which has its own budget) take what they need.
 */
function pacerShareOf(ctx: ApiContext): number {
	if (!('getInputData' in ctx)) return 1;
	const percent = Number(pacerSharePercentOf(ctx as IExecuteFunctions));
	return Number.isFinite(percent) && percent > 0 && percent <= 100 ? percent / 100 : 1;
}

/**
 * How many requests the run asking still has to send, this one included, as far as the transport
 * knows: an action run's items from this one on (one request each at least); 1 for dropdowns and
 * the trigger. The pacer lets a run that fits what the window has free go at once.
 */
export function requestsLeft(ctx: ApiContext, itemIndex?: number): number {
	if (!('getInputData' in ctx) || itemIndex === undefined) return 1;
	return Math.max(1, (ctx as IExecuteFunctions).getInputData().length - itemIndex);
}

/** A node run's session: its connection, the credential's scopes and problem, the key's refusals. */
export interface Credentialed extends Connection {
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
export function rememberRefusal(
	credentials: Credentialed,
	request: SessionRequest,
	failure: ApiFailure,
) {
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
					refusing(
						new NodeOperationError(
							ctx.getNode(),
							'No Messaging CRM API credential is selected: choose or create one at the top of the node',
						),
						setupRefusal('this tool has no credential for the CRM'),
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
				pacerShare: pacerShareOf(ctx),
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

/**
 * A credential that cannot be used, as a tool caller reads it: nothing the caller can change. The
 * API has no code for it (no request is made): `credential_problem` is the node's own.
 */
function setupRefusal(problem: string): Refusal {
	return {
		code: 'credential_problem',
		caller: problem,
		next: 'Nothing was sent. Calling again will not help: whoever set up this tool in n8n must fix its credential.',
	};
}

/**
 * The run's session for one request, checked before anything is sent: a base URL the credential's
 * rules refuse, a scope its key does not carry, or a refusal of the key earlier in the run fails it.
 */
export async function connect(ctx: ApiContext, request: SessionRequest): Promise<Credentialed> {
	const credentials = await credentialsOf(ctx);
	if (credentials.problem) {
		throw refusing(
			new NodeOperationError(ctx.getNode(), credentials.problem, {
				itemIndex: request.itemIndex,
			}),
			setupRefusal("the address of the CRM in this tool's credential is refused"),
		);
	}
	const lacking = missingScope(request.scope, credentials.scopes);
	if (lacking) {
		throw refusing(
			new NodeOperationError(
				ctx.getNode(),
				`The credential's key does not carry the scope ${describeScope(lacking)} that this operation needs`,
				{ itemIndex: request.itemIndex, description: howToGetScope(lacking) },
			),
			{
				// The API's answer to the same request (403), said before it is sent.
				code: 'insufficient_scope',
				caller: `the key of this tool's credential does not carry the scope ${describeScope(lacking)} that this call needs`,
				next: `Nothing was sent. Calling again will not help: whoever set up this tool in n8n must give it a key that carries the scope. ${howToGetScope(lacking)}`,
			},
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
