/**
 * The node as n8n runs it for the AI Agent: the tool variant n8n derives from `usableAsTool`
 * (`messagingCrmTool`), through n8n's engine against the sandbox. The agent reads a failure as
 * the error's message only, and no items as an empty string: both must still tell it what
 * happened. The same runs as the plain node show what changes and what does not.
 */
import type { INodeParameters } from 'n8n-workflow';

import { byId, byMode, useSandbox } from '../harness/fixtures';
import { NODE_TYPE } from '../harness/n8n';

const env = useSandbox();
const AS_TOOL = { node: { type: `${NODE_TYPE}Tool`, name: 'Send_text' } };

const send = (customerId: string): INodeParameters => ({
	resource: 'message',
	operation: 'send',
	customerId: byId(customerId),
	messengerType: 'telegram',
	content: 'text',
	text: 'Your order has shipped',
});

async function blockedCustomer(): Promise<string> {
	const [c] = await env.ok({
		resource: 'customer',
		operation: 'upsert',
		phone: '+15550180001',
		messengersUi: { messenger: [{ type: 'telegram', id: 'blocked180001' }] },
	});
	return String(c.id);
}

describe('As a tool of the AI Agent', () => {
	it("a refused send puts what it means into the error's message; as a node the hint stays in the description", async () => {
		const id = await blockedCustomer();
		const tool = await env.run(send(id), AS_TOOL);
		const node = await env.run(send(id));
		expect(node.error?.message).toBe(
			'recipient_unreachable: The customer cannot be reached on this messenger',
		);
		expect(node.error?.description).toMatch(/^Nothing was sent: the customer blocked the bot/);
		expect(tool.error?.message).toBe(`${node.error?.message}. ${node.error?.description}`);
	});

	it('a missing scope names the scope and how to get it, in the message', async () => {
		const id = await blockedCustomer();
		const { error } = await env.run(
			{
				...send(id),
				resource: 'deal',
				operation: 'moveStage',
				stageBy: 'code',
				stageCode: 'qualified',
			},
			{ ...AS_TOOL, apiKey: env.sandbox.mintKey(['customers:read']) },
		);
		expect(error?.message).toMatch(/^insufficient_scope: .*"customers:write".*Mint a key/);
	});

	it('nothing found reaches the agent as words, not as no items; the plain node still gives no item', async () => {
		const find: INodeParameters = {
			resource: 'customer',
			operation: 'find',
			findBy: 'phone',
			phone: '+15550189999',
		};
		const tool = await env.run(find, AS_TOOL);
		expect(tool.items.map((i) => [i.json, i.pairedItem])).toEqual([
			[{ results: 0, message: 'Find a customer: nothing matched.' }, { item: 0 }],
		]);
		expect((await env.run(find)).items).toEqual([]);
	});

	it('a found customer reaches the agent unchanged', async () => {
		const id = await blockedCustomer();
		const tool = await env.run(
			{ resource: 'customer', operation: 'get', customerId: byMode('phone', '+15550180001') },
			AS_TOOL,
		);
		expect(tool.items.map((i) => i.json.id)).toEqual([id]);
	});
});
