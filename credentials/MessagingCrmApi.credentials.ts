import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class MessagingCrmApi implements ICredentialType {
	name = 'messagingCrmApi';

	displayName = 'Messaging CRM API';

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-messaging-crm';

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
			placeholder: 'https://api.example.com/company/v1',
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
				'The company key minted by the company owner (company settings → API tab). It is shown only once: paste it here.',
		},
		{
			displayName: 'Scopes of This Key',
			name: 'scopes',
			type: 'multiOptions',
			default: [],
			description:
				'Optional hints: the scopes the key was minted with. When set, an operation whose scope is missing fails at once with a clear message instead of calling the API. Leave empty to let the API decide.',
			options: [
				{ name: 'agents:read', value: 'agents:read' },
				{ name: 'customers:read', value: 'customers:read' },
				{ name: 'customers:write', value: 'customers:write' },
				{ name: 'messages:send', value: 'messages:send' },
				{ name: 'messages:template', value: 'messages:template' },
				{ name: 'pipelines:read', value: 'pipelines:read' },
				{ name: 'promo:read', value: 'promo:read' },
				{ name: 'promo:write', value: 'promo:write' },
				{ name: 'templates:manage', value: 'templates:manage' },
			],
		},
		{
			displayName: 'Allow Plain HTTP',
			name: 'allowPlainHttp',
			type: 'boolean',
			default: false,
			description:
				'Whether to allow an http:// base URL on a host other than this machine. Off by default: over plain HTTP the key travels in clear text.',
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
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
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
