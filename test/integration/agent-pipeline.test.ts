import type { INodePropertyOptions } from 'n8n-workflow';

import { runNode } from '../harness/engine';
import { callMethod } from '../harness/toolRuns';
import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { DEMO } from '../sandbox/store';

let sandbox: Sandbox;
let apiKey: string;

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.stop());
beforeEach(() => {
	sandbox.reset('demo');
	apiKey = sandbox.mintKey();
});

const creds = (extra: Record<string, unknown> = {}) => ({
	baseUrl: `${sandbox.url}/`,
	apiKey,
	...extra,
});

describe('Agent → Get Many', () => {
	it('returns every agent with its messengers, one item each, paired to the input', async () => {
		const { items, error } = await runNode({
			parameters: { resource: 'agent', operation: 'getMany' },
			credentials: creds(),
		});
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.name).sort()).toEqual(['Sales Chat', 'Support Bot']);
		expect(items.every((i) => JSON.stringify(i.pairedItem) === JSON.stringify({ item: 0 }))).toBe(
			true,
		);
		const bot = items.find((i) => i.json.id === DEMO.supportBot)!;
		expect(bot.json.messengers).toContain('telegram');
	});

	it('filters by messenger and applies a limit', async () => {
		const byMessenger = await runNode({
			parameters: { resource: 'agent', operation: 'getMany', filters: { messenger: 'WhatsApp' } },
			credentials: creds(),
		});
		expect(byMessenger.items.map((i) => i.json.id)).toEqual([DEMO.salesChat]);
		const limited = await runNode({
			parameters: { resource: 'agent', operation: 'getMany', returnAll: false, limit: 1 },
			credentials: creds(),
		});
		expect(limited.items).toHaveLength(1);
	});

	it('runs once per input item, each result paired to its item', async () => {
		const { items } = await runNode({
			parameters: { resource: 'agent', operation: 'getMany' },
			credentials: creds(),
			items: [{ json: {} }, { json: {} }, { json: {} }],
		});
		expect(items.map((i) => (i.pairedItem as { item: number }).item)).toEqual([0, 0, 1, 1, 2, 2]);
	});
});

describe('Pipeline → Get Many', () => {
	it('lists all pipelines with their coded stages', async () => {
		const { items, error } = await runNode({
			parameters: { resource: 'pipeline', operation: 'getMany' },
			credentials: creds(),
		});
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.name).sort()).toEqual(['Chat Sales', 'Onboarding', 'Sales']);
		const sales = items.find((i) => i.json.id === DEMO.salesPipeline)!.json as {
			stages: Array<{ stage_code: string }>;
		};
		expect(sales.stages.map((s) => s.stage_code)).toEqual([
			'new',
			'qualified',
			'proposal',
			'negotiation',
		]);
	});

	it('filters by agent through the API and can output one item per stage', async () => {
		const { items } = await runNode({
			parameters: {
				resource: 'pipeline',
				operation: 'getMany',
				agentId: DEMO.salesChat,
				output: 'stages',
			},
			credentials: creds(),
		});
		expect(items.map((i) => i.json.stage_code)).toEqual(['lead', 'contacted', 'paid']);
		expect(items.every((i) => i.json.pipeline_id === DEMO.chatSalesPipeline)).toBe(true);
		expect(sandbox.requests().map((r) => r.query)).toEqual([`?agent_id=${DEMO.salesChat}`]);
	});

	it('refuses an agent that is not a UUID before any request, naming the item and field', async () => {
		const { error } = await runNode({
			parameters: { resource: 'pipeline', operation: 'getMany', agentId: 'sales bot' },
			credentials: creds(),
		});
		expect(error?.message).toMatch(/^"Agent" must be a UUID.* \[item 1\]$/);
		expect(sandbox.requests()).toHaveLength(0);
	});
});

describe('Continue on fail', () => {
	it('gives exactly one error item for the bad input item and goes on with the others', async () => {
		const { items, error } = await runNode({
			parameters: { resource: 'pipeline', operation: 'getMany', agentId: '={{ $json.agent }}' },
			credentials: creds(),
			continueOnFail: true,
			items: [
				{ json: { agent: DEMO.salesChat } },
				{ json: { agent: 'nope' } },
				{ json: { agent: DEMO.supportBot } },
			],
		});
		expect(error).toBeUndefined();
		const errors = items.filter((i) => i.json.error);
		expect(errors).toHaveLength(1);
		expect(errors[0].pairedItem).toEqual({ item: 1 });
		expect(errors[0].json.error).toMatch(/^"Agent" must be a UUID.* \[item 2\]$/);
		expect(items.filter((i) => (i.pairedItem as { item: number }).item === 0)).toHaveLength(1);
		expect(items.filter((i) => (i.pairedItem as { item: number }).item === 2)).toHaveLength(2);
		expect(sandbox.requests()).toHaveLength(2);
	});

	it('puts the API error code, HTTP status and details in the error item', async () => {
		const weakKey = sandbox.mintKey(['agents:read']);
		const { items } = await runNode({
			parameters: { resource: 'pipeline', operation: 'getMany' },
			credentials: { ...creds(), apiKey: weakKey },
			continueOnFail: true,
		});
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({
			error: expect.stringMatching(/^insufficient_scope: /),
			details: {
				code: 'insufficient_scope',
				httpCode: 403,
				required_scope: 'pipelines:read',
				description: expect.stringMatching(/Mint a key/),
			},
		});
	});
});

