import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { DEMO } from '../sandbox/store';
import { callMethod, runNode } from '../harness/n8n';

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

const creds = () => ({ baseUrl: `${sandbox.url}/`, apiKey });

describe('Agent → Get Many', () => {
	it('returns every agent with its messengers, one item each, paired to the input', async () => {
		const { items, error } = await runNode({ parameters: { resource: 'agent', operation: 'getMany' }, credentials: creds() });
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.name).sort()).toEqual(['Sales Chat', 'Support Bot']);
		expect(items.every((i) => JSON.stringify(i.pairedItem) === JSON.stringify({ item: 0 }))).toBe(true);
		const bot = items.find((i) => i.json.id === DEMO.supportBot)!;
		expect(bot.json.messengers).toContain('telegram');
	});
});
