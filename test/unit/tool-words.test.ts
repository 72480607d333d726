/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
import { readFileSync, readdirSync, statSync } from 'fs';
import path from 'path';

import ts from 'typescript';

import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	failureAnswer,
	failureForMcp,
	inClientWords,
} from '../../nodes/MessagingCrm/actions/asTool';
import { execute as findCustomer } from '../../nodes/MessagingCrm/actions/customer/find.operation';
import { execute as mergeCustomers } from '../../nodes/MessagingCrm/actions/customer/merge.operation';
import { execute as upsertCustomer } from '../../nodes/MessagingCrm/actions/customer/upsert.operation';
import { errorItem } from '../../nodes/MessagingCrm/actions/errorItems';
import { messengersToTry } from '../../nodes/MessagingCrm/actions/message/bestAvailable';
import { windowRefusal } from '../../nodes/MessagingCrm/actions/message/delivery';
import { execute as findCodeOwner } from '../../nodes/MessagingCrm/actions/promoCode/findOwner.operation';
import {
	optionalEmail,
	optionalPhone,
	optionalText,
} from '../../nodes/MessagingCrm/helpers/bounds';
import { refusalOf, segmentParam, uuidParam } from '../../nodes/MessagingCrm/helpers/validate';
import { customerRef, lookupQuery, resolveRef } from '../../nodes/MessagingCrm/shared/customer';
import { resolveDealId } from '../../nodes/MessagingCrm/shared/deal';
import { limitOf } from '../../nodes/MessagingCrm/shared/descriptions';
import {
	customKey,
	repeatFields,
	SEND_WORDS,
	UPSERT_WORDS,
} from '../../nodes/MessagingCrm/shared/idempotency';
import {
	customerDeals,
	customerMessengers,
	lookupCustomer,
} from '../../nodes/MessagingCrm/shared/reads';
import type { ApiFailure } from '../../nodes/MessagingCrm/transport/errors';
import { toNodeApiError } from '../../nodes/MessagingCrm/transport/errors';
import { apiRequest } from '../../nodes/MessagingCrm/transport/request';
import { connect } from '../../nodes/MessagingCrm/transport/session';

// The reads and the request a refusal follows answer as the case needs; the refusals themselves
// are made by the node's own functions.
jest.mock('../../nodes/MessagingCrm/shared/reads', () => ({
	...jest.requireActual('../../nodes/MessagingCrm/shared/reads'),
	lookupCustomer: jest.fn(),
	customerDeals: jest.fn(),
	customerMessengers: jest.fn(),
}));
jest.mock('../../nodes/MessagingCrm/transport/request', () => ({
	...jest.requireActual('../../nodes/MessagingCrm/transport/request'),
	apiRequest: jest.fn(),
}));

