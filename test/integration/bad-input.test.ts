import type { INodeParameters } from 'n8n-workflow';

import { byId, byMode, useSandbox } from '../harness/fixtures';

const env = useSandbox();
const ID = '3f1c0a52-5d2e-4a7b-9c41-0e8d2b6f7a10';
const long = (n: number) => 'x'.repeat(n);

const cases: Array<[string, INodeParameters, RegExp]> = [
	[
		'a mapped customer ID that is not a UUID',
		{ resource: 'customer', operation: 'get', customerId: byId('={{ "12345" }}') },
		/"Customer" must be a customer ID \(a UUID\)/,
	],
	[
		'a malformed email on lookup',
		{ resource: 'customer', operation: 'get', customerId: byMode('email', 'not-an-email') },
		/"Customer" is not an email address/,
	],
	[
		'a messenger locator without a colon',
		{ resource: 'customer', operation: 'get', customerId: byMode('messenger', 'telegram') },
		/must be "type:id"/,
	],
	[
		'no identifier at all on create',
		{ resource: 'customer', operation: 'upsert' },
		/No identifier: "Phone", "Email" and "Messengers" are all empty/,
	],
	[
		'a malformed email on create',
		{ resource: 'customer', operation: 'upsert', email: 'jane@' },
		/"Email" is not an email address/,
	],
	[
		'a full name over 255',
		{
			resource: 'customer',
			operation: 'upsert',
			phone: '+15551112222',
			additionalFields: { fullName: long(256) },
		},
		/"Full Name" is 256 characters long; the API accepts at most 255/,
	],
	[
		'a phone over 50',
		{ resource: 'customer', operation: 'upsert', phone: `+1${'5'.repeat(49)}` },
		/"Phone" is 51 characters long; the API accepts at most 50/,
	],
	[
		'a source over 100',
		{
			resource: 'customer',
			operation: 'upsert',
			phone: '+15551112222',
			additionalFields: { source: long(101) },
		},
		/"Source" is 101 characters long/,
	],
	[
		'a stage code over 50',
		{
			resource: 'customer',
			operation: 'upsert',
			phone: '+15551112222',
			placement: 'choose',
			stageCode: long(51),
		},
		/"Stage" is 51 characters long/,
	],
	[
		'a language that is not ISO 639-1',
		{
			resource: 'customer',
			operation: 'upsert',
			phone: '+15551112222',
			additionalFields: { language: 'english' },
		},
		/"Language" must be a two-letter ISO 639-1 code/,
	],
	[
		'an avatar URL that is not http(s)',
		{
			resource: 'customer',
			operation: 'upsert',
			phone: '+15551112222',
			avatar: 'url',
			avatarUrl: 'ftp://x/y.png',
		},
		/"Avatar URL" must be an http\(s\) link/,
	],
	[
		'a deal title over 255',
		{ resource: 'deal', operation: 'create', customerId: byId(ID), title: long(256) },
		/"Title" is 256 characters long/,
	],
	[
		'a close reason over 500',
		{ resource: 'deal', operation: 'close', dealBy: 'id', dealId: ID, reason: long(501) },
		/"Reason" is 501 characters long; the API accepts at most 500/,
	],
	[
		'a deal ID that is not a UUID',
		{ resource: 'deal', operation: 'close', dealBy: 'id', dealId: '../../agents' },
		/"Deal ID" must be a UUID/,
	],
	[
		'a merge promo code over 255',
		{
			resource: 'customer',
			operation: 'merge',
			customerId: byId(ID),
			donorBy: 'promoCode',
			promoCode: long(256),
		},
		/"Promo Code" is 256 characters long/,
	],
	[
		'a pipeline that is not a UUID',
		{ resource: 'deal', operation: 'create', customerId: byId(ID), pipelineId: 'Sales' },
		/"Pipeline" must be a UUID/,
	],
	[
		'an empty variable name',
		{
			resource: 'variable',
			operation: 'set',
			customerId: byId(ID),
			variablesUi: { variable: [{ name: ' ', change: 'set', value: '1' }] },
		},
		/Name" is empty/,
	],
	[
		'variables JSON that is not an object',
		{
			resource: 'variable',
			operation: 'set',
			customerId: byId(ID),
			variablesInput: 'json',
			variablesJson: '[1,2]',
		},
		/must be an object from variable name to value/,
	],
	[
		'a variable with an unknown type in JSON',
		{
			resource: 'variable',
			operation: 'set',
			customerId: byId(ID),
			variablesInput: 'json',
			variablesJson: '{"a": {"value": 1, "type": "money"}}',
		},
		/has type "money"/,
	],
	[
		'a custom Idempotency-Key over 255',
		{
			resource: 'customer',
			operation: 'upsert',
			phone: '+15551112222',
			options: { idempotencyKey: long(256) },
		},
		/"Idempotency Key" is longer than 255/,
	],
];

describe('bad input fails its item before any request, naming the item and the field', () => {
	it.each(cases)('%s', async (_name, parameters, message) => {
		const { error } = await env.run(parameters);
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toMatch(/ \[item 1\]$/);
		expect(error?.message).toMatch(message);
		// n8n's UX guidelines: how to fix it comes with it, and none of the words they ask to avoid.
		expect(error?.description).toMatch(/^[A-Z].{10,}/);
		expect(`${error?.message} ${error?.description}`).not.toMatch(
			/\b(errors?|problems?|failures?|mistakes?)\b/i,
		);
		expect(env.sandbox.requests()).toHaveLength(0);
	});

	it('a typed customer ID that is not a UUID is flagged by n8n itself before the workflow runs', async () => {
		const { error } = await env.run({
			resource: 'customer',
			operation: 'get',
			customerId: byId('12345'),
		});
		expect(error?.message).toMatch(/Not a customer ID \(a UUID\)/);
		expect(env.sandbox.requests()).toHaveLength(0);
	});

	it('with Continue on fail, one bad item gives one error item and the good ones go on', async () => {
		const { items } = await env.run(
			{
				resource: 'customer',
				operation: 'upsert',
				phone: '={{ $json.phone }}',
				email: '={{ $json.email }}',
			},
			{
				continueOnFail: true,
				items: [
					{ json: { phone: '+15551230001' } },
					{ json: { email: 'bad@' } },
					{ json: { phone: '+15551230003' } },
				],
			},
		);
		expect(items.map((i) => [i.pairedItem, i.json.error ? 'error' : i.json.created])).toEqual([
			[{ item: 0 }, true],
			[{ item: 1 }, 'error'],
			[{ item: 2 }, true],
		]);
		expect(env.sandbox.requests()).toHaveLength(2);
	});
});
