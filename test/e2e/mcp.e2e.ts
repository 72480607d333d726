/**
 * Messaging CRM's tools for any MCP client: example 6 "MCP server" (n8n's MCP Server Trigger with
 * the five tools of example 4) published in a running n8n 2.x, reached by the official TypeScript
 * MCP client (`@modelcontextprotocol/sdk`) over streamable HTTP at `/mcp/messaging-crm` with the
 * example's bearer token, as Claude Desktop, Cursor or any client would. The client records every
 * byte n8n answered; the sandbox's state proves each effect.
 */
import { randomBytes } from 'crypto';

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

import { assertNoSecret } from '../harness/engine';
import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { demoPersonId, seedDemoPeople } from '../sandbox/demo';
import { DEMO } from '../sandbox/store';
import { connectMcp, mcpEndpoint, textOf } from './mcp';
import { ensureN8n, N8N_V1_VERSION, N8N_VERSION, prepareUserFolder, startN8n } from './n8n';
import { publishInEditor } from './rest';
import {
	apiCustomer,
	crmCredential,
	customerMessages,
	exampleWorkflow,
	importCredentials,
	importWorkflows,
	MCP_WORKFLOW_ID,
	mcpTokenCredential,
	privateFolder,
	privateLog,
	setupOwner,
} from './setup';
import { N8N_PORTS } from './ports';

const TOKEN = `mcp-e2e-${randomBytes(12).toString('hex')}`;

let sandbox: Sandbox;
let key: string;
let endpoint: URL;

const example = () => exampleWorkflow(MCP_WORKFLOW_ID);

const messagesTo = (id: string) => customerMessages(sandbox, id);

/** Everything the client received from n8n: each answer's status and headers, then its body as read. */
const answers: Array<{ text: string }> = [];
const received = () => answers.map((answer) => answer.text);

/** fetch as the SDK uses it, recording each answer's bytes as the client reads them. */
const recordingFetch: typeof fetch = async (input, init) => {
	const response = await fetch(input, init);
	answers.push({ text: `${response.status} ${JSON.stringify([...response.headers])}` });
	if (!response.body) return response;
	const answer = { text: '' };
	answers.push(answer);
	const decoder = new TextDecoder();
	const body = response.body.pipeThrough(
		new TransformStream<Uint8Array, Uint8Array>({
			transform(chunk, controller) {
				answer.text += decoder.decode(chunk, { stream: true });
				controller.enqueue(chunk);
			},
		}),
	);
	const { status, statusText, headers } = response;
	return new Response(body, { status, statusText, headers });
};

beforeAll(async () => {
	sandbox = await startSandbox({ rateLimit: { enabled: false } });
	// The key the tools use: it reads customers and sends, but may not change deals.
	key = sandbox.mintKey(['customers:read', 'messages:send', 'messages:template']);
	// Ben Okafor among them: his WhatsApp window closed two days ago.
	seedDemoPeople(sandbox);
});

afterAll(async () => await sandbox?.stop());

/** The editor's address of the n8n the tests of a version run against. */
let editorUrl = '';
/** The owner's session cookie in that n8n. */
let editorCookie = '';

/** n8n with the package, the sandbox credential, the bearer token and example 6 published. */
async function startMcpN8n(version: string, port: number): Promise<() => Promise<void>> {
	await ensureN8n(version);
	const options = { userFolder: privateFolder(`n8n-e2e-mcp-${version}-`), port, version };
	prepareUserFolder(options.userFolder, true, options.version);
	await importCredentials(options, [
		crmCredential({ baseUrl: sandbox.url, apiKey: key }),
		mcpTokenCredential(TOKEN),
	]);
	await importWorkflows(options, [example()]);
	const n8n = await startN8n({ ...options, output: privateLog(`n8n-mcp-${version}.log`) });
	endpoint = mcpEndpoint(n8n.url);
	editorUrl = n8n.url;
	editorCookie = await setupOwner(n8n.url);
	await publishInEditor({ url: editorUrl, cookie: editorCookie }, MCP_WORKFLOW_ID);
	return n8n.stop;
}