const node: INode = {
	id: 'n',
	name: 'Send_text',
	type: 'n8n-nodes-messaging-crm.messagingCrmTool',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** Every kind of failure the transport writes a hint for (transport/errors.ts). */
const failures: ApiFailure[] = [
	...[
		'no_peer',
		'recipient_unreachable',
		'channel_unavailable',
		'send_rejected',
		'bizchat_window_closed',
		'send_failed',
	].map((code) => ({ code, message: 'refused', details: {}, status: 409 })),
	{ code: 'insufficient_scope', message: 'no', details: {}, status: 403 },
	{ code: 'idempotency_key_reused', message: 'no', details: {}, status: 422 },
	{ code: 'unauthorized', message: 'no', details: {}, status: 401 },
	{ code: 'forbidden', message: 'no', details: {}, status: 403 },
	...['customer', 'deal', 'pool', 'agent', 'pipeline', 'stage', 'thing'].map((resource) => ({
		code: 'not_found',
		message: 'not found',
		details: { resource },
		status: 404,
	})),
	{ code: 'conflict', message: 'no', details: {}, status: 409 },
	{ code: 'state', message: 'no', details: {}, status: 409 },
	{ code: 'validation_error', message: 'no', details: {}, status: 422 },
	{ code: 'rate_limited', message: 'no', details: {}, status: 429 },
	{ code: 'internal', message: 'no', details: {}, status: 500 },
	{ code: 'timeout', message: 'no', details: {} },
];

/**
 * Words that name a workflow builder's things, not a tool caller's: the workflow and its items
 * ("Item 1"), nodes and steps, what to map, events and re-runs, in any case; and, as the editor
 * writes them, its fields, options and modes ("Switch Content to …", "Options → Repeat
 * Protection", By Phone, a field in quotes).
 */
const BUILDER_WORDS = new RegExp(
	[
		/\bworkflows?\b|\bitems?\b|\bnodes?\b|\bmap\b|\bstep\b|\bfrom (?:the|its) \w+ list\b/,
		/\bsame event\b|\bre-run\b/,
	]
		.map((part) => part.source)
		.join('|'),
	'i',
);
const EDITOR_NAMES = new RegExp(
	[
		/\bItem \d|\b(?:Options|Customer|Deal) →|\bBy (?:Phone|Email|Messenger|ID)\b/,
		/\bSwitch\b|\bContent\b|\bRepeat Protection\b|Every Execution Sends|\bIdempotency Key\b/,
		/If the 24-Hour Window|Send a Template Instead|Check 24-Hour Window|Fail If Not Found/,
		/Best Available|"(?:Customer|Text|Messenger)"/,
	]
		.map((part) => part.source)
		.join('|'),
);

/** The builder's words in a text meant for a tool caller (none, for a good one). */
function builderWordsIn(text: unknown): string[] {
	const said = String(text);
	return [BUILDER_WORDS, EDITOR_NAMES].flatMap((words) =>
		[...said.matchAll(new RegExp(words.source, `${words.flags}g`))].map((m) => m[0]),
	);
}

describe('a failure in the words of a tool caller (AI agent, MCP client)', () => {
	it.each(failures.map((f) => [`${f.code} ${String(f.details.resource ?? f.status ?? '')}`, f]))(
		'%s: what to do next names no workflow, item, node, option or step',
		(_name, failure) => {
			const error = toNodeApiError(node, failure as ApiFailure, 'customers:write', 0);
			const answer = failureAnswer(error);
			expect(builderWordsIn(answer.error)).toEqual([]);
			// The hint itself is there, not dropped.
			if (error.description)
				expect(String(answer.error).length).toBeGreaterThan(error.message.length + 20);
		},
	);

	it('catches a hint written for a builder (planted)', () => {
		expect(builderWordsIn(inClientWords('Fix it, then rerun the workflow.'))).toEqual(['workflow']);
		expect(inClientWords('Once they have, run the workflow again: this item is tried anew.')).toBe(
			'Once they have, call this tool again: the same call is tried anew.',
		);
	});
});

/** A node context as a refusal's function reads it: its parameters, a tool's type or the node's. */
function contextOf(parameters: IDataObject = {}, extra: Partial<INode> = {}): IExecuteFunctions {
	const own: INode = { ...node, ...extra };
	return {
		getNode: () => own,
		getNodeParameter: (name: string, _item: number, fallback?: unknown) =>
			name in parameters ? parameters[name] : fallback,
		getCredentials: async () => await Promise.resolve(parameters.credential ?? {}),
		getInputData: () => [{ json: {} }],
	} as unknown as IExecuteFunctions;
}

const tool = contextOf();
const editor = contextOf({}, { type: 'n8n-nodes-messaging-crm.messagingCrm' });

/** What the function threw (every case below must throw). */
async function thrown(produce: () => unknown): Promise<NodeOperationError> {
	try {
		await produce();
	} catch (error) {
		return error as NodeOperationError;
	}
	throw new Error('nothing was refused');
}

const expiresAt = '2026-05-04T10:00:00.000Z';
const byId = (value: string) => ({ mode: 'id', value });

/** A value refused as invalid: the API's `validation_error`, which an MCP client reads first as invalid input. */
const invalid = (name: string, produce: () => unknown): [string, string, string, () => unknown] => [
	name,
	'validation_error',
	'InvalidInputError',
	produce,
];

/**
 * Every kind of refusal of the node's own, made by the function that makes it: the code it carries,
 * the name an MCP client reads first, and whether the editor's message names the item.
 */
const refusals: Array<[string, string, string, () => unknown]> = [
	[
		'the 24-hour window closed (Check 24-Hour Window First)',
		'bizchat_window_closed',
		'RefusedError',
		() => {
			throw windowRefusal(node, 0, 'whatsapp', {
				type: 'whatsapp',
				can_send_freeform: false,
				window_expires_at: expiresAt,
			});
		},
	],
	[
		'the 24-hour window never opened',
		'bizchat_window_closed',
		'RefusedError',
		() => {
			throw windowRefusal(node, 0, 'instagram', { type: 'instagram', can_send_freeform: false });
		},
	],
	invalid('a customer ID that is not a UUID', () =>
		customerRef(contextOf({ customerId: byId('+15550100002') }), 0),
	),
	invalid("a donor's customer ID that is not a UUID", () =>
		customerRef(contextOf({ donorId: byId('Ben') }), 0, 'donorId', 'Donor'),
	),
	invalid('another ID that is not a UUID', () => uuidParam(tool, 'sales', 0, 'Pipeline', true)),
	invalid('a required ID left empty', () => uuidParam(tool, '', 0, 'Deal ID', true)),
	invalid('a lookup with no phone', () => lookupQuery(tool, 0, 'phone', '')),
	invalid('a messenger lookup not written "type:id"', () =>
		lookupQuery(tool, 0, 'messenger', 'telegram'),
	),
	invalid('a text too long', () => optionalText(tool, 0, 'Full Name', 'x'.repeat(300), 255)),
	invalid('not text', () => optionalText(tool, 0, 'Source', { a: 1 })),
	invalid('not an email address', () => optionalEmail(tool, 0, 'Email', 'ben@')),
	invalid('not a phone number', () => optionalPhone(tool, 0, 'Phone', 'call me')),
	invalid('a dot segment', () => segmentParam(tool, '..', 0, 'Code')),
	invalid('a limit below 1', () => limitOf(contextOf({ returnAll: false, limit: 0 }), 0)),
	invalid('an own Idempotency Key too long', () => customKey(tool, 0, 'k'.repeat(256))),
	invalid(
		'a customer with no identifier',
		async () => await upsertCustomer.call(contextOf({ phone: '', email: '' }), 0),
	),
	invalid('a merge of a card into itself (the same ID twice)', async () => {
		const id = '3f1c0a52-5d2e-4a7b-9c41-0e8d2b6f7a10';
		const ids = { donorBy: 'customer', customerId: byId(id), donorId: byId(id) };
		return await mergeCustomers.call(contextOf(ids), 0);
	}),
	invalid('a merge whose two lookups find one card', async () => {
		jest.mocked(lookupCustomer).mockResolvedValue({ id: 'c-1' });
		const cards = {
			donorBy: 'customer',
			customerId: { mode: 'phone', value: '+15550100002' },
			donorId: { mode: 'email', value: 'ben.okafor@example.com' },
		};
		return await mergeCustomers.call(contextOf(cards), 0);
	}),
	invalid('Best Available for a customer with no messengers', async () => {
		jest.mocked(customerMessengers).mockResolvedValue([]);
		return await messengersToTry(tool, 0, 'c-1');
	}),
	[
		'no customer has the phone the locator gives',
		'not_found',
		'RefusedError',
		async () => {
			jest.mocked(lookupCustomer).mockResolvedValue(null);
			return await resolveRef(tool, 0, { query: { phone: '+15550100009' } });
		},
	],
	[
		'Find with Fail If Not Found, nobody matches',
		'not_found',
		'RefusedError',
		async () => {
			jest.mocked(lookupCustomer).mockResolvedValue(null);
			const find = { findBy: 'phone', phone: '+15550100009', options: { failIfNotFound: true } };
			return await findCustomer.call(contextOf(find), 0);
		},
	],
	[
		"Find a code's owner with Fail If Not Found, nobody holds it",
		'not_found',
		'RefusedError',
		async () => {
			jest.mocked(apiRequest).mockResolvedValue({ status: 404, body: {} } as never);
			const owner = { code: 'NOPE-1', options: { failIfNotFound: true } };
			return await findCodeOwner.call(contextOf(owner), 0);
		},
	],
	[
		'no active deal of the customer in the pipeline',
		'not_found',
		'RefusedError',
		async () => {
			jest.mocked(customerDeals).mockResolvedValue({ deals: [] } as never);
			const deal = {
				dealBy: 'customer',
				customerId: byId('3f1c0a52-5d2e-4a7b-9c41-0e8d2b6f7a10'),
				pipelineId: '8c7d2f4e-1b3a-4c5d-9e8f-0a1b2c3d4e5f',
			};
			return await resolveDealId(contextOf(deal), 0);
		},
	],
	[
		"a scope the credential's key does not carry",
		'insufficient_scope',
		'RefusedError',
		async () => {
			const credential = {
				baseUrl: 'https://crm.example/api',
				apiKey: 'k',
				scopes: ['customers:read'],
			};
			const ctx = contextOf(
				{ credential },
				{ credentials: { messagingCrmApi: { id: '1', name: 'CRM' } } },
			);
			return await connect(ctx, { scope: 'messages:send', itemIndex: 0 });
		},
	],
	[
		'a Base URL the credential may not use',
		'credential_problem',
		'RefusedError',
		async () => {
			const credential = { baseUrl: 'http://crm.example/api', apiKey: 'k' };
			const ctx = contextOf(
				{ credential },
				{ credentials: { messagingCrmApi: { id: '2', name: 'CRM' } } },
			);
			return await connect(ctx, { scope: 'messages:send', itemIndex: 0 });
		},
	],
	[
		'no credential selected',
		'credential_problem',
		'RefusedError',
		async () => await connect(contextOf({}, { id: 'no-credential' }), { scope: 'messages:send' }),
	],
];

describe("the node's own refusals, in the words of a tool caller, with their code", () => {
	it.each(refusals)('%s: %s, as %s', async (_name, code, name, produce) => {
		const error = await thrown(produce);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(refusalOf(error)?.code).toBe(code);
		// In the editor, the builder's words as before, and the code in the error item's details.
		expect(errorItem(error)).toMatchObject({ error: error.message, details: { code } });
		// As an AI Agent's tool: the code first, then what a caller can do.
		const answer = failureAnswer(error);
		expect(String(answer.error)).toMatch(new RegExp(`^${code}: \\S`));
		expect(builderWordsIn(answer.error)).toEqual([]);
		expect(answer.details).toMatchObject({ code });
		expect(answer.details).not.toHaveProperty('description');
		// For an MCP client: the same, thrown, named by who refused, the details in the text.
		const mcp = failureForMcp(tool, error);
		expect(mcp.name).toBe(name);
		expect(builderWordsIn(`${mcp.name}: ${mcp.message}`)).toEqual([]);
		expect(mcp.message).toContain(`"code":"${code}"`);
	});

	it("the window's refusal says when it closed and on which messenger, for a caller to branch on", async () => {
		const error = await thrown(refusals[0][3]);
		expect(error.message).toMatch(/^The 24-hour window on whatsapp is closed at .* \[item 1\]$/);
		expect(error.description).toMatch(/Switch Content to Business-Chat Template/);
		const answer = failureAnswer(error);
		expect(answer.details).toEqual({
			code: 'bizchat_window_closed',
			retryable: false,
			messenger_type: 'whatsapp',
			window_expires_at: expiresAt,
		});
		expect(answer.error).toBe(
			`bizchat_window_closed: the customer's 24-hour window on whatsapp closed at ${expiresAt}: free-form text cannot be sent there now. Nothing was sent. Send an approved business-chat template instead, or try another of the customer's messengers; text can go on this one again once the customer writes.`,
		);
	});

	it('every itemError of the node carries its refusal (a new kind must say its code and its words for a caller)', () => {
		const root = path.resolve(__dirname, '../../nodes');
		const files = (dir: string): string[] =>
			readdirSync(dir).flatMap((name) => {
				const full = path.join(dir, name);
				return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
			});
		const calls = files(root).flatMap((file) =>
			itemErrorCalls(path.relative(root, file), readFileSync(file, 'utf8')),
		);
		// The check looked at the node's calls: a renamed helper would leave it nothing to judge.
		expect(calls.length).toBeGreaterThanOrEqual(5);
		expect(calls.filter((call) => call.bare).map((call) => call.text)).toEqual([]);
		// Planted: a call without the refusal is named.
		expect(
			itemErrorCalls('planted.ts', 'itemError(ctx, 0, "Item 1: no", { itemIndex: 0 });'),
		).toEqual([
			{ text: 'planted.ts: itemError(ctx, 0, "Item 1: no", { itemIndex: 0 })', bare: true },
		]);
	});
});

/** The node's calls of itemError in a source file, and whether each lacks its refusal. */
function itemErrorCalls(file: string, text: string): Array<{ text: string; bare: boolean }> {
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
	const calls: Array<{ text: string; bare: boolean }> = [];
	const visit = (at: ts.Node): void => {
		if (
			ts.isCallExpression(at) &&
			ts.isIdentifier(at.expression) &&
			at.expression.text === 'itemError'
		)
			calls.push({
				text: `${file}: ${at.getText(source).slice(0, 80)}`,
				// The fifth argument is the refusal; asNodeError's wrap of an unforeseen error has none.
				bare: at.arguments.length < 5 && !/\bmessage\)$/.test(at.getText(source)),
			});
		ts.forEachChild(at, visit);
	};
	visit(source);
	return calls;
}

describe('a repeated send or upsert, for a tool caller', () => {
	it.each([
		['send', SEND_WORDS],
		['upsert', UPSERT_WORDS],
	])('%s: marked replayed, in words of the call, not of events and options', (_name, words) => {
		const asTool = repeatFields(tool, true, words);
		expect(asTool.replayed).toBe(true);
		expect(builderWordsIn(asTool.repeat)).toEqual([]);
		expect(String(asTool.repeat)).toMatch(
			/^Nothing was \w+ this time: a call with the same arguments/,
		);
		// The editor's words, which the check above would catch.
		const inEditor = repeatFields(editor, true, words);
		expect(String(inEditor.repeat)).toMatch(/Options → Repeat Protection → Every Execution Sends/);
		expect(builderWordsIn(inEditor.repeat)).toEqual(
			expect.arrayContaining(['same event', 'Repeat Protection', 'Idempotency Key']),
		);
		expect(repeatFields(tool, false, words)).toEqual({});
	});
});
