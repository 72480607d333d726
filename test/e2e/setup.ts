/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/** Credentials and workflows imported into a real n8n, shared by `npm run dev` and the e2e tests. */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

import type { Sandbox } from '../sandbox/server';
import type { N8nOptions } from './n8n';
import { n8nCli } from './n8n';

export const CREDENTIAL_ID = 'mcrmSandboxCred01';

const privateFolders: string[] = [];

/**
 * A folder only this user can read (an n8n user folder holds the encryption key and the
 * credentials), removed when the process exits, as every file the tests write must be.
 */
export function privateFolder(prefix: string): string {
	const folder = mkdtempSync(path.join(tmpdir(), prefix));
	privateFolders.push(folder);
	return folder;
}

let logFolder: string | undefined;

/**
 * A writer of an n8n process's output into a private folder removed with the others (a log may
 * hold what n8n printed of a credential); Jest shows the failing assertion. Output that comes
 * after the folder is gone (n8n stopping) is dropped.
 */
export function privateLog(name: string): (text: string) => void {
	logFolder ??= privateFolder('n8n-e2e-logs-');
	const file = path.join(logFolder, name);
	return (text) => {
		try {
			appendFileSync(file, text, { mode: 0o600 });
		} catch {
			// The folder was removed at the end of the test file.
		}
	};
}

function removePrivateFolders(): void {
	logFolder = undefined;
	for (const folder of privateFolders.splice(0)) rmSync(folder, { recursive: true, force: true });
}

// In a test file, after its last test (Jest's `process` does not see the worker's exit); in
// `npm run dev`, at exit.
if (typeof afterAll === 'function') afterAll(removePrivateFolders);
else process.once('exit', removePrivateFolders);

/** Runs `use` with `content` in a file of a private folder, removed afterwards. */
async function withPrivateFile<T>(
	name: string,
	content: string,
	use: (file: string) => Promise<T>,
): Promise<T> {
	const folder = mkdtempSync(path.join(tmpdir(), 'mcrm-import-'));
	try {
		const file = path.join(folder, name);
		writeFileSync(file, content, { mode: 0o600 });
		return await use(file);
	} finally {
		rmSync(folder, { recursive: true, force: true });
	}
}
export const WORKFLOWS_DIR = path.join(__dirname, 'workflows');
/** The example "AI agent answers a customer" (workflows/4-ai-agent-answers-a-customer.json). */
export const AGENT_WORKFLOW_ID = 'mcrmAgentAnswers1';

export interface WorkflowJson {
	id: string;
	name: string;
	active?: boolean;
	/** Kept by n8n's import: the editor's list is newest first. */
	updatedAt?: string;
	createdAt?: string;
	nodes: Array<{
		name: string;
		type: string;
		typeVersion?: number;
		parameters: Record<string, unknown>;
		credentials?: Record<string, { id: string; name: string }>;
		webhookId?: string;
		id?: string;
		position?: [number, number];
	}>;
	connections: unknown;
	/** Data pinned to a node: example 1's sample submission on its Form Trigger. */
	pinData?: Record<string, Array<{ json: Record<string, unknown> }>>;
	[key: string]: unknown;
}

/** The example workflows, stamped last updated a second apart from `newest` (example 1) down. */
export function exampleWorkflows(newest = Date.now()): WorkflowJson[] {
	const now = newest;
	return (
		readdirSync(WORKFLOWS_DIR)
			.filter((f) => f.endsWith('.json'))
			.sort()
			.map((f) => JSON.parse(readFileSync(path.join(WORKFLOWS_DIR, f), 'utf8')) as WorkflowJson)
			// n8n lists workflows last updated first: example 1 a second newer than 2, and so on, so
			// that the editor's list reads 1 to 6 from the top, as the README does.
			.map((workflow, index) => {
				const at = new Date(now - index * 1000).toISOString();
				return { ...workflow, createdAt: at, updatedAt: at };
			})
	);
}

/** One example workflow, by its ID. */
export function exampleWorkflow(id: string): WorkflowJson {
	const workflow = exampleWorkflows().find((w) => w.id === id);
	if (!workflow) throw new Error(`No example workflow has the ID ${id}`);
	return workflow;
}

async function cli(args: string[], options: N8nOptions): Promise<string> {
	const result = await n8nCli(args, options);
	if (result.status !== 0)
		throw new Error(
			`n8n ${args.join(' ')} failed (${String(result.status)}):\n${result.stdout}\n${result.stderr}`,
		);
	return result.stdout;
}

