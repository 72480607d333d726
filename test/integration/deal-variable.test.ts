import { byId, useSandbox } from '../harness/fixtures';
import { DEMO } from '../sandbox/store';

const env = useSandbox();

async function customer(phone = '+15550103000'): Promise<string> {
	const [c] = await env.ok({ resource: 'customer', operation: 'upsert', phone });
	return String(c.id);
}

describe('Deals', () => {
	it('creates a deal in another pipeline; a second create returns it, or fails with a clear 409 when asked to', async () => {
		const id = await customer();
		const params = {
			resource: 'deal',
			operation: 'create',
			customerId: byId(id),
			pipelineId: DEMO.onboardingPipeline,
			stageCode: 'activated',
			title: 'Onboard',
		};
		const [deal] = await env.ok(params);
		expect(deal).toMatchObject({
			customer_id: id,
			pipeline_id: DEMO.onboardingPipeline,
			stage_code: 'activated',
			title: 'Onboard',
			status: 'active',
		});
		expect(deal.created).toBe(true);
		// By default the existing active deal comes back (a retried workflow goes on) ...
		const [again] = await env.ok(params);
		expect(again).toMatchObject({ id: deal.id, created: false });
		// ... and with "Fail", the 409 names the pipeline.
		const { error } = await env.run({ ...params, ifExists: 'fail' });
		expect(error?.message).toBe(
			'conflict: The customer already has an active deal in pipeline "Onboarding" [item 1]',
		);
		expect((error as unknown as { httpCode: string }).httpCode).toBe('409');
	});

	it('lists deals with a pipeline filter and a status filter, closed ones included', async () => {
		const id = await customer();
		const [onboarding] = await env.ok({
			resource: 'deal',
			operation: 'create',
			customerId: byId(id),
			pipelineId: DEMO.onboardingPipeline,
		});
		await env.ok({
			resource: 'deal',
			operation: 'close',
			dealBy: 'id',
			dealId: String(onboarding.id),
			closeStatus: 'lost',
			reason: 'No budget',
		});
		const all = await env.ok({ resource: 'deal', operation: 'getMany', customerId: byId(id) });
		expect(all.map((d) => d.status).sort()).toEqual(['active', 'lost']);
		const lost = await env.ok({
			resource: 'deal',
			operation: 'getMany',
			customerId: byId(id),
			status: 'lost',
		});
		expect(lost).toEqual([
			expect.objectContaining({ id: onboarding.id, closed_reason: 'No budget' }),
		]);
		const sales = await env.ok({
			resource: 'deal',
			operation: 'getMany',
			customerId: byId(id),
			pipelineId: DEMO.salesPipeline,
		});
		expect(sales).toHaveLength(1);
		expect(env.sandbox.requests().at(-1)?.query).toBe(`?pipeline_id=${DEMO.salesPipeline}`);
	});

	it('moves to a stage by code or by id, and names the pipeline when the stage is outside it', async () => {
		const id = await customer();
		const [moved] = await env.ok({
			resource: 'deal',
			operation: 'moveStage',
			customerId: byId(id),
			stageBy: 'code',
			stageCode: 'proposal',
			reason: 'Sent',
		});
		expect(moved).toMatchObject({ stage_code: 'proposal' });
		expect(typeof moved.moved_at).toBe('string');
		const negotiation = env.sandbox.store.pipelines.get(DEMO.salesPipeline)!.stages[3].id;
		const [byStageId] = await env.ok({
			resource: 'deal',
			operation: 'moveStage',
			customerId: byId(id),
			stageBy: 'id',
			stageId: negotiation,
		});
		expect(byStageId.stage_code).toBe('negotiation');
		const { error } = await env.run({
			resource: 'deal',
			operation: 'moveStage',
			customerId: byId(id),
			stageBy: 'code',
			stageCode: 'paid',
		});
		expect(error?.message).toBe(
			'stage_outside_pipeline: The stage "paid" is outside the customer\'s pipeline "Sales" [item 1]',
		);
	});

	it("closes the customer's active deal in a pipeline, picked without its ID", async () => {
		const id = await customer();
		const [closed] = await env.ok({
			resource: 'deal',
			operation: 'close',
			dealBy: 'customer',
			customerId: byId(id),
			pipelineId: DEMO.salesPipeline,
			closeStatus: 'won',
		});
		expect(closed).toMatchObject({ status: 'won', pipeline_id: DEMO.salesPipeline });
	});
});

