/* eslint-disable @n8n/community-nodes/no-restricted-globals -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The node as a tool of n8n's AI Agent, in a running n8n 2.x and 1.x: the example workflow "AI agent
 * answers a customer" (Chat Trigger → AI Agent with n8n's OpenAI Chat Model and five Messaging
 * CRM tools filled by `$fromAI()`), with the model credential's base URL pointing at the scripted
 * model (test/model). The scripted model follows the workflow's system message the way a model
 * would; everything else is real. The sandbox's state proves each effect; the requests the model
 * received prove what the tools described and what each tool answered.
 */

import type {
	Conversation,
	Reply,
	ScriptedModel,
	ToolResult,
	ToolSpec,
} from '../model/scriptedModel';
import { startScriptedModel } from '../model/scriptedModel';
import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { DEMO } from '../sandbox/store';
import { ensureN8n, N8N_V1_VERSION, N8N_VERSION, prepareUserFolder, startN8n } from './n8n';
import type { ExecutionSummary } from './rest';
import { executions, hasEnded, publishInEditor, until } from './rest';
import type { WorkflowJson } from './setup';
import {
	AGENT_WORKFLOW_ID,
	apiCustomer,
	customerMessages,
	crmCredential,
	exampleWorkflow,
	importCredentials,
	importWorkflows,
	privateFolder,
	privateLog,
	setupOwner,
} from './setup';
import { N8N_PORTS } from './ports';

const MODEL_CREDENTIAL = { id: 'mcrmScriptedModel', name: 'Scripted model (tests)' };

let sandbox: Sandbox;
let model: ScriptedModel;
let key: string;

/** The tools' names as n8n derives them from the node names. */
const TOOLS = {
	find: 'Find_customer',
	messengers: 'Get_messengers',
	text: 'Send_text',
	template: 'Send_order_update_template',
	move: 'Move_deal_to_stage',
};

/** The error text of a failed tool call, or undefined when the tool answered normally. */
function toolError(result: ToolResult): string | undefined {
	const json = result.json;
	const first = Array.isArray(json) ? (json[0] as unknown) : json;
	if (typeof first === 'object' && first !== null && 'error' in first)
		return String((first as { error: unknown }).error);
	return undefined;
}

function call(tool: string, args: Record<string, unknown>): Reply {
	return { calls: [{ tool, args }] };
}

/**
 * A model that follows the example workflow's system message: find the customer by the phone in
 * the operator's message, read their messengers, send text when the window is open and the
 * order_update template when it is not, move the deal when asked; a refusal is reported, not
 * retried. It only knows what the conversation tells it, as a model would.
 */
function supportModel(conversation: Conversation): Reply {
	const { user, results } = conversation;
	const phone = /\+\d{8,15}/.exec(user)?.[0];
	if (!phone) return { answer: 'Which customer? Give me their phone number.' };
	const last = results.at(-1);
	if (!last) return call(TOOLS.find, { phone });
	const error = toolError(last);
	if (error) return { answer: `The CRM refused ${last.tool}: ${error}` };
	const found = results.find((r) => r.tool === TOOLS.find)?.json as
		Array<{ id?: string; full_name?: string | null }> | undefined;
	const customer = found?.[0]?.id ? { id: found[0].id, full_name: found[0].full_name } : undefined;
	if (!customer) return { answer: `Nobody in the CRM has the phone ${phone}.` };
	const name = customer.full_name ?? 'the customer';
	switch (last.tool) {
		case TOOLS.find:
			if (/move/i.test(user))
				return call(TOOLS.move, {
					customer_id: customer.id,
					stage: /proposal/i.test(user) ? 'proposal' : 'qualified',
					reason: 'Asked by the operator',
				});
			return call(TOOLS.messengers, { customer_id: customer.id });
		case TOOLS.messengers: {
			const [entry] = (
				last.json as Array<{
					messengers: Array<{ type: string; can_send_freeform: boolean }>;
				}>
			)[0].messengers;
			const order = /order (\d+)/i.exec(user)?.[1] ?? '';
			if (entry.can_send_freeform)
				return call(TOOLS.text, {
					customer_id: customer.id,
					messenger: entry.type,
					text: `Hello ${name}, your order ${order} has shipped.`,
				});
			return call(TOOLS.template, {
				customer_id: customer.id,
				messenger: entry.type,
				customer_name: name.split(' ')[0],
				order_number: order,
			});
		}
		case TOOLS.move:
			return { answer: `Moved the deal of ${name}.` };
		default: {
			const sent = (last.json as Array<{ message_id: string; messenger_type: string }>)[0];
			return {
				answer: `Done: ${last.tool === TOOLS.text ? 'a text' : 'the order_update template'} went to ${name} on ${sent.messenger_type} (message ${sent.message_id}).`,
			};
		}
	}
}

