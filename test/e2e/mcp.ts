/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * An MCP client of n8n's MCP Server Trigger, as the end-to-end tests connect one; and of n8n 2.x's
 * own MCP server (`/mcp-server/http`), whose workflow-builder tools (search_nodes, get_node_types)
 * are the ones n8n's AI Workflow Builder reads nodes through.
 */
// The SDK's "./*" export maps a path ending in .js to a ".js.d.ts" for types, which ESLint's
// resolver cannot find (TypeScript reads the SDK's typesVersions instead, and Node the .js).
/* eslint-disable import-x/no-unresolved */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
/* eslint-enable import-x/no-unresolved */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Where example 6's MCP Server Trigger listens once published. */
export const mcpEndpoint = (n8nUrl: string) => new URL(`${n8nUrl}/mcp/messaging-crm`);

/**
 * A client connected over streamable HTTP with a bearer token, through `fetch` as given (to record
 * what it receives). n8n answers 404 for a moment after its start (2.x: "not registered" until it
 * has registered the published workflows' webhooks; 1.x: before its routes are up): the client
 * tries again for a minute.
 */
export async function connectMcp(
	endpoint: URL,
	token: string,
	fetchImpl: typeof fetch = fetch,
): Promise<Client> {
	const deadline = Date.now() + 60_000;
	for (;;) {
		const client = new Client({ name: 'messaging-crm-e2e', version: '1.0.0' });
		const transport = new StreamableHTTPClientTransport(endpoint, {
			fetch: fetchImpl,
			requestInit: { headers: { Authorization: `Bearer ${token}` } },
		});
		try {
			await client.connect(transport);
			return client;
		} catch (error) {
			await client.close().catch(() => undefined);
			if ((error as { code?: unknown }).code !== 404 || Date.now() > deadline) throw error;
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
	}
}

/** The text of a tool result (n8n answers one text part). */
export function textOf(result: unknown): string {
	const { content } = result as CallToolResult;
	return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/**
 * n8n 2.x's own MCP server, as Settings → MCP access turns it on for the signed-in owner: access
 * enabled, a fresh MCP API key (rotated, so its value is given in full), a client connected with it.
 */
export async function connectInstanceMcp(n8nUrl: string, cookie: string): Promise<Client> {
	const headers = { cookie, 'Content-Type': 'application/json', 'browser-id': 'e2e' };
	const enabled = await fetch(`${n8nUrl}/rest/mcp/settings`, {
		method: 'PATCH',
		headers,
		body: JSON.stringify({ mcpAccessEnabled: true }),
	});
	if (!enabled.ok) throw new Error(`Enabling MCP access answered ${enabled.status}`);
	const rotated = await fetch(`${n8nUrl}/rest/mcp/api-key/rotate`, { method: 'POST', headers });
	const body = (await rotated.json()) as { data?: { apiKey?: string } };
	if (!body.data?.apiKey) throw new Error(`The MCP API key answered ${rotated.status}`);
	return await connectMcp(new URL(`${n8nUrl}/mcp-server/http`), body.data.apiKey);
}
