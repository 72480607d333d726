/**
 * The node as n8n runs it for the AI Agent: the tool variant n8n derives from `usableAsTool`
 * (`messagingCrmTool`), through n8n's engine against the sandbox. A failure must come back as the
 * tool's answer, saying what it means (n8n 1.x would otherwise stop the workflow), and no items
 * must not reach the model as an empty string. The same runs as the plain node show what changes
 * and what does not. For an MCP client (n8n's MCP Server Trigger) a failure is thrown instead, the
 * only way n8n tells that client `isError: true`.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { byId, byMode, useSandbox } from '../harness/fixtures';
import { NODE_TYPE } from '../harness/engine';
import { runAsToolFor } from '../harness/toolRuns';
import { demoPersonId, seedDemoPeople } from '../sandbox/demo';
import { inClientWords } from '../../nodes/MessagingCrm/actions/asTool';

const env = useSandbox();
const AS_TOOL = { node: { type: `${NODE_TYPE}Tool`, name: 'Send_text' } };

/** A builder's words, which a tool caller must not be told (tool-words.test.ts has them all). */
const CALLER_MUST_NOT_READ =
	/\bItem \d|\bitems?\b|\bworkflow|\bnode\b|\bSwitch\b|\bContent\b|Options →|If the 24-Hour Window|Send a Template Instead|By Phone|"Customer"|\bsame event\b/;

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
	it('a refused send is the answer, with what it means in `error`; as a node it stops, the hint in the description', async () => {
		const id = await blockedCustomer();
		const node = await env.run(send(id));
		expect(node.error?.message).toBe(
			'recipient_unreachable: The customer cannot be reached on this messenger [item 1]',
		);
		expect(node.error?.description).toMatch(/^Nothing was sent: the customer blocked the bot/);
		const tool = await env.run(send(id), AS_TOOL);
		expect(tool.error).toBeUndefined();
		expect(tool.items.map((i) => [i.json, i.pairedItem])).toEqual([
			[
				{
					// The hint in a tool caller's words (tool-words.test.ts); no item, which a caller knows nothing of.
					error: `${String(node.error?.message).replace(' [item 1]', '')}. ${inClientWords(String(node.error?.description))}`,
					details: expect.objectContaining({
						code: 'recipient_unreachable',
						httpCode: 409,
						retryable: false,
					}),
				},
				{ item: 0 },
			],
		]);
		expect(tool.items[0].json.details).not.toHaveProperty('description');
	});

	it('a tool whose On Error is "Stop Workflow" stops, as n8n 2.x does', async () => {
		const id = await blockedCustomer();
		const tool = await env.run(send(id), {
			node: { ...AS_TOOL.node, onError: 'stopWorkflow' },
		});
		expect(tool.items).toEqual([]);
		expect(tool.error?.message).toMatch(/^recipient_unreachable: /);
	});

	it('a missing scope names the scope and how to get it', async () => {
		const id = await blockedCustomer();
		const { items } = await env.run(
			{
				...send(id),
				resource: 'deal',
				operation: 'moveStage',
				stageBy: 'code',
				stageCode: 'qualified',
			},
			{ ...AS_TOOL, apiKey: env.sandbox.mintKey(['customers:read']) },
		);
		expect(items[0].json.error).toMatch(/^insufficient_scope: .*"customers:write".*Mint a key/);
	});

	it('bad input from the model is the answer too, with its code and what to do, before any request', async () => {
		const before = env.sandbox.requests().length;
		// The agent's arguments arrive as the tool node's input item; $fromAI() reads them.
		const { items } = await env.run(send("={{ $fromAI('customer_id') }}"), {
			...AS_TOOL,
			items: [{ json: { customer_id: '+15550180001', toolCallId: 'call_1' } }],
		});
		expect(items[0].json).toEqual({
			error: expect.stringMatching(
				/^validation_error: the customer ID must be a UUID such as [0-9a-f-]{36}, got "\+15550180001"\. .*look the customer up by phone, email or messenger first/,
			) as string,
			details: { code: 'validation_error' },
		});
		expect(items[0].json.error).not.toMatch(CALLER_MUST_NOT_READ);
		expect(env.sandbox.requests().length).toBe(before);
	});

	it('the same call again (the model repeating itself, n8n retrying the agent) sends once; another text sends', async () => {
		const [c] = await env.ok({
			resource: 'customer',
			operation: 'upsert',
			phone: '+15550180002',
			messengersUi: { messenger: [{ type: 'telegram', id: '180002' }] },
		});
		const call = async (text: string, toolCallId: string, executionId: string) =>
			await env.run(
				{ ...send(String(c.id)), text: "={{ $fromAI('text') }}" },
				{
					...AS_TOOL,
					executionId,
					items: [{ json: { chatInput: 'Tell them it shipped', text, toolCallId } }],
				},
			);
		const first = await call('It has shipped', 'call_1', 'exec-agent-1');
		const again = await call('It has shipped', 'call_2', 'exec-agent-2');
		const other = await call('It is delayed', 'call_3', 'exec-agent-2');
		expect([first, again, other].map((r) => r.items[0].json.replayed ?? false)).toEqual([
			false,
			true,
			false,
		]);
		// Said of the call, not of events and the node's options, which a caller cannot set.
		expect(again.items[0].json.repeat).toMatch(
			/^Nothing was sent this time: a call with the same arguments already sent this message/,
		);
		expect(again.items[0].json.repeat).not.toMatch(CALLER_MUST_NOT_READ);
		expect(env.sandbox.sentTo([String(c.id)])).toEqual([2]);
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

describe("For an MCP client: the tool run n8n's MCP Server Trigger asks for", () => {
	const asTool = async (
		caller: 'mcp' | 'agent',
		parameters: INodeParameters,
		args: IDataObject = {},
		node = {},
	) => await runAsToolFor(caller, { parameters, credentials: env.creds(), args, node });

	it('a refused send is thrown with the text the agent reads (message, hint, details); the agent, in the same context, gets the item', async () => {
		const id = await blockedCustomer();
		const agent = await asTool('agent', send(id));
		expect(agent.error).toBeUndefined();
		const answer = agent.items[0].json;
		expect(answer.error).toMatch(
			/^recipient_unreachable: .*\. Nothing was sent: the customer blocked/,
		);
		const mcp = await asTool('mcp', send(id));
		expect(mcp.items).toEqual([]);
		expect(mcp.error?.constructor.name).toBe('NodeOperationError');
		// n8n 2.x writes "<name>: <message>" for the client: the API refused, in no class name of n8n's.
		expect(mcp.error?.name).toBe('ApiError');
		expect(String(mcp.error?.message)).not.toMatch(/workflow|this item/);
		// Each try leaves its own failed message in the CRM dialog: only its ID differs.
		const sameMessage = (text: string) => text.replace(/"message_id":"[^"]+"/, '"message_id":"…"');
		expect(sameMessage(String(mcp.error?.message))).toBe(
			sameMessage(`${String(answer.error)}\n\nDetails: ${JSON.stringify(answer.details)}`),
		);
		expect(answer.details).toMatchObject({ code: 'recipient_unreachable', httpCode: 409 });
	});

	it('where n8n keeps no caller, the node being executed tells: the MCP Server Trigger (its own process), or the tool itself (the 2.x agent)', async () => {
		const id = await blockedCustomer();
		// The MCP Server Trigger asks, but n8n keeps it only where the run says.
		const run = async (callerKnown: 'executeData' | 'nowhere') =>
			await runAsToolFor('mcp', {
				parameters: send(id),
				credentials: env.creds(),
				args: {},
				callerKnown,
			});
		expect((await run('executeData')).error?.message).toMatch(/^recipient_unreachable: /);
		const asAgent = await run('nowhere');
		expect(asAgent.error).toBeUndefined();
		expect(asAgent.items[0].json.error).toMatch(/^recipient_unreachable: /);
	});

	it('whatever On Error says: Continue and Stop Workflow both throw, so the client still learns it failed', async () => {
		const id = await blockedCustomer();
		for (const onError of ['continueRegularOutput', 'stopWorkflow'] as const) {
			const mcp = await asTool('mcp', send(id), {}, { onError });
			expect(mcp.error?.message).toMatch(/^recipient_unreachable: /);
		}
	});

	it('bad arguments from the client are thrown before any request, with their code and what to do', async () => {
		const before = env.sandbox.requests().length;
		const mcp = await asTool('mcp', send("={{ $fromAI('customer_id') }}"), {
			customer_id: '+15550180001',
		});
		expect(mcp.error?.name).toBe('InvalidInputError');
		expect(mcp.error?.message).toMatch(
			/^validation_error: the customer ID must be a UUID .*, got "\+15550180001"\. .*by phone, email or messenger first.*\n\nDetails: \{"code":"validation_error"\}$/s,
		);
		expect(mcp.error?.message).not.toMatch(CALLER_MUST_NOT_READ);
		expect(env.sandbox.requests().length).toBe(before);
	});

	it('a send that goes through and a search with no match are answers, not failures', async () => {
		const [c] = await env.ok({
			resource: 'customer',
			operation: 'upsert',
			phone: '+15550180003',
			messengersUi: { messenger: [{ type: 'telegram', id: '180003' }] },
		});
		const sent = await asTool('mcp', send(String(c.id)));
		expect(sent.error).toBeUndefined();
		expect(sent.items[0].json).toMatchObject({ status: 'sent', messenger_type: 'telegram' });
		const none = await asTool('mcp', {
			resource: 'customer',
			operation: 'find',
			findBy: 'phone',
			phone: '+15550189999',
		});
		expect(none.items.map((i) => i.json)).toEqual([
			{ results: 0, message: 'Find a customer: nothing matched.' },
		]);
	});
});

describe("The node's own refusal, as the API's would read: Ben Okafor on WhatsApp, his window closed, Check 24-Hour Window First", () => {
	beforeEach(() => seedDemoPeople(env.sandbox));
	const ben = demoPersonId('Ben Okafor');
	const toBen: INodeParameters = {
		...send(ben),
		messengerType: 'whatsapp',
		options: { checkWindow: true },
	};
	/** When his window closed, as the API lists his messengers. */
	const closedAt = () =>
		env.sandbox.store.customers.get(ben)!.messengers.find((m) => m.type === 'whatsapp')!;

	it('as a tool: bizchat_window_closed, in words for a caller, with the messenger and when it closed; nothing sent', async () => {
		const tool = await env.run(toBen, AS_TOOL);
		expect(tool.error).toBeUndefined();
		const [answer] = tool.items.map((i) => i.json);
		expect(answer.details).toEqual({
			code: 'bizchat_window_closed',
			retryable: false,
			messenger_type: 'whatsapp',
			window_expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
		});
		const expiresAt = String((answer.details as IDataObject).window_expires_at);
		expect(Date.parse(expiresAt)).toBe(
			Date.parse(String(closedAt().last_inbound_at)) + 24 * 3_600_000,
		);
		expect(answer.error).toBe(
			`bizchat_window_closed: the customer's 24-hour window on whatsapp closed at ${expiresAt}: free-form text cannot be sent there now. Nothing was sent. Send an approved business-chat template instead, or try another of the customer's messengers; text can go on this one again once the customer writes.`,
		);
		expect(answer.error).not.toMatch(CALLER_MUST_NOT_READ);
		// One read of his messengers, and no send.
		expect(env.sandbox.requests().map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET /customers/${ben}/messengers`,
		]);
		// n8n's log says what happened: refused after that read, before any message was sent.
		expect(tool.logs?.filter((l) => l.includes('Messaging CRM'))).toEqual([
			expect.stringMatching(
				/^warn Messaging CRM "Send_text", item 1 refused before any message was sent: bizchat_window_closed: The 24-hour window on whatsapp is closed at \S+; use a template \[item 1\] /,
			),
		]);
	});

	it('for an MCP client: thrown as RefusedError (not invalid input, not the API), the details in the text', async () => {
		const mcp = await runAsToolFor('mcp', {
			parameters: toBen,
			credentials: env.creds(),
			args: {},
		});
		expect(mcp.items).toEqual([]);
		expect(mcp.error?.name).toBe('RefusedError');
		expect(mcp.error?.message).toMatch(
			/^bizchat_window_closed: the customer's 24-hour window on whatsapp closed at \S+: free-form text cannot be sent there now\. Nothing was sent\. Send an approved business-chat template instead, or try another of the customer's messengers; .*\n\nDetails: \{"code":"bizchat_window_closed","retryable":false,"messenger_type":"whatsapp","window_expires_at":"[^"]+"\}$/s,
		);
		expect(mcp.error?.message).not.toMatch(CALLER_MUST_NOT_READ);
	});

	it("in the editor: the item's error names the item and the fields, as before, and carries the code in its details", async () => {
		const stopped = await env.run(toBen);
		expect(stopped.error?.message).toMatch(
			/^The 24-hour window on whatsapp is closed at \S+; use a template \[item 1\]$/,
		);
		expect(stopped.error?.description).toBe(
			"Free-form text is only allowed within 24 hours of the customer's last message on this messenger. Switch Content to Business-Chat Template, or set If the 24-Hour Window Is Closed to Send a Template Instead.",
		);
		expect((stopped.error?.context as IDataObject).refusal).toMatchObject({
			code: 'bizchat_window_closed',
		});
		const { items } = await env.run(toBen, { continueOnFail: true });
		expect(items.map((i) => i.json)).toEqual([
			{
				error: stopped.error?.message,
				details: {
					code: 'bizchat_window_closed',
					retryable: false,
					messenger_type: 'whatsapp',
					window_expires_at: expect.any(String) as string,
					description: stopped.error?.description,
				},
			},
		]);
	});
});
