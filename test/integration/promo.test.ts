import type { INodeExecutionData, INodeListSearchResult } from 'n8n-workflow';

import { useSandbox } from '../harness/fixtures';
import { callMethod } from '../harness/toolRuns';
import { DEMO } from '../sandbox/store';

const env = useSandbox();
const pool = (id: string = DEMO.welcomePool) => ({ __rl: true, mode: 'id', value: id });
const fromList = (id: string) => ({ __rl: true, mode: 'list', value: id });

function fileItem(text: string, mimeType = 'text/csv', property = 'data'): INodeExecutionData {
	return {
		json: {},
		binary: {
			[property]: { data: Buffer.from(text).toString('base64'), mimeType, fileName: 'codes.csv' },
		},
	};
}

const codes = (prefix: string, n: number) =>
	Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(6, '0')}`);
const poolRow = (id = DEMO.welcomePool) => env.sandbox.store.promoPools.get(id)!;

describe('Promo Code → Upload', () => {
	it('uploads 25,001 codes from a CSV binary as three requests, totals adding up; the same file again accepts 0', async () => {
		const list = codes('BIG', 25_001);
		const csv = `id;code;note\r\n${list.map((c, i) => `${i};"${c}";x`).join('\r\n')}\r\n;;\r\n`;
		const params = {
			resource: 'promoCode',
			operation: 'upload',
			poolId: pool(),
			codesFrom: 'binary',
			fileFormat: 'csv',
			headerRow: true,
			csvColumn: 'Code',
		};
		const [first] = await env.ok(params, [fileItem(csv)]);
		expect(first).toMatchObject({
			accepted: 25_001,
			duplicates_in_input: 0,
			already_in_pool: 0,
			total: 25_051,
			remaining: 25_051,
			requests: 3,
			codes_received: 25_001,
		});
		expect(
			env.sandbox.requests().map((r) => (JSON.parse(String(r.body)).codes as string[]).length),
		).toEqual([10_000, 10_000, 5_001]);
		const [again] = await env.ok(params, [fileItem(csv)]);
		expect(again).toMatchObject({
			accepted: 0,
			already_in_pool: 25_001,
			total: 25_051,
			requests: 3,
		});
	});

	it('trims blanks, drops empty lines and counts repeats in the list as duplicates in the input', async () => {
		const [out] = await env.ok({
			resource: 'promoCode',
			operation: 'upload',
			poolId: pool(),
			codesFrom: 'list',
			codes: '  A-1 \n\nA-2\nA-1\n   \nA-3, A-2',
		});
		expect(out).toMatchObject({ accepted: 3, duplicates_in_input: 2, codes_received: 5 });
		expect(JSON.parse(String(env.sandbox.requests()[0].body)).codes).toEqual(['A-1', 'A-2', 'A-3']);
	});

	it('takes a field of every input item into one upload, paired to all of them', async () => {
		const items = [
			{ json: { promo: { code: 'F-1' } } },
			{ json: { promo: { code: ['F-2', 'F-3'] } } },
			{ json: { promo: { code: 'F-4' } } },
		];
		const { items: out } = await env.run(
			{
				resource: 'promoCode',
				operation: 'upload',
				poolId: pool(),
				codesFrom: 'field',
				codeField: 'promo.code',
			},
			{ items },
		);
		expect(out).toHaveLength(1);
		expect(out[0].json).toMatchObject({ accepted: 4, requests: 1, items: 3 });
		expect(out[0].pairedItem).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(env.sandbox.requests()).toHaveLength(1);
	});

	it('with Continue on fail, an item without the field gives its error item and the others still upload', async () => {
		const items = [{ json: { code: 'G-1' } }, { json: { other: 1 } }, { json: { code: 'G-2' } }];
		const { items: out } = await env.run(
			{
				resource: 'promoCode',
				operation: 'upload',
				poolId: pool(),
				codesFrom: 'field',
				codeField: 'code',
			},
			{ items, continueOnFail: true },
		);
		expect(out.map((i) => [i.pairedItem, i.json.error ? 'error' : i.json.accepted])).toEqual([
			[{ item: 1 }, 'error'],
			[[{ item: 0 }, { item: 2 }], 2],
		]);
	});

	it('follows the queue and pool rules: earlier uploads issued first, unique per pool, revoked never-issued codes come back', async () => {
		await env.ok({
			resource: 'promoCode',
			operation: 'upload',
			poolId: pool(DEMO.vipPool),
			codes: 'WELCOME-001\nNEW-1',
		});
		expect(poolRow(DEMO.vipPool).byCode.has('WELCOME-001')).toBe(true);
		const issued = env.sandbox.issueCodes(DEMO.vipPool, 10)!;
		expect(issued.outcomes.map((o) => o.code)).toEqual([
			...Array.from({ length: 10 }, (_, i) => `VIP-${String(i + 1).padStart(2, '0')}`),
		]);
		await env.ok({
			resource: 'promoCode',
			operation: 'revoke',
			poolId: pool(DEMO.vipPool),
			codes: 'NEW-1',
		});
		const [back] = await env.ok({
			resource: 'promoCode',
			operation: 'upload',
			poolId: pool(DEMO.vipPool),
			codes: 'NEW-1',
		});
		expect(back).toMatchObject({ accepted: 1 });
		expect(env.sandbox.issueCodes(DEMO.vipPool, 2)!.outcomes.map((o) => o.code)).toEqual([
			'WELCOME-001',
			'NEW-1',
		]);
	});
});

describe('Promo Code → Revoke', () => {
	it('counts queued, issued, already revoked and unknown codes exactly as the spec says', async () => {
		const issued = env.sandbox.issueCodes(DEMO.welcomePool, 2)!.outcomes;
		await env.ok({
			resource: 'promoCode',
			operation: 'revoke',
			poolId: pool(),
			codes: 'WELCOME-010',
		});
		const [out] = await env.ok({
			resource: 'promoCode',
			operation: 'revoke',
			poolId: pool(),
			codes: ['WELCOME-020', 'WELCOME-021', 'WELCOME-001', 'WELCOME-010', 'NOPE-1', 'NOPE-2'].join(
				'\n',
			),
		});
		expect(out).toMatchObject({
			revoked: 3,
			issued_revoked: 1,
			already_revoked: 1,
			not_found: ['NOPE-1', 'NOPE-2'],
			total: 46,
			remaining: 45,
		});
		const owner = env.sandbox.store.codesOf(issued[0].customer_id);
		expect(owner).toEqual([]);
	});
});

describe('Promo Code → Get Many and Find Owner', () => {
	it('returns all of 1,234 codes as distinct items in three requests (pages of 500)', async () => {
		env.sandbox.reset('empty');
		env.apiKey = env.sandbox.mintKey();
		const { createPool, upload } = await import('../sandbox/promoPools');
		const p = createPool(
			env.sandbox.store,
			{ agent_id: DEMO.supportBot, title: 'Big' },
			new Date().toISOString(),
		);
		upload(p, { codes: codes('R', 1_234) });
		const items = await env.ok({
			resource: 'promoCode',
			operation: 'getMany',
			poolId: pool(p.id),
			returnAll: true,
		});
		expect(items).toHaveLength(1_234);
		expect(new Set(items.map((i) => i.code)).size).toBe(1_234);
		expect(env.sandbox.requests().map((r) => r.query)).toEqual([
			'?limit=500&offset=0',
			'?limit=500&offset=500',
			'?limit=500&offset=1000',
		]);
		const limited = await env.ok({
			resource: 'promoCode',
			operation: 'getMany',
			poolId: pool(p.id),
			returnAll: false,
			limit: 700,
			filters: { search: 'R-0001' },
		});
		expect(limited).toHaveLength(100);
	});

	it('lists issued codes only, and finds the owner of a code; unknown gives no item or fails when asked', async () => {
		const [{ customer_id: owner, code }] = env.sandbox.issueCodes(DEMO.welcomePool, 1)!.outcomes;
		const issued = await env.ok({
			resource: 'promoCode',
			operation: 'getMany',
			poolId: pool(),
			filters: { issuedOnly: true },
		});
		expect(issued.map((c) => c.code)).toEqual([code]);
		const [found] = await env.ok({
			resource: 'promoCode',
			operation: 'findOwner',
			code: String(code),
		});
		expect(found).toMatchObject({
			code,
			customer_id: owner,
			pool_id: DEMO.welcomePool,
			pool_title: 'Welcome discount',
		});
		expect(
			await env.ok({ resource: 'promoCode', operation: 'findOwner', code: 'NOPE/../x?y' }),
		).toEqual([]);
		expect(env.sandbox.requests().at(-1)?.path).toBe('/promo-codes/NOPE%2F..%2Fx%3Fy');
		const { error } = await env.run({
			resource: 'promoCode',
			operation: 'findOwner',
			code: 'NOPE',
			options: { failIfNotFound: true },
		});
		expect(error?.message).toBe('No customer holds the code "NOPE" [item 1]');
	});
});

describe('Promo Pool', () => {
	it('lists and gets pools with counters, and offers them in a searchable list', async () => {
		const pools = await env.ok({
			resource: 'promoPool',
			operation: 'getMany',
			agentId: DEMO.salesChat,
		});
		expect(pools.map((p) => p.title)).toEqual(['VIP gifts']);
		const [welcome] = await env.ok({
			resource: 'promoPool',
			operation: 'get',
			poolId: fromList(DEMO.welcomePool),
		});
		expect(welcome).toMatchObject({ total: 50, issued: 0, remaining: 50, low_threshold: 10 });
		const list = (await callMethod({
			kind: 'listSearch',
			method: 'searchPools',
			parameters: {},
			credentials: env.creds(),
			filter: 'vip',
		})) as INodeListSearchResult;
		expect(list.results).toEqual([{ name: 'VIP gifts (10/10)', value: DEMO.vipPool }]);
	});

	it('sends only the fields set; a disabled pool issues nothing; an upload clears the alerts once above the threshold', async () => {
		const [updated] = await env.ok({
			resource: 'promoPool',
			operation: 'update',
			poolId: pool(DEMO.vipPool),
			updateFields: { isEnabled: false, lowThresholdMin: 4 },
		});
		expect(JSON.parse(String(env.sandbox.requests()[0].body))).toEqual({
			is_enabled: false,
			low_threshold_min: 4,
		});
		expect(updated).toMatchObject({ is_enabled: false, low_threshold: 4 });
		expect(env.sandbox.issueCodes(DEMO.vipPool, 1)!.outcomes[0].outcome).toBe('disabled');
		await env.ok({
			resource: 'promoPool',
			operation: 'update',
			poolId: pool(DEMO.vipPool),
			updateFields: { isEnabled: true },
		});
		env.sandbox.issueCodes(DEMO.vipPool, 11);
		const empty = poolRow(DEMO.vipPool);
		expect(empty.exhausted_requests).toBe(1);
		expect(empty.low_alert_sent_at).not.toBeNull();
		expect(empty.empty_alert_sent_at).not.toBeNull();
		await env.ok({
			resource: 'promoCode',
			operation: 'upload',
			poolId: pool(DEMO.vipPool),
			codes: codes('MORE', 20).join('\n'),
		});
		expect(empty.low_alert_sent_at).toBeNull();
		expect(empty.empty_alert_sent_at).toBeNull();
	});
});

describe('bad promo input fails before any request', () => {
	it.each([
		[
			'a pool ID that is not a UUID',
			{ resource: 'promoCode', operation: 'upload', poolId: pool('={{ "pool-1" }}'), codes: 'A' },
			[],
			/"Promo Pool" must be a UUID/,
		],
		[
			'an empty code list',
			{ resource: 'promoCode', operation: 'upload', poolId: pool(), codes: ' \n \n' },
			[],
			/"Codes" has no codes/,
		],
		[
			'a missing binary property',
			{
				resource: 'promoCode',
				operation: 'upload',
				poolId: pool(),
				codesFrom: 'binary',
				binaryPropertyName: 'file',
			},
			[fileItem('code\nA')],
			/"Input Binary Field" "file" is not in this item/,
		],
		[
			'a binary that is not text',
			{
				resource: 'promoCode',
				operation: 'revoke',
				poolId: pool(),
				codesFrom: 'binary',
				fileFormat: 'lines',
			},
			[
				{
					json: {},
					binary: {
						data: {
							data: Buffer.from([0x89, 0x50, 0x00, 0x01]).toString('base64'),
							mimeType: 'image/png',
						},
					},
				},
			],
			/is not a text file/,
		],
		[
			'a CSV column that does not exist',
			{
				resource: 'promoCode',
				operation: 'upload',
				poolId: pool(),
				codesFrom: 'binary',
				csvColumn: 'voucher',
			},
			[fileItem('id,code\n1,A\n')],
			/"Column" "voucher" does not exist in the file/,
		],
		[
			'an update with nothing to change',
			{ resource: 'promoPool', operation: 'update', poolId: pool(), updateFields: {} },
			[],
			/"Update Fields" is empty/,
		],
		[
			'a threshold percent over 100',
			{
				resource: 'promoPool',
				operation: 'update',
				poolId: pool(),
				updateFields: { lowThresholdPct: 120 },
			},
			[],
			/"Low Threshold Percent" must be a whole number from 0 to 100/,
		],
	] as const)('%s', async (_name, parameters, items, message) => {
		const { error } = await env.run(parameters as never, {
			items: items.length ? [...items] : undefined,
		});
		expect(error?.message).toMatch(message);
		expect(env.sandbox.requests()).toHaveLength(0);
	});
});