interface ChatSession {
	url: string;
	cookie: string;
	chatUrl: string;
}

/** Sends a chat message the way the chat widget does; resolves with the agent's answer. */
async function chat(
	session: ChatSession,
	message: string,
): Promise<{ output: string; execution: ExecutionSummary }> {
	const before = new Set((await executions(session, AGENT_WORKFLOW_ID)).map((e) => e.id));
	const send = async () =>
		await fetch(session.chatUrl, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({
				action: 'sendMessage',
				sessionId: `e2e-${Date.now()}`,
				chatInput: message,
			}),
			signal: AbortSignal.timeout(120_000),
		});
	let response = await send();
	let text = await response.text();
	// n8n 2.x can answer before it has registered the published workflow's webhooks (seen once on
	// a loaded machine: 404 "not registered"); nothing ran then, so the message is sent again.
	const deadline = Date.now() + 60_000;
	while (response.status === 404 && /not registered/.test(text) && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 500));
		response = await send();
		text = await response.text();
	}
	// n8n answers the chat before it has stored the execution's end: wait for it.
	let execution: ExecutionSummary | undefined;
	await until(
		`the execution of the chat message (answered ${response.status}: ${text.slice(0, 200)})`,
		async () => {
			execution = (await executions(session, AGENT_WORKFLOW_ID)).find(
				(e) => !before.has(e.id) && hasEnded(e),
			);
			return execution !== undefined;
		},
		30_000,
	);
	let output = text;
	try {
		output = String((JSON.parse(text) as { output?: unknown }).output ?? text);
	} catch {
		// not JSON: keep the text
	}
	return { output, execution: execution as ExecutionSummary };
}

/** The requests the scripted model received for one chat message. */
const requestsFor = (cue: string) =>
	model.requests.filter((r) =>
		r.messages.some((m) => m.role === 'user' && JSON.stringify(m.content).includes(cue)),
	);

const messagesTo = (id: string) => customerMessages(sandbox, id);

beforeAll(async () => {
	sandbox = await startSandbox({ rateLimit: { enabled: false } });
	model = await startScriptedModel();
	model.script('+1555017', supportModel);
	// The key the agent's tools use: it reads customers and sends, but may not change deals.
	key = sandbox.mintKey(['customers:read', 'messages:send', 'messages:template']);
});

afterAll(async () => {
	await model?.stop();
	await sandbox?.stop();
});

/** n8n with the package, both credentials and the published agent workflow; the chat's address. */
async function startAgentN8n(
	version: string,
	port: number,
): Promise<{ session: ChatSession; stop: () => Promise<void> }> {
	await ensureN8n(version);
	const options = {
		userFolder: privateFolder(`n8n-e2e-agent-${version}-`),
		port,
		version,
	};
	prepareUserFolder(options.userFolder, true, options.version);
	await importCredentials(options, [
		crmCredential({ baseUrl: sandbox.url, apiKey: key }),
		{
			...MODEL_CREDENTIAL,
			type: 'openAiApi',
			data: { apiKey: 'sk-scripted-model-not-a-secret', url: model.url, header: false },
		},
	]);
	const workflow = agentWorkflowForTests(version);
	await importWorkflows(options, [workflow]);
	const n8n = await startN8n({ ...options, output: privateLog(`n8n-agent-${version}.log`) });
	const cookie = await setupOwner(n8n.url);
	await publishInEditor({ url: n8n.url, cookie }, AGENT_WORKFLOW_ID);
	const trigger = workflow.nodes.find((n) => n.type.endsWith('chatTrigger'));
	return {
		session: {
			url: n8n.url,
			cookie,
			chatUrl: `${n8n.url}/webhook/${String(trigger?.webhookId)}/chat`,
		},
		stop: n8n.stop,
	};
}

