/* eslint-disable @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * A scripted language model for tests: a small OpenAI-compatible chat-completions server on
 * loopback. n8n's own OpenAI Chat Model node talks to it through its credential's base URL, so
 * the AI Agent, the tool wrapping, `$fromAI()` and our node all run for real; only the model's
 * choices come from a script.
 *
 * A script is a function of the conversation so far (the user's message, the tools offered, the
 * tool results already in): it answers with the tool calls a model would make next, or with the
 * final answer. It reads earlier tool results to fill later calls (a customer ID found by the
 * first call goes into the second), as a model would. Every request is recorded, so a test can
 * show what the tools described to the model and what each tool answered.
 */
import { randomUUID } from 'crypto';
import type { IncomingMessage, Server, ServerResponse } from 'http';
import { createServer } from 'http';
import type { AddressInfo } from 'net';

import { readBody, sendJson } from '../sandbox/http';

export interface ToolSpec {
	type: 'function';
	function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

interface ToolCall {
	id: string;
	type: 'function';
	function: { name: string; arguments: string };
}

interface ChatMessage {
	role: string;
	content?: unknown;
	tool_calls?: ToolCall[];
	tool_call_id?: string;
}

export interface ChatRequest {
	model?: string;
	messages: ChatMessage[];
	tools?: ToolSpec[];
	stream?: boolean;
	[key: string]: unknown;
}

/** One tool result the model has seen: which tool, with which arguments, and what came back. */
export interface ToolResult {
	tool: string;
	args: Record<string, unknown>;
	/** The text the tool returned, as the model received it. */
	content: string;
	/** `content` parsed as JSON when it is JSON (n8n sends tool output as a JSON string). */
	json: unknown;
}

export interface Conversation {
	/** The last message from the user. */
	user: string;
	system: string;
	tools: ToolSpec[];
	results: ToolResult[];
}

export type Reply =
	{ calls: Array<{ tool: string; args: Record<string, unknown> }> } | { answer: string };

export type Script = (conversation: Conversation) => Reply;

function text(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content))
		return content
			.map((part: unknown) =>
				typeof part === 'object' && part !== null && 'text' in part
					? String((part as { text: unknown }).text)
					: '',
			)
			.join('');
	return content === undefined || content === null ? '' : JSON.stringify(content);
}

function parse(raw: string): unknown {
	try {
		return JSON.parse(raw) as unknown;
	} catch {
		return undefined;
	}
}

/** Reads the conversation out of a chat-completions request. */
export function conversationOf(request: ChatRequest): Conversation {
	const calls = new Map<string, ToolCall>();
	const results: ToolResult[] = [];
	let user = '';
	let system = '';
	for (const message of request.messages) {
		if (message.role === 'user') user = text(message.content);
		if (message.role === 'system') system = text(message.content);
		for (const call of message.tool_calls ?? []) calls.set(call.id, call);
		if (message.role === 'tool') {
			const call = calls.get(message.tool_call_id ?? '');
			const content = text(message.content);
			results.push({
				tool: call?.function.name ?? '',
				args: (parse(call?.function.arguments ?? '') as Record<string, unknown>) ?? {},
				content,
				json: parse(content),
			});
		}
	}
	return { user, system, tools: request.tools ?? [], results };
}

function completion(model: string, reply: Reply) {
	const message =
		'answer' in reply
			? { role: 'assistant', content: reply.answer }
			: {
					role: 'assistant',
					content: null,
					tool_calls: reply.calls.map((call) => ({
						id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
						type: 'function' as const,
						function: { name: call.tool, arguments: JSON.stringify(call.args) },
					})),
				};
	return {
		id: `chatcmpl-${randomUUID()}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model,
		choices: [
			{
				index: 0,
				message,
				logprobs: null,
				finish_reason: 'answer' in reply ? 'stop' : 'tool_calls',
			},
		],
		usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
	};
}

export interface ScriptedModel {
	/** The base URL for the OpenAI credential, ending in /v1. */
	url: string;
	/** Every chat-completions request received, in order. */
	requests: ChatRequest[];
	/** Adds a script, chosen when the user's message contains `cue`. */
	script(cue: string, script: Script): void;
	stop(): Promise<void>;
}

/**
 * Starts the scripted model on 127.0.0.1. A request whose user message matches no script gets a
 * 400 in OpenAI's error shape, so a missing script fails the test loudly instead of looping.
 */
export async function startScriptedModel(port = 0): Promise<ScriptedModel> {
	const scripts: Array<{ cue: string; script: Script }> = [];
	const requests: ChatRequest[] = [];
	const handle = async (req: IncomingMessage, res: ServerResponse) => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		if (req.method === 'GET' && url.pathname === '/v1/models') {
			sendJson(res, 200, {
				object: 'list',
				data: [{ id: 'scripted-model', object: 'model', created: 0, owned_by: 'tests' }],
			});
			return;
		}
		if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
			sendJson(res, 404, {
				error: { message: `The scripted model has no ${req.method} ${url.pathname}` },
			});
			return;
		}
		const request = parse(await readBody(req)) as ChatRequest | undefined;
		if (!request || !Array.isArray(request.messages)) {
			sendJson(res, 400, { error: { message: 'Not a chat-completions request' } });
			return;
		}
		if (request.stream === true) {
			sendJson(res, 400, { error: { message: 'The scripted model does not stream' } });
			return;
		}
		requests.push(request);
		const conversation = conversationOf(request);
		const chosen = scripts.find((s) => conversation.user.includes(s.cue));
		if (!chosen) {
			sendJson(res, 400, {
				error: {
					message: `No script for the message ${JSON.stringify(conversation.user.slice(0, 80))}`,
				},
			});
			return;
		}
		let reply: Reply;
		try {
			reply = chosen.script(conversation);
		} catch (error) {
			sendJson(res, 400, { error: { message: `Script "${chosen.cue}": ${String(error)}` } });
			return;
		}
		sendJson(res, 200, completion(request.model ?? 'scripted-model', reply));
	};
	const server: Server = createServer((req, res) => {
		handle(req, res).catch((error: unknown) => {
			if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } });
		});
	});
	await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
	const { port: bound } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${bound}/v1`,
		requests,
		script: (cue, script) => scripts.push({ cue, script }),
		stop: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