describe.each([
	[N8N_VERSION, N8N_PORTS.mcp[0], '0'],
	[N8N_V1_VERSION, N8N_PORTS.mcp[1], '1'],
])(
	"n8n %s: Messaging CRM's tools for an MCP client (example 6, MCP Server Trigger)",
	(version, port, series) => {
		let client: Client;
		let stopN8n: (() => Promise<void>) | undefined;
		beforeAll(async () => {
			stopN8n = await startMcpN8n(version, port);
			client = await connectMcp(endpoint, TOKEN, recordingFetch);
		});
		afterAll(async () => {
			await client?.close();
			await stopN8n?.();
		});
		/** A phone of this n8n's own customers (the sandbox is shared), e.g. +15550190001. */
		const phone = (n: number) => `+1555019${series}00${n}`;
		/** n8n 2.x writes the thrown error's name (the node's: who refused); 1.x says "Error". */
		const named = (name: string) => (version.startsWith('1.') ? 'Error' : name);
		const failed = named('ApiError');
		/** A builder's words (tool-words.test.ts has them all), which a client must not be told. */
		const builderWords =
			/NodeOperationError|workflow|this item|\bItem \d|\bSwitch\b|\bContent\b|If the 24-Hour Window|Send a Template Instead|Options →|By Phone|"Customer"/;

		it('the editor asking for a dropdown of a node just added, before its credential is set: the hint, no error', async () => {
			const response = await fetch(`${editorUrl}/rest/dynamic-node-parameters/options`, {
				method: 'POST',
				headers: { cookie: editorCookie, 'Content-Type': 'application/json', 'browser-id': 'e2e' },
				body: JSON.stringify({
					nodeTypeAndVersion: { name: 'n8n-nodes-messaging-crm.messagingCrm', version: 1 },
					path: 'parameters.agentId',
					methodName: 'getAgentsOrMessengerAgent',
					currentNodeParameters: { resource: 'message', operation: 'send' },
				}),
			});
			expect(response.status).toBe(200);
			expect(((await response.json()) as { data: unknown }).data).toEqual([
				{
					name: '(The Agent With This Messenger)',
					value: '',
					description: expect.stringMatching(/^n8n asked for this list before it had set/),
				},
			]);
		});

		it('refuses a client without the bearer token', async () => {
			const refused = await connectMcp(endpoint, 'not-the-token').catch((error: unknown) => error);
			expect(refused).toMatchObject({
				code: 403,
				message: expect.stringContaining('Authorization data is wrong') as string,
			});
		});

		it("lists the five tools with the example's names, descriptions and the $fromAI fields as input schemas; sends the server's instructions", async () => {
			const { tools } = await client.listTools();
			const byName = Object.fromEntries(tools.map((t: Tool) => [t.name, t]));
			expect(Object.keys(byName).sort()).toEqual([
				'Find_customer',
				'Get_messengers',
				'Move_deal_to_stage',
				'Send_order_update_template',
				'Send_text',
			]);
			const fields = (name: string) => {
				const { properties, required } = byName[name].inputSchema;
				// Every field the model fills is required.
				expect([...(required ?? [])].sort()).toEqual(Object.keys(properties ?? {}).sort());
				return Object.keys(properties ?? {}).sort();
			};
			expect(fields('Find_customer')).toEqual(['phone']);
			expect(fields('Get_messengers')).toEqual(['customer_id']);
			expect(fields('Send_text')).toEqual(['customer_id', 'messenger', 'text']);
			expect(fields('Send_order_update_template')).toEqual([
				'customer_id',
				'customer_name',
				'messenger',
				'order_number',
			]);
			expect(fields('Move_deal_to_stage')).toEqual(['customer_id', 'reason', 'stage']);
			expect(byName.Find_customer.inputSchema.properties?.phone).toMatchObject({
				type: 'string',
				description: expect.stringContaining('international format') as string,
			});
			for (const node of example().nodes.filter((n) => n.type.endsWith('messagingCrmTool')))
				expect(byName[node.name.replace(/ /g, '_')].description).toBe(
					node.parameters.toolDescription,
				);
			// n8n 1.x's MCP Server Trigger has no instructions.
			if (!version.startsWith('1.'))
				expect(client.getInstructions()).toContain('do not retry the same call');
		});

		it('Find and Send: the text is in the sandbox, the answer says so; the same call again sends nothing more', async () => {
			const id = await apiCustomer(sandbox, {
				full_name: 'Mia Example',
				phone: phone(1),
				messengers: [{ type: 'telegram', id: `tg${phone(1).slice(1)}` }],
			});
			const found = await client.callTool({
				name: 'Find_customer',
				arguments: { phone: phone(1) },
			});
			expect(found.isError).toBeFalsy();
			expect(found.content).toEqual([{ type: 'text', text: expect.any(String) as string }]);
			expect((JSON.parse(textOf(found)) as Array<{ id: string }>).map((c) => c.id)).toEqual([id]);
			const call = { customer_id: id, messenger: 'telegram', text: 'Your order 1001 has shipped.' };
			const sent = await client.callTool({ name: 'Send_text', arguments: call });
			expect(sent.isError).toBeFalsy();
			const [message] = JSON.parse(textOf(sent)) as Array<Record<string, unknown>>;
			expect(message).toMatchObject({ status: 'sent', messenger_type: 'telegram' });
			expect(messagesTo(id).map((m) => [m.id, m.text])).toEqual([
				[message.message_id, 'Your order 1001 has shipped.'],
			]);
			const again = await client.callTool({ name: 'Send_text', arguments: call });
			expect(again.isError).toBeFalsy();
			expect(JSON.parse(textOf(again))).toEqual([
				expect.objectContaining({
					message_id: message.message_id,
					replayed: true,
					// Said of the call, not of events and the node's options.
					repeat: expect.stringMatching(
						/^Nothing was sent this time: a call with the same arguments already sent this message/,
					) as string,
				}),
			]);
			expect(textOf(again)).not.toMatch(builderWords);
			expect(messagesTo(id)).toHaveLength(1);
		});

		it('nobody has the phone: an answer in words, not an error', async () => {
			const none = await client.callTool({
				name: 'Find_customer',
				arguments: { phone: phone(9) },
			});
			expect(none.isError).toBeFalsy();
			expect(JSON.parse(textOf(none))).toEqual([
				{ results: 0, message: 'Find a customer: nothing matched.' },
			]);
		});

		it('a refused send and a missing scope reach the client as isError: true, with the code, what it means and what to do next', async () => {
			const id = await apiCustomer(sandbox, {
				full_name: 'Ned Example',
				phone: phone(2),
				messengers: [{ type: 'telegram', id: `blocked${phone(2).slice(1)}` }],
				placement: { pipeline_id: DEMO.salesPipeline, stage_code: 'new' },
			});
			const refused = await client.callTool({
				name: 'Send_text',
				arguments: { customer_id: id, messenger: 'telegram', text: 'Hello' },
			});
			expect(refused.isError).toBe(true);
			expect(refused.content).toEqual([{ type: 'text', text: expect.any(String) as string }]);
			expect(textOf(refused)).toMatch(
				new RegExp(
					`^${failed}: recipient_unreachable: The customer cannot be reached on this messenger\\. Nothing was sent: .*Usually final: use another of their messengers`,
					's',
				),
			);
			expect(textOf(refused)).toContain('"code":"recipient_unreachable","httpCode":409');
			// Words for a client: what to call, not what a workflow builder would run.
			expect(textOf(refused)).not.toMatch(builderWords);
			expect(messagesTo(id).map((m) => m.status)).toEqual(['failed']);
			const moved = await client.callTool({
				name: 'Move_deal_to_stage',
				arguments: { customer_id: id, stage: 'proposal', reason: 'Asked by the client' },
			});
			expect(moved.isError).toBe(true);
			expect(textOf(moved)).toMatch(/insufficient_scope: .*"customers:write".*Mint a key/s);
			// Bad arguments are refused before any request, with the API's code and what to do.
			const before = sandbox.requests().length;
			const bad = await client.callTool({
				name: 'Get_messengers',
				arguments: { customer_id: phone(2) },
			});
			expect(bad.isError).toBe(true);
			expect(textOf(bad)).toMatch(
				new RegExp(
					`^${named('InvalidInputError')}: validation_error: the customer ID must be a UUID such as \\S+, got "\\${phone(2)}"\\. .*look the customer up by phone, email or messenger first`,
					's',
				),
			);
			expect(textOf(bad)).toContain('Details: {"code":"validation_error"}');
			expect(textOf(bad)).not.toMatch(builderWords);
			expect(sandbox.requests().length).toBe(before);
		});

		it("the window pre-check's refusal (Ben Okafor, Send_text on WhatsApp, his window closed): isError, bizchat_window_closed in its details, words for a client", async () => {
			const ben = demoPersonId('Ben Okafor');
			const refused = await client.callTool({
				name: 'Send_text',
				arguments: { customer_id: ben, messenger: 'whatsapp', text: 'Your order has shipped.' },
			});
			expect(refused.isError).toBe(true);
			// Not invalid input (the arguments are fine), not the API's (it was never asked to send).
			expect(textOf(refused)).toMatch(
				new RegExp(
					`^${named('RefusedError')}: bizchat_window_closed: the customer's 24-hour window on whatsapp closed at \\S+: free-form text cannot be sent there now\\. Nothing was sent\\. Send an approved business-chat template instead, or try another of the customer's messengers`,
					's',
				),
			);
			expect(textOf(refused)).toMatch(
				/\n\nDetails: \{"code":"bizchat_window_closed","retryable":false,"messenger_type":"whatsapp","window_expires_at":"[^"]+"\}/,
			);
			expect(textOf(refused)).not.toMatch(builderWords);
			expect(messagesTo(ben)).toEqual([]);
		});

		it('a server that echoes the key in its error: the client gets isError and no key, in anything it received', async () => {
			sandbox.injectFault({ path: '/customers*', count: 1, kind: 'echo', status: 400 });
			const echoed = await client.callTool({
				name: 'Find_customer',
				arguments: { phone: phone(1) },
			});
			expect(echoed.isError).toBe(true);
			expect(textOf(echoed)).toMatch(/bad_request/);
			// The record holds what the client was answered, the echoed failure included.
			expect(received().length).toBeGreaterThan(10);
			expect(received().join('\n')).toContain(JSON.stringify(textOf(echoed)).slice(1, -1));
			expect(() => assertNoSecret(key, ...received())).not.toThrow();
			// Planted: the answer the server gave n8n holds the key, and the check catches it there.
			sandbox.injectFault({ path: '/customers*', count: 1, kind: 'echo', status: 400 });
			const raw = await fetch(`${sandbox.url}/customers?phone=${encodeURIComponent(phone(1))}`, {
				headers: { Authorization: `Bearer ${key}` },
			});
			const answered = await raw.text();
			expect(() => assertNoSecret(key, ...received(), answered)).toThrow(/leaked/);
		});
	},
);