describe('Variables', () => {
	it('follows the type rules: number from JSON, quoted number stays text, day.month.year stored as ISO', async () => {
		const id = await customer();
		const [out] = await env.ok({
			resource: 'variable',
			operation: 'set',
			target: 'customer',
			customerId: byId(id),
			variablesInput: 'json',
			variablesJson: JSON.stringify({
				seats: 5,
				code: '42',
				birthday: { value: '31.12.1990', type: 'date' },
			}),
		});
		const vars = out.variables as Array<{ name: string; type: string; value: unknown }>;
		const get = (n: string) => vars.find((v) => v.name === n);
		expect(get('seats')).toMatchObject({ type: 'number', value: 5 });
		expect(get('code')).toMatchObject({ type: 'text', value: '42' });
		expect(get('birthday')).toMatchObject({ type: 'date', value: '1990-12-31' });
		expect(out.values).toMatchObject({ seats: 5, code: '42', birthday: '1990-12-31' });
	});

	it('appends to lists with dedup and order, removes, deletes with null and clears with {value: null} from the UI', async () => {
		const id = await customer();
		const set = (rows: Array<Record<string, string | boolean>>) =>
			env.ok({
				resource: 'variable',
				operation: 'set',
				target: 'customer',
				customerId: byId(id),
				variablesInput: 'fields',
				variablesUi: { variable: rows },
			});
		await set([
			{
				name: 'interests',
				change: 'set',
				value: 'shoes, bags',
				isList: true,
				type: '',
				mode: 'replace',
			},
			{ name: 'note', change: 'set', value: 'hello', type: '', mode: 'replace' },
			{ name: 'temp', change: 'set', value: 'x', type: '', mode: 'replace' },
		]);
		const [out] = await set([
			{
				name: 'interests',
				change: 'set',
				value: 'bags, hats, shoes, scarves',
				isList: true,
				type: '',
				mode: 'append',
			},
			{ name: 'note', change: 'clear' },
			{ name: 'temp', change: 'delete' },
		]);
		const vars = out.variables as Array<{
			name: string;
			value: unknown;
			value_list: unknown[] | null;
			is_list: boolean;
		}>;
		expect(vars.map((v) => v.name).sort()).toEqual(['interests', 'note']);
		expect(vars.find((v) => v.name === 'interests')).toMatchObject({
			is_list: true,
			value_list: ['shoes', 'bags', 'hats', 'scarves'],
			value: 'shoes, bags, hats, scarves',
		});
		expect(vars.find((v) => v.name === 'note')).toMatchObject({ value: null });
		const bodies = env.sandbox
			.requests()
			.filter((r) => r.method === 'PATCH')
			.map((r) => JSON.parse(String(r.body)).variables);
		expect(bodies[0].note).toBe('hello');
		expect(bodies[1]).toEqual({
			interests: { value: ['bags', 'hats', 'shoes', 'scarves'], mode: 'append' },
			note: { value: null },
			temp: null,
		});
		const [removed] = await set([
			{ name: 'interests', change: 'set', value: 'bags', isList: true, type: '', mode: 'remove' },
		]);
		expect((removed.values as Record<string, unknown>).interests).toEqual([
			'shoes',
			'hats',
			'scarves',
		]);
	});

	it('keeps one element type per list', async () => {
		const id = await customer();
		const { error } = await env.run({
			resource: 'variable',
			operation: 'set',
			target: 'customer',
			customerId: byId(id),
			variablesInput: 'json',
			variablesJson: JSON.stringify({ sizes: [38, 'M'] }),
		});
		expect(error?.message).toMatch(
			/^validation_error: Variable "sizes": a list holds one element type/,
		);
		const [typed] = await env.ok({
			resource: 'variable',
			operation: 'set',
			target: 'customer',
			customerId: byId(id),
			variablesInput: 'json',
			variablesJson: JSON.stringify({ sizes: { value: ['38', '40'], type: 'number' } }),
		});
		expect((typed.values as Record<string, unknown>).sizes).toEqual([38, 40]);
	});

	it("fails the item with the variable's name when the API rejects a value", async () => {
		const id = await customer();
		const { error } = await env.run({
			resource: 'variable',
			operation: 'set',
			target: 'customer',
			customerId: byId(id),
			variablesInput: 'fields',
			variablesUi: {
				variable: [{ name: 'age', change: 'set', value: 'old', type: 'number', mode: 'replace' }],
			},
		});
		expect(error?.message).toMatch(/^validation_error: Variable "age"/);
	});

	it('reads and writes deal variables, the deal picked by customer and pipeline; over 50 in chunks', async () => {
		const id = await customer();
		const vars = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`d${i}`, `v${i}`]));
		const target = {
			target: 'deal',
			dealBy: 'customer',
			customerId: byId(id),
			pipelineId: DEMO.salesPipeline,
		};
		const [written] = await env.ok({
			resource: 'variable',
			operation: 'set',
			...target,
			variablesInput: 'json',
			variablesJson: JSON.stringify(vars),
		});
		expect(Object.keys(written.values as object)).toHaveLength(51);
		expect(env.sandbox.requests().filter((r) => r.method === 'PATCH')).toHaveLength(2);
		const each = await env.ok({
			resource: 'variable',
			operation: 'get',
			...target,
			output: 'each',
		});
		expect(each).toHaveLength(51);
		expect(each[0].deal_id).toBe(written.deal_id);
	});
});