/** A credential as `n8n import:credentials` reads it (n8n encrypts `data` on import). */
export interface CredentialJson {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

/**
 * Imports credentials, all in one `n8n import:credentials`: each n8n CLI command boots n8n (about
 * 2 s of CPU time alone, 3 to 6 s beside other work), so a file's credentials go in together.
 */
export async function importCredentials(
	options: N8nOptions,
	credentials: CredentialJson[],
): Promise<void> {
	await withPrivateFile('credentials.json', JSON.stringify(credentials), async (file) => {
		await cli(['import:credentials', `--input=${file}`], options);
	});
}

/** A "Messaging CRM API" credential, for `importCredentials`. */
export function crmCredential(
	data: { baseUrl: string; apiKey: string; scopes?: string[] },
	id = CREDENTIAL_ID,
	name = 'Messaging CRM sandbox',
): CredentialJson {
	return {
		id,
		name,
		type: 'messagingCrmApi',
		data: { scopes: [], allowPlainHttp: false, ...data },
	};
}

/** Imports a "Messaging CRM API" credential. */
export async function importCredential(
	options: N8nOptions,
	data: { baseUrl: string; apiKey: string; scopes?: string[] },
	id = CREDENTIAL_ID,
	name = 'Messaging CRM sandbox',
): Promise<void> {
	await importCredentials(options, [crmCredential(data, id, name)]);
}

/** Example 7, "Follow up before the window closes": `npm run dev` publishes it when it imports it. */
export const WINDOW_WORKFLOW_ID = 'mcrmWindowFlow01';

/** Example 6, "MCP server" (workflows/6-mcp-server-messaging-crm.json). */
export const MCP_WORKFLOW_ID = 'mcrmMcpServer001';
/** The bearer credential its MCP Server Trigger asks its clients for. */
export const MCP_BEARER_CREDENTIAL = { id: 'mcrmMcpBearer01', name: 'MCP clients (demo token)' };
/** The token `npm run dev` gives that credential (a demo value, like the sandbox's key). */
export const DEMO_MCP_TOKEN = 'mcrm-demo-mcp-client-token';

/** The bearer token MCP clients must send to example 6's MCP Server Trigger, as a credential. */
export function mcpTokenCredential(token: string): CredentialJson {
	return { ...MCP_BEARER_CREDENTIAL, type: 'httpBearerAuth', data: { token } };
}

/** Imports the bearer token MCP clients must send to example 6's MCP Server Trigger. */
export async function importMcpToken(options: N8nOptions, token: string): Promise<void> {
	await importCredentials(options, [mcpTokenCredential(token)]);
}

/** The IDs of the workflows an n8n has (`n8n export:workflow --all`; none: an empty list). */
export async function workflowIds(options: N8nOptions): Promise<string[]> {
	return await withPrivateFile('workflows.json', '[]', async (file) => {
		const result = await n8nCli(['export:workflow', '--all', `--output=${file}`], options);
		if (result.status !== 0) {
			if (/No workflows found/i.test(`${result.stdout}\n${result.stderr}`)) return [];
			throw new Error(`n8n export:workflow failed (${String(result.status)}): ${result.stderr}`);
		}
		return (JSON.parse(readFileSync(file, 'utf8')) as Array<{ id: string }>).map((w) => w.id);
	});
}

export async function importWorkflows(
	options: N8nOptions,
	workflows: WorkflowJson[],
): Promise<void> {
	await withPrivateFile('workflows.json', JSON.stringify(workflows), async (file) => {
		await cli(['import:workflow', `--input=${file}`], options);
	});
}

/**
 * Makes a workflow live before n8n starts: `publish:workflow` in n8n 2.x, `update:workflow
 * --active` in 1.x, one CLI command (one boot of n8n) per workflow. The end-to-end files publish
 * in the running n8n instead, as the editor's Publish does (`publishInEditor`, rest.ts).
 */
export async function publishWorkflow(options: N8nOptions, id: string): Promise<void> {
	if (options.version?.startsWith('1.'))
		await cli(['update:workflow', `--id=${id}`, '--active=true'], options);
	else await cli(['publish:workflow', `--id=${id}`], options);
}

/** A customer made through the sandbox's API, with its messengers; returns its ID. */
export async function apiCustomer(
	sandbox: Sandbox,
	body: Record<string, unknown>,
): Promise<string> {
	const response = await fetch(`${sandbox.url}/customers`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${sandbox.mintKey()}`, 'Content-Type': 'application/json' },
		body: JSON.stringify(body),
	});
	const json = (await response.json()) as { id: string };
	if (!response.ok) throw new Error(`Customer not created: ${JSON.stringify(json)}`);
	return json.id;
}

/** The messages the sandbox holds for a customer. */
export const customerMessages = (sandbox: Sandbox, customerId: string) =>
	[...sandbox.store.messages.values()].filter((m) => m.customer_id === customerId);

/** Creates the owner account so the editor can be logged into; returns the auth cookie. */
export async function setupOwner(
	url: string,
	email = 'demo@example.com',
	password = 'Demo-password-1',
): Promise<string> {
	// n8n 1.x reports ready before its REST routes are up (the setup answers 404 for a moment).
	let setup: Response;
	for (let tries = 0; ; tries++) {
		setup = await fetch(`${url}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ email, firstName: 'Demo', lastName: 'User', password }),
			signal: AbortSignal.timeout(30_000),
		});
		if (setup.status !== 404 || tries >= 120) break;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	const login = await fetch(`${url}/rest/login`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ emailOrLdapLoginId: email, password }),
		signal: AbortSignal.timeout(30_000),
	});
	if (!login.ok)
		throw new Error(
			`Login failed (${login.status}) after owner setup (${setup.status}): ${await login.text()}`,
		);
	const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
	if (!cookie) throw new Error('Login set no cookie');
	return cookie;
}
