import { MessagingCrmApi } from '../../credentials/MessagingCrmApi.credentials';
import { configuredScopes, missingScope, SCOPES } from '../../nodes/MessagingCrm/helpers/scopes';
import {
	baseUrlProblem,
	normalizeBaseUrl,
	pathSegment,
} from '../../nodes/MessagingCrm/helpers/url';
import {
	failureFromResponse,
	networkCode,
	readEnvelope,
} from '../../nodes/MessagingCrm/transport/errors';
import { redactor } from '../../nodes/MessagingCrm/transport/redact';
import { compact } from '../../nodes/MessagingCrm/transport/request';
import { ALL_SCOPES } from '../sandbox/server';

describe('base URL', () => {
	it('tolerates trailing slashes', () => {
		expect(normalizeBaseUrl(' https://x.example/api/// ')).toBe('https://x.example/api');
	});
	it('allows https anywhere and plain http on loopback only, unless allowed', () => {
		expect(baseUrlProblem('https://crm.example/api', false)).toBeNull();
		expect(baseUrlProblem('http://127.0.0.1:4010', false)).toBeNull();
		expect(baseUrlProblem('http://localhost:4010', false)).toBeNull();
		expect(baseUrlProblem('http://crm.example/api', false)).toMatch(/clear text/);
		expect(baseUrlProblem('http://crm.example/api', true)).toBeNull();
		expect(baseUrlProblem('ftp://crm.example', true)).toMatch(/https/);
		expect(baseUrlProblem('crm.example', true)).toMatch(/not a valid address/);
		expect(baseUrlProblem('', true)).toMatch(/no Base URL/);
	});
	it('keeps path values inside their segment', () => {
		expect(pathSegment('../admin?x=1#y')).toBe('..%2Fadmin%3Fx%3D1%23y');
		expect(pathSegment('CODE-1')).toBe('CODE-1');
		expect(pathSegment('50%/off')).toBe('50%25%2Foff');
	});
	it('refuses dot segments in every spelling, since URL parsers resolve even the encoded ones', () => {
		// Why encoding is not enough: the WHATWG URL parser (axios, fetch) resolves %2E%2E as "..".
		expect(new URL('http://h/api/promo-codes/%2E%2E').pathname).toBe('/api/');
		for (const bad of ['.', '..', '%2e', '%2E%2e', '.%2E', '%2e.', ''])
			expect(() => pathSegment(bad)).toThrow(/cannot be a segment/);
		for (const fine of ['...', '.a', 'a.', '%2e%2e%2e'])
			expect(() => pathSegment(fine)).not.toThrow();
	});
});

describe('scope hints', () => {
	it('are ignored when empty and checked when set, alternatives included', () => {
		expect(missingScope('promo:read', configuredScopes([]))).toBeNull();
		expect(missingScope('promo:read', configuredScopes(['promo:write']))).toBe('promo:read');
		expect(
			missingScope(['messages:template', 'agents:read'], configuredScopes(['agents:read'])),
		).toBeNull();
	});
});

describe('error mapping', () => {
	it('reads the envelope from an object or a JSON string', () => {
		const body = { error: { code: 'conflict', message: 'Busy', details: { pipeline_id: 'p' } } };
		expect(readEnvelope(body)).toEqual({
			code: 'conflict',
			message: 'Busy',
			details: { pipeline_id: 'p' },
		});
		expect(readEnvelope(JSON.stringify(body))?.code).toBe('conflict');
		expect(readEnvelope('<html>')).toBeNull();
		expect(readEnvelope({ message: 'x' })).toBeNull();
	});
	it('describes a response without an envelope by its status', () => {
		expect(
			failureFromResponse(502, '<html><h1>Bad Gateway</h1></html>', redactor('mcrm_live_key_0001')),
		).toMatchObject({
			status: 502,
			code: 'bad_gateway',
			message: 'The API answered 502 without its usual envelope: Bad Gateway',
		});
		expect(failureFromResponse(418, '', redactor('mcrm_live_key_0001')).code).toBe('http_418');
	});
	it('finds system error codes however deep the HTTP helper wrapped them', () => {
		expect(networkCode({ cause: { cause: { code: 'ECONNRESET' } } })).toBe('ECONNRESET');
		expect(networkCode({ message: 'timeout of 30000ms exceeded' })).toBe('ECONNABORTED');
		expect(networkCode(new Error('plain'))).toBeUndefined();
	});
	it('drops empty top-level fields but keeps null, false and 0', () => {
		expect(compact({ a: undefined, b: '', c: null, d: false, e: 0, f: 'x' })).toEqual({
			c: null,
			d: false,
			e: 0,
			f: 'x',
		});
	});
});

describe('one scope list', () => {
	it('the credential offers the scopes the node checks, and the sandbox knows the same nine', () => {
		const offered = new MessagingCrmApi().properties
			.find((p) => p.name === 'scopes')
			?.options?.map((o) => ('value' in o ? o.value : undefined));
		expect(offered).toEqual([...SCOPES].sort());
		expect([...ALL_SCOPES].sort()).toEqual([...SCOPES].sort());
	});
});
