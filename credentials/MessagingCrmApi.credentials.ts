import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { SCOPES } from '../nodes/MessagingCrm/helpers/scopes';

/**
 * The credential test's base URL, as an n8n expression (a declarative test cannot run code of
 * ours): trailing slashes dropped; a user name or password in the address, or plain http:// on a
 * host other than this machine (unless allowed), turns it into an address that cannot be requested,
 * so the test stops before the key is sent. n8n's expressions swallow a thrown error, hence a
 * returned marker rather than a throw. Its verdicts are checked against the node's own rule
 * (`baseUrlProblem`) in the tests: never looser.
 */
const CREDENTIAL_TEST_BASE_URL =
	'={{ (() => { const url = ("" + ($credentials.baseUrl || "")).trim().replace(/\\/+$/, ""); ' +
	'const plain = /^http:\\/\\/(\\[[^\\]]*\\]|[^\\/:?#]*)/i.exec(url); ' +
	'const host = plain ? plain[1].toLowerCase() : ""; ' +
	'const loopback = host === "localhost" || host === "[::1]" || /^127(\\.\\d{1,3}){3}$/.test(host); ' +
	'const userInfo = /^[a-z][a-z0-9+.-]*:\\/\\/[^\\/?#]*@/i.test(url); ' +
	'return userInfo || (plain && $credentials.allowPlainHttp !== true && !loopback) ? "refused: plain http or credentials in the Base URL" : url; })() }}';

export class MessagingCrmApi implements ICredentialType {
	name = 'messagingCrmApi';

	displayName = 'Messaging CRM API';

	documentationUrl =
		'https://github.com/n8n-nodes-messaging-crm/n8n-nodes-messaging-crm/blob/main/docs/credentials.md';

	icon: Icon = {
		light: 'file:../icons/messagingCrm.svg',
		dark: 'file:../icons/messagingCrm.dark.svg',
	};

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://api.example.com/company/v1',
			description:
				'The address every API path is relative to, as shown on the API tab of the company settings. A trailing slash is fine.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				"The company key minted by the company owner (company settings → API tab). It is shown only once: paste it here. Test checks it with GET /agents: a valid key without agents:read also passes, with n8n's usual success message (a credential test cannot show its own).",
		},
		{
			displayName: 'Scopes of This Key',
			name: 'scopes',
			type: 'multiOptions',
			default: [],
			description:
				'Optional hints: the scopes the key was minted with. When set, an operation whose scope is missing fails at once with a clear message instead of calling the API. Leave empty to let the API decide.',
			options: [...SCOPES].sort().map((scope) => ({ name: scope, value: scope })),
		},
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeoutSeconds',
			type: 'number',
			typeOptions: { minValue: 0.1, maxValue: 300, numberPrecision: 1 },
			default: 30,
			description:
				'How long to wait for the answer to one request. A request that is safe to repeat is tried again after a timeout (a send with the same Idempotency-Key); any other fails its item with code timeout.',
		},
		{
			displayName: 'Allow Plain HTTP',
			name: 'allowPlainHttp',
			type: 'boolean',
			default: false,
			description:
				'Whether to allow an http:// base URL on a host other than this machine. Off by default: over plain HTTP the key travels in clear text, so every operation refuses such an address, and Test stops before sending anything (n8n then shows ERR_BAD_REQUEST).',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};

	// GET /agents. A 403 `insufficient_scope` proves the key is valid (it only lacks
	// agents:read), so HTTP errors are not fatal here and the rules below decide.
	// The base URL obeys the node's rule before the key is sent: plain http:// only to this
	// machine unless Allow Plain HTTP is on; otherwise the expression stops the test with the reason.
	test: ICredentialTestRequest = {
		request: {
			baseURL: CREDENTIAL_TEST_BASE_URL,
			url: '/agents',
			method: 'GET',
			ignoreHttpStatusErrors: true,
		},
		rules: [
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.code',
					value: 'unauthorized',
					message:
						'The API refused this key (401 unauthorized): it is missing, mistyped or revoked. Mint a new key in the company settings (API tab).',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.code',
					value: 'not_found',
					message:
						'The Base URL answers, but not with this API (404 on /agents). Check the Base URL.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.code',
					value: 'rate_limited',
					message: 'The key is rate limited right now (429). Try the test again in a minute.',
				},
			},
		],
	};
}