describe('Scopes', () => {
	it('fails fast when the credential lists scopes without the one needed, sending nothing', async () => {
		const { error } = await runNode({
			parameters: { resource: 'pipeline', operation: 'getMany' },
			credentials: creds({ scopes: ['agents:read', 'customers:read'] }),
		});
		expect(error?.message).toContain('"pipelines:read"');
		expect(error?.description).toMatch(/Mint a key that carries "pipelines:read"/);
		expect(sandbox.requests()).toHaveLength(0);
	});

	it('names the needed scope and how to get it on a real 403', async () => {
		const weakKey = sandbox.mintKey(['pipelines:read']);
		const { error } = await runNode({
			parameters: { resource: 'agent', operation: 'getMany' },
			credentials: { ...creds(), apiKey: weakKey },
		});
		expect(error?.name).toBe('NodeApiError');
		expect(error?.message).toMatch(/^insufficient_scope: /);
		expect(error?.description).toMatch(/needs the scope "agents:read".*Mint a key/);
		expect((error as unknown as { httpCode: string }).httpCode).toBe('403');
	});
});

describe('Base URL', () => {
	it('refuses plain HTTP to a host other than this machine unless allowed', async () => {
		const { error } = await runNode({
			parameters: { resource: 'agent', operation: 'getMany' },
			credentials: { baseUrl: 'http://crm.example.com/api', apiKey },
		});
		expect(error?.message).toMatch(/plain http:\/\/ on crm\.example\.com/);
		// 0.0.0.0 is not loopback by the rule, yet a connection to it lands on the sandbox.
		const offMachine = sandbox.url.replace('127.0.0.1', '0.0.0.0');
		const refused = await runNode({
			parameters: { resource: 'agent', operation: 'getMany' },
			credentials: { baseUrl: offMachine, apiKey },
		});
		expect(refused.error?.message).toMatch(/plain http:\/\/ on 0\.0\.0\.0/);
		expect(sandbox.requests()).toHaveLength(0);
		const allowed = await runNode({
			parameters: { resource: 'agent', operation: 'getMany' },
			credentials: { baseUrl: offMachine, apiKey, allowPlainHttp: true },
		});
		expect(allowed.error).toBeUndefined();
		expect(allowed.items.map((i) => i.json.name).sort()).toEqual(['Sales Chat', 'Support Bot']);
	});

	it('maps a refused connection to a NodeApiError without leaking the key', async () => {
		const { error, run } = await runNode({
			parameters: { resource: 'agent', operation: 'getMany' },
			credentials: { baseUrl: 'http://127.0.0.1:9', apiKey },
		});
		expect(error?.name).toBe('NodeApiError');
		expect(error?.message).toMatch(/^connection_refused: Nothing answers at the Base URL/);
		expect(JSON.stringify(run)).not.toContain(apiKey);
	});
});

describe('Dropdowns and searches', () => {
	it('loads agents sorted by name with their messengers by name as the description, headed by what an empty choice means', async () => {
		const load = async (method: string) =>
			(await callMethod({
				kind: 'loadOptions',
				method,
				parameters: {},
				credentials: creds(),
			})) as INodePropertyOptions[];
		const options = await load('getAgents');
		expect(options.map((o) => o.name)).toEqual(['Sales Chat', 'Support Bot']);
		expect(options[1].description).toContain('Telegram Bot');
		expect((await load('getAgentsOrAll')).map((o) => [o.name, o.value])).toEqual([
			['(All Agents)', ''],
			['Sales Chat', DEMO.salesChat],
			['Support Bot', DEMO.supportBot],
		]);
		expect((await load('getAgentsOrMessengerAgent'))[0].name).toBe(
			'(The Agent With This Messenger)',
		);
	});

	it('loads the pipelines of the agent picked in the node, and the stages of the picked pipeline by code', async () => {
		const pipelines = (await callMethod({
			kind: 'loadOptions',
			method: 'getPipelinesOrAll',
			parameters: { agentId: DEMO.supportBot },
			credentials: creds(),
		})) as INodePropertyOptions[];
		expect(pipelines.map((o) => o.name)).toEqual([
			'(All Pipelines)',
			'Onboarding · Support Bot',
			'Sales · Support Bot (default)',
		]);
		expect(pipelines[2].description).toBe(
			'4 stages: New lead → Qualified → Proposal sent → Negotiation',
		);
		const stages = (await callMethod({
			kind: 'loadOptions',
			method: 'getStageCodesOrFirst',
			parameters: { pipelineId: DEMO.salesPipeline },
			credentials: creds(),
		})) as INodePropertyOptions[];
		expect(stages.map((o) => o.value)).toEqual(['', 'new', 'qualified', 'proposal', 'negotiation']);
		const ids = (await callMethod({
			kind: 'loadOptions',
			method: 'getStageIds',
			parameters: { pipelineId: DEMO.salesPipeline },
			credentials: creds(),
		})) as INodePropertyOptions[];
		expect(ids).toHaveLength(4);
	});

	it('shows the API error instead of an empty list when the key lacks the scope', async () => {
		const weakKey = sandbox.mintKey(['pipelines:read']);
		await expect(
			callMethod({
				kind: 'loadOptions',
				method: 'getAgents',
				parameters: {},
				credentials: { ...creds(), apiKey: weakKey },
			}),
		).rejects.toThrow(/insufficient_scope/);
	});
});