/**
 * The example workflow as `npm run dev` imports it, with two changes a user would make to reach
 * it from outside the editor: the chat made public (by webhook), and the model credential chosen.
 */
function agentWorkflowForTests(version = N8N_VERSION): WorkflowJson {
	const workflow = exampleWorkflow(AGENT_WORKFLOW_ID);
	for (const node of workflow.nodes) {
		// n8n 1.x has the AI Agent up to version 3 and the Chat Trigger up to 1.4.
		if (version.startsWith('1.')) {
			if (node.type.endsWith('.agent')) node.typeVersion = 3;
			if (node.type.endsWith('chatTrigger')) node.typeVersion = 1.4;
		}
		if (node.type.endsWith('chatTrigger'))
			node.parameters = {
				...node.parameters,
				public: true,
				mode: 'webhook',
				options: { responseMode: 'lastNode' },
			};
		if (node.type.endsWith('lmChatOpenAi')) node.credentials = { openAiApi: MODEL_CREDENTIAL };
	}
	return workflow;
}

describe.each([
	[N8N_VERSION, N8N_PORTS.agent[0], '0'],
	[N8N_V1_VERSION, N8N_PORTS.agent[1], '1'],
])('n8n %s: the Messaging CRM node as tools of the AI Agent', (version, port, series) => {
	let session: ChatSession;
	let stop: (() => Promise<void>) | undefined;
	beforeAll(async () => {
		({ session, stop } = await startAgentN8n(version, port));
	});
	afterAll(async () => await stop?.());
	/** A phone of this n8n's own customers (the sandbox is shared), e.g. +15550170001. */
	const phone = (n: number) => `+1555017${series}00${n}`;
	const say = async (message: string) => await chat(session, message);

	it('finds a customer by phone and sends a text: the message is in the sandbox, the answer names it', async () => {
		const id = await apiCustomer(sandbox, {
			full_name: 'Ann Example',
			phone: phone(1),
			messengers: [{ type: 'telegram', id: `tg${phone(1).slice(1)}` }],
		});
		const { output, execution } = await say(`Tell ${phone(1)} that order 1001 has shipped.`);
		expect(execution.status).toBe('success');
		const sent = messagesTo(id);
		expect(sent.map((m) => [m.messenger_type, m.text, m.status])).toEqual([
			['telegram', 'Hello Ann Example, your order 1001 has shipped.', 'sent'],
		]);
		expect(output).toContain(`message ${sent[0].id}`);
		// The tools the model was offered: names, descriptions and exactly the $fromAI fields.
		const [first] = requestsFor(phone(1));
		const tools = Object.fromEntries(
			(first.tools ?? []).map((t: ToolSpec) => [t.function.name, t.function]),
		);
		expect(Object.keys(tools).sort()).toEqual(Object.values(TOOLS).sort());
		const fields = (name: string) =>
			Object.keys((tools[name].parameters as { properties: object }).properties).sort();
		expect(fields(TOOLS.find)).toEqual(['phone']);
		expect(fields(TOOLS.messengers)).toEqual(['customer_id']);
		expect(fields(TOOLS.text)).toEqual(['customer_id', 'messenger', 'text']);
		expect(fields(TOOLS.template)).toEqual([
			'customer_id',
			'customer_name',
			'messenger',
			'order_number',
		]);
		expect(fields(TOOLS.move)).toEqual(['customer_id', 'reason', 'stage']);
		// Each tool's description is the one its node sets for the model, none left generic.
		const described = Object.fromEntries(
			agentWorkflowForTests(version).nodes.map((n) => [
				n.name.replace(/[^a-zA-Z0-9_-]+/g, '_'),
				n.parameters.toolDescription,
			]),
		);
		for (const name of Object.values(TOOLS)) expect(tools[name].description).toBe(described[name]);
	});

	it('the window is closed: reads the messengers, sees can_send_freeform false, sends the approved template', async () => {
		const id = await apiCustomer(sandbox, {
			full_name: 'Ben Example',
			phone: phone(2),
			messengers: [{ type: 'whatsapp', id: phone(2).slice(1) }],
		});
		const { output, execution } = await say(`Let ${phone(2)} know about order 1002 on WhatsApp.`);
		expect(execution.status).toBe('success');
		const seen = requestsFor(phone(2)).at(-1);
		expect(JSON.stringify(seen?.messages)).toContain('can_send_freeform\\":false');
		expect(messagesTo(id).map((m) => [m.messenger_type, m.text, m.template, m.status])).toEqual([
			[
				'whatsapp',
				null,
				{ name: 'order_update', lang: 'en', variables: ['Ben', '1002'], button_param: null },
				'sent',
			],
		]);
		expect(output).toContain('order_update template went to Ben Example on whatsapp');
	});

	it('a send refused as recipient_unreachable comes back to the agent as a readable result; the workflow goes on', async () => {
		const id = await apiCustomer(sandbox, {
			full_name: 'Cy Example',
			phone: phone(3),
			messengers: [{ type: 'telegram', id: `blocked${phone(3).slice(1)}` }],
		});
		const { output, execution } = await say(`Tell ${phone(3)} that order 1003 has shipped.`);
		expect(execution.status).toBe('success');
		expect(messagesTo(id).map((m) => m.status)).toEqual(['failed']);
		const toolMessage = requestsFor(phone(3))
			.at(-1)
			?.messages.find(
				(m) => m.role === 'tool' && JSON.stringify(m.content).includes('recipient_unreachable'),
			);
		// The refusal's code, message and what it means, as the model received them.
		expect(JSON.stringify(toolMessage?.content)).toContain(
			'Usually final: use another of their messengers',
		);
		expect(output).toMatch(/^The CRM refused Send_text: .*recipient_unreachable/);
	});

	it('a missing scope comes back the same way, and the deal stays where it was', async () => {
		const id = await apiCustomer(sandbox, {
			full_name: 'Dee Example',
			phone: phone(4),
			messengers: [{ type: 'telegram', id: `tg${phone(4).slice(1)}` }],
			placement: { pipeline_id: DEMO.salesPipeline, stage_code: 'new' },
		});
		const stageBefore = [...sandbox.store.deals.values()].find(
			(d) => d.customer_id === id,
		)?.stage_id;
		expect(stageBefore).toBeDefined();
		const { output, execution } = await say(`Move the deal of ${phone(4)} to proposal.`);
		expect(execution.status).toBe('success');
		expect([...sandbox.store.deals.values()].find((d) => d.customer_id === id)?.stage_id).toBe(
			stageBefore,
		);
		expect(output).toMatch(/^The CRM refused Move_deal_to_stage: .*insufficient_scope/);
		expect(output).toContain('customers:write');
		expect(output).toContain('Mint a key');
		expect(JSON.stringify(model.requests)).not.toContain(key);
	});

	it('nobody has the phone: Find tells the agent that nothing matched, and the answer says so', async () => {
		const { output, execution } = await say(`Tell ${phone(9)} that order 1009 has shipped.`);
		expect(execution.status).toBe('success');
		const toolMessage = requestsFor(phone(9))
			.at(-1)
			?.messages.find((m) => m.role === 'tool');
		expect(JSON.parse(String(toolMessage?.content))).toEqual([
			{ results: 0, message: 'Find a customer: nothing matched.' },
		]);
		expect(output).toBe(`Nobody in the CRM has the phone ${phone(9)}.`);
	});
});
