/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-hardcoded-secrets -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * A running n8n (`n8n start`) with the package installed: an active trigger workflow fires once
 * for a change made in the sandbox, and the editor, in headless Chromium, shows the node with its
 * dropdowns filled from the sandbox and the AI agent example with its tools. Screenshots go to test/e2e/screenshots/ for the README and docs/.
 */
import { spawnSync } from 'child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'fs';
import path from 'path';

import type { Browser, Page } from 'playwright-core';

import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { demoPersonId, seedDemoPeople } from '../sandbox/demo';
import { DEMO } from '../sandbox/store';
import { openEditor, optionsOf } from './browser';
import {
	ensureN8n,
	installPackage,
	N8N_VERSION,
	packedPackage,
	prepareUserFolder,
	ROOT,
	startN8n,
} from './n8n';
import type { ExecutionSummary } from './rest';
import { executeInEditor, executions, publishInEditor, until } from './rest';
import type { WorkflowJson } from './setup';
import {
	AGENT_WORKFLOW_ID,
	CREDENTIAL_ID,
	crmCredential,
	exampleWorkflow,
	exampleWorkflows,
	importCredentials,
	importWorkflows,
	MCP_WORKFLOW_ID,
	mcpTokenCredential,
	privateFolder,
	privateLog,
	setupOwner,
	WINDOW_WORKFLOW_ID,
} from './setup';
import { N8N_PORTS } from './ports';

const PORT = N8N_PORTS.server;
const SCREENSHOTS = path.join(ROOT, 'test', 'e2e', 'screenshots');
const options = {
	userFolder: privateFolder('n8n-e2e-server-'),
	port: PORT,
	version: N8N_VERSION,
};

let sandbox: Sandbox;
let n8n: Awaited<ReturnType<typeof startN8n>>;
let cookie: string;

const FALLBACK_WORKFLOW = 'mcrmWindowFallbk1';
/** Example 1's Form Trigger, with a sample submission pinned. */
const FORM = 'When the form is submitted';

const BEST_WORKFLOW = 'mcrmBestAvailbl1';

/** Manual Trigger "Run" → a Messaging CRM Send with these parameters. */
function manualSendWorkflow(
	id: string,
	name: string,
	send: Record<string, unknown>,
	nodeIds: [string, string],
): WorkflowJson {
	return {
		id,
		name,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				parameters: {},
				name: 'Run',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				id: nodeIds[0],
			},
			{
				parameters: { resource: 'message', operation: 'send', ...send },
				name: 'Send',
				type: 'n8n-nodes-messaging-crm.messagingCrm',
				typeVersion: 1,
				position: [220, 0],
				id: nodeIds[1],
				credentials: { messagingCrmApi: { id: CREDENTIAL_ID, name: 'Messaging CRM sandbox' } },
			},
		],
		connections: { Run: { main: [[{ node: 'Send', type: 'main', index: 0 }]] } },
	};
}

/** Send (text) with Send a Template Instead, to a customer whose window is closed. */
const windowFallbackWorkflow = (customerId: string) =>
	manualSendWorkflow(
		FALLBACK_WORKFLOW,
		'e2e: a template when the window is closed',
		{
			customerId: { __rl: true, mode: 'id', value: customerId },
			messengerType: 'whatsapp',
			content: 'text',
			text: 'Your order has shipped',
			windowClosed: 'template',
			fallbackTemplateName: 'order_update',
			fallbackTemplateLanguage: 'en',
			fallbackTemplateVariables: { variable: [{ value: 'Jane' }, { value: 'A-17' }] },
		},
		['6c0e2f1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b', '7d1f3a2b-4c5e-4f60-9b0c-1d2e3f4a5b6c'],
	);

/** Send (text) on the Best Available of Chloé Martin's messengers (Telegram never started). */
const bestAvailableWorkflow = () =>
	manualSendWorkflow(
		BEST_WORKFLOW,
		'e2e: Best Available to Chloé',
		{
			customerId: { __rl: true, mode: 'id', value: demoPersonId('Chloé Martin') },
			messengerType: 'bestAvailable',
			content: 'text',
			text: 'Your order has shipped',
		},
		['8e2a4b3c-5d6f-4071-8c1d-2e3f4a5b6c7d', '9f3b5c4d-6e70-4182-9d2e-3f4a5b6c7d8e'],
	);

const pollsOfPools = () =>
	sandbox.requests().filter((r) => r.method === 'GET' && r.path === '/promo-pools').length;
const uploads = () =>
	sandbox.requests().filter((r) => r.method === 'POST' && r.path.endsWith('/codes'));

/**
 * The three published triggers' stories (a pool that runs low, a template approved, a window
 * about to close), begun together once n8n is up: each waits on n8n's polls a minute apart, so
 * together they take the longest one's minutes, not the sum. Each test below awaits its own.
 */
const stories = {
	async restock() {
		await until('the baseline poll', () => pollsOfPools() >= 1, 90_000);
		expect(uploads()).toHaveLength(0);
		sandbox.issueCodes(DEMO.vipPool, 8); // 2 of 10 left: at or below the threshold of 3
		await until('the restock upload', () => uploads().length > 0, 90_000);
		const seen = pollsOfPools();
		await until('one more poll', () => pollsOfPools() >= seen + 1, 90_000);
		expect(uploads()).toHaveLength(1);
		expect(
			sandbox.store.promoPools.get(DEMO.vipPool)!.rows.filter((r) => r.code.startsWith('RESTOCK-')),
		).toHaveLength(25);
		const ran = await executions({ url: n8n.url, cookie }, 'mcrmRestockFlow01');
		expect(ran.map((e) => e.status)).toEqual(['success']);
	},
	async template() {
		const templatePolls = () =>
			sandbox.requests().filter((r) => r.method === 'GET' && r.path === '/bizchat/templates')
				.length;
		await until('the templates baseline', () => templatePolls() >= 1, 90_000);
		const key = sandbox.mintKey();
		const created = await fetch(`${sandbox.url}/bizchat/templates`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
			body: JSON.stringify({
				name: 'back_in_stock',
				category: 'UTILITY',
				language: 'en',
				components: [{ type: 'BODY', text: 'Hi {{1}}, your favourite is back in stock.' }],
			}),
		});
		expect(created.status).toBe(201);
		// Approved before the next poll sees it pending: it is reported New and Approved at once.
		sandbox.store.templates.find((t) => t.name === 'back_in_stock')!.status = 'APPROVED';
		const anna = demoPersonId('Anna Petrova');
		const sentToAnna = () =>
			[...sandbox.store.messages.values()].filter(
				(m) => m.customer_id === anna && JSON.stringify(m).includes('back_in_stock'),
			);
		await until('the template sent to Anna', () => sentToAnna().length > 0, 90_000);
		const after = templatePolls();
		await until('one more poll', () => templatePolls() > after, 90_000);
		expect(sentToAnna()).toHaveLength(1);
		const ran = await executions({ url: n8n.url, cookie }, 'mcrmTemplateFlow1');
		expect(ran.map((e) => e.status)).toEqual(['success']);
	},
	async window() {
		const eva = demoPersonId('Eva Novak');
		const windowPolls = () =>
			sandbox
				.requests()
				.filter((r) => r.method === 'GET' && r.path === `/customers/${eva}/messengers`).length;
		const followUps = () =>
			[...sandbox.store.messages.values()].filter(
				(m) => m.customer_id === eva && m.messenger_type === 'facebook' && m.status === 'sent',
			);
		// Her window closed 63 minutes after the company was made; by now the hour before it may
		// have begun in real time. So she writes again (on the store, at a time of our choosing): her
		// new window closes in 61 minutes, which a poll records out of the lead time. The server's
		// clock then moves 5 minutes on (56 minutes left).
		await until('the baseline of her window', () => windowPolls() >= 1, 90_000);
		const before = followUps().length;
		const facebook = sandbox.store.customers
			.get(eva)!
			.messengers.find((m) => m.type === 'facebook')!;
		facebook.last_inbound_at = new Date(sandbox.now() - 24 * 3_600_000 + 61 * 60_000).toISOString();
		const recorded = windowPolls();
		await until('a poll that records her new window', () => windowPolls() > recorded, 90_000);
		expect(followUps()).toHaveLength(before);
		sandbox.advanceClock(5 * 60_000);
		await until('the follow-up to Eva on Facebook', () => followUps().length > before, 90_000);
		const after = windowPolls();
		await until('one more poll', () => windowPolls() > after, 90_000);
		expect(followUps()).toHaveLength(before + 1);
		expect(String(followUps().at(-1)!.text)).toMatch(/stays open for 5[4-6] more minutes/);
		const ran = await executions({ url: n8n.url, cookie }, WINDOW_WORKFLOW_ID);
		expect(ran.map((e) => e.status)).toEqual(Array(before + 1).fill('success'));
	},
};
let begun: Record<keyof typeof stories, Promise<void>>;

beforeAll(async () => {
	await ensureN8n(N8N_VERSION);
	sandbox = await startSandbox();
	prepareUserFolder(options.userFolder);
	await importCredentials(options, [
		crmCredential({ baseUrl: sandbox.url, apiKey: sandbox.mintKey() }),
		mcpTokenCredential('server-e2e-mcp-token'),
	]);
	// A customer on WhatsApp who never wrote: the 24-hour window is closed.
	const silent = sandbox.demoCustomer('Silent WhatsApp customer');
	sandbox.addMessenger(silent, 'whatsapp', '15550109999');
	const workflows = [
		...exampleWorkflows(),
		windowFallbackWorkflow(silent),
		bestAvailableWorkflow(),
	];
	const restock = workflows.find((w) => w.id === 'mcrmRestockFlow01') as WorkflowJson;
	// The shortest poll interval n8n allows: every minute.
	restock.nodes[0].parameters.pollTimes = { item: [{ mode: 'everyMinute' }] };
	await importWorkflows(options, workflows);
	// Example 5 sends to Anna Petrova, one of the demo people; example 7 follows up with Eva Novak.
	seedDemoPeople(sandbox);
	n8n = await startN8n({
		...options,
		output: privateLog('n8n-server.log'),
	});
	cookie = await setupOwner(n8n.url);
	for (const id of ['mcrmRestockFlow01', 'mcrmTemplateFlow1', WINDOW_WORKFLOW_ID])
		await publishInEditor({ url: n8n.url, cookie }, id);
	// Begun now, awaited by their tests (a story that fails before its test awaits it is not
	// reported twice).
	const begin = (story: () => Promise<void>) => {
		const running = story();
		running.catch(() => undefined);
		return running;
	};
	begun = {
		restock: begin(stories.restock),
		template: begin(stories.template),
		window: begin(stories.window),
	};
});

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.stop();
});

describe(`a running n8n ${N8N_VERSION}`, () => {
	it('sends the template instead of the text when the window is closed, once across two runs from the editor', async () => {
		const session = { url: n8n.url, cookie };
		const templates = () =>
			[...sandbox.store.messages.values()].filter(
				(m) => m.template?.name === 'order_update' && m.status !== 'failed',
			);
		expect((await executeInEditor(session, FALLBACK_WORKFLOW, 'Run')).status).toBe('success');
		expect((await executeInEditor(session, FALLBACK_WORKFLOW, 'Run')).status).toBe('success');
		expect(templates()).toHaveLength(1);
	});

	it('sends on the Best Available of Chloé’s messengers from the editor: Telegram refuses (never started), Instagram takes it, once across two runs', async () => {
		const session = { url: n8n.url, cookie };
		const chloe = demoPersonId('Chloé Martin');
		const delivered = () =>
			[...sandbox.store.messages.values()].filter(
				(m) => m.customer_id === chloe && m.status === 'sent',
			);
		const first = await executeInEditor(session, BEST_WORKFLOW, 'Run');
		expect(first.status).toBe('success');
		expect(delivered().map((m) => m.messenger_type)).toEqual(['instagram']);
		expect((await executeInEditor(session, BEST_WORKFLOW, 'Run')).status).toBe('success');
		expect(delivered()).toHaveLength(1);
	});

	describe("the credential test, run by n8n's own credentials tester", () => {
		const testCredential = async (data: Record<string, unknown>) => {
			const response = await fetch(`${n8n.url}/rest/credentials/test`, {
				method: 'POST',
				headers: { cookie, 'Content-Type': 'application/json', 'browser-id': 'e2e' },
				// The id of the stored credential, as the editor sends it; the data given here is what is tested.
				body: JSON.stringify({
					credentials: {
						id: CREDENTIAL_ID,
						name: 'Messaging CRM sandbox',
						type: 'messagingCrmApi',
						data: { scopes: [], allowPlainHttp: false, ...data },
					},
				}),
			});
			const body = (await response.json()) as { data?: { status: string; message: string } };
			if (!body.data)
				throw new Error(`Credential test answered ${response.status}: ${JSON.stringify(body)}`);
			return body.data;
		};

		it('passes a valid key, also one that lacks agents:read', async () => {
			expect(
				(await testCredential({ baseUrl: sandbox.url, apiKey: sandbox.mintKey() })).status,
			).toBe('OK');
			expect(
				(await testCredential({ baseUrl: sandbox.url, apiKey: sandbox.mintKey(['promo:read']) }))
					.status,
			).toBe('OK');
			expect(
				(await testCredential({ baseUrl: sandbox.url, apiKey: 'mcrm_unknown_key_1234' })).message,
			).toMatch(/refused this key/);
		});

		it('refuses plain http:// off this machine before sending the key; allowed, the same address is reached', async () => {
			// 0.0.0.0 is not loopback by the rule, but a connection to it lands on this machine.
			const offMachine = sandbox.url.replace('127.0.0.1', '0.0.0.0');
			// Counted by key: the running n8n's own workflows may call the sandbox meanwhile with theirs.
			const [refusedKey, allowedKey] = [sandbox.mintKey(), sandbox.mintKey()];
			const ids = new Set([refusedKey, allowedKey].map((key) => sandbox.addKey(key)));
			const sent = () =>
				sandbox.requests().filter((r) => r.keyId === undefined || ids.has(r.keyId)).length;
			const before = sent();
			const refused = await testCredential({ baseUrl: offMachine, apiKey: refusedKey });
			expect(refused.status).toBe('Error');
			expect(refused.message).toBe('ERR_BAD_REQUEST');
			expect(sent()).toBe(before);
			const allowed = await testCredential({
				baseUrl: offMachine,
				apiKey: allowedKey,
				allowPlainHttp: true,
			});
			expect(allowed.status).toBe('OK');
			expect(sent()).toBe(before + 1);
		});

		it('shows nothing of the key when the server echoes it', async () => {
			const apiKey = sandbox.mintKey();
			for (const format of ['envelope', 'text'] as const) {
				sandbox.injectFault({ path: '/agents', count: 1, kind: 'echo', status: 500, format });
				const result = await testCredential({ baseUrl: sandbox.url, apiKey });
				expect(sandbox.requests().at(-1)?.fault).toBe('echo');
				expect(JSON.stringify(result)).not.toContain(apiKey);
			}
		});
	});

	describe('the editor in headless Chromium', () => {
		let browser: Browser;
		let page: Page;

		beforeAll(async () => {
			mkdirSync(SCREENSHOTS, { recursive: true });
			({ browser, page } = await openEditor(cookie));
		});
		afterAll(async () => browser?.close());

		async function openNode(workflowId: string, nodeName: string) {
			await page.goto(`${n8n.url}/workflow/${workflowId}`, { waitUntil: 'domcontentloaded' });
			const node = page
				.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`)
				.first();
			await node.waitFor({ timeout: 60_000 });
			await node.dblclick();
			await page.locator('[data-test-id="ndv"]').first().waitFor({ timeout: 30_000 });
		}

		/** An example workflow in the editor, once every node of it is on the canvas. */
		async function showWorkflow(id: string) {
			await page.goto(`${n8n.url}/workflow/${id}`, { waitUntil: 'domcontentloaded' });
			const workflow = exampleWorkflow(id);
			for (const node of workflow.nodes)
				await page
					.locator(`[data-test-id="canvas-node"][data-node-name="${node.name}"]`)
					.first()
					.waitFor({ timeout: 60_000 });
			// The canvas fades its nodes in: a screenshot waits for that to end.
			await page.waitForFunction(
				"document.getAnimations().every((animation) => animation.playState !== 'running')",
			);
		}

		it('shows the agent and pipeline dropdowns filled from the sandbox, and saves a screenshot', async () => {
			await openNode('mcrmWelcomeFlow01', 'Create or update customer');
			expect(await optionsOf(page, 'agentId')).toEqual([
				'(Company Default)',
				'Sales Chat',
				'Support Bot',
			]);
			expect(await optionsOf(page, 'pipelineId')).toEqual([
				"(The Agent's Default Pipeline)",
				'Onboarding · Support Bot',
				'Sales · Support Bot (default)',
			]);
			await page.screenshot({ path: path.join(SCREENSHOTS, 'node-panel.png') });
		});

		it('shows Send and Wait for Response in example 8 (its response type and wait), and saves a screenshot', async () => {
			await openNode('mcrmConfirmAppt01', 'Ask to confirm');
			await page
				.locator('[data-test-id="parameter-input-responseType"]')
				.first()
				.waitFor({ timeout: 30_000 });
			expect(await optionsOf(page, 'responseType')).toEqual([
				'Approval',
				'Free Text',
				'Custom Form',
			]);
			await page.screenshot({ path: path.join(SCREENSHOTS, 'send-and-wait-panel.png') });
		});

		/** The Messaging CRM tools of an example that are on the canvas, by name. */
		async function toolsOnCanvas(id: string): Promise<string[]> {
			const tools = exampleWorkflow(id).nodes.filter(
				(node) => node.type === 'n8n-nodes-messaging-crm.messagingCrmTool',
			);
			const shown: string[] = [];
			for (const tool of tools) {
				const onCanvas = page.locator(
					`[data-test-id="canvas-node"][data-node-name="${tool.name}"]`,
				);
				if ((await onCanvas.count()) === 1) shown.push(tool.name);
			}
			return shown;
		}

		it('shows the AI agent example with its five Messaging CRM tools, and saves screenshots', async () => {
			await showWorkflow(AGENT_WORKFLOW_ID);
			expect(await toolsOnCanvas(AGENT_WORKFLOW_ID)).toHaveLength(5);
			await page.screenshot({ path: path.join(SCREENSHOTS, 'agent-workflow.png') });
			await openNode(AGENT_WORKFLOW_ID, 'Send text');
			const description = page.locator('[data-test-id="parameter-input-toolDescription"]').first();
			await description.waitFor({ timeout: 30_000 });
			// The tool's description, as the agent reads it, is shown filled in.
			expect(
				(await description.locator('textarea, input').first().inputValue()).length,
			).toBeGreaterThan(20);
			await page.screenshot({ path: path.join(SCREENSHOTS, 'agent-tool-panel.png') });
		});

		it('shows the MCP server example, its trigger and five tools, and saves a screenshot', async () => {
			await showWorkflow(MCP_WORKFLOW_ID);
			expect(await toolsOnCanvas(MCP_WORKFLOW_ID)).toHaveLength(5);
			const trigger = exampleWorkflow(MCP_WORKFLOW_ID).nodes.find((node) =>
				node.type.endsWith('.mcpTrigger'),
			);
			expect(
				await page
					.locator(`[data-test-id="canvas-node"][data-node-name="${trigger?.name}"]`)
					.count(),
			).toBe(1);
			await page.screenshot({ path: path.join(SCREENSHOTS, 'mcp-workflow.png') });
		});

		it("shows the node's icon on the canvas with no status mark before a run and n8n's own after it, and saves both screenshots", async () => {
			const crmNodes = ['Create or update customer', 'Open conversation', 'Send welcome message'];
			const canvasNode = (name: string) =>
				page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`).first();
			const marked = async () =>
				(
					await Promise.all(
						crmNodes.map((n) =>
							canvasNode(n).locator('[data-test-id="canvas-node-status-success"]').count(),
						),
					)
				).reduce((a, b) => a + b, 0);
			await page.goto(`${n8n.url}/workflow/mcrmWelcomeFlow01`, { waitUntil: 'domcontentloaded' });
			for (const name of crmNodes) await canvasNode(name).waitFor({ timeout: 60_000 });
			expect(await canvasNode(crmNodes[0]).locator('img[src*="messagingCrm"]').count()).toBe(1);
			expect(await marked()).toBe(0);
			await page.screenshot({ path: path.join(SCREENSHOTS, 'canvas-before-run.png') });
			// The big Execute workflow button a newcomer clicks: the Form Trigger runs on its pinned
			// sample submission at once (no form tab opens, nothing waits for a submission).
			const pages = browser.contexts()[0].pages().length;
			await page.locator('[data-test-id="execute-workflow-button"]').first().click();
			await canvasNode(crmNodes[2])
				.locator('[data-test-id="canvas-node-status-success"]')
				.waitFor({ timeout: 60_000 });
			expect(await marked()).toBe(3);
			expect(browser.contexts()[0].pages()).toHaveLength(pages);
			await page.screenshot({ path: path.join(SCREENSHOTS, 'canvas-after-run.png') });
		});

		it('shows the trigger panel, and saves a screenshot', async () => {
			await openNode('mcrmRestockFlow01', 'Pool became low');
			await page
				.locator('[data-test-id="parameter-input-events"]')
				.first()
				.waitFor({ timeout: 30_000 });
			await page.screenshot({ path: path.join(SCREENSHOTS, 'trigger-panel.png') });
		});
	});

	// Last: the three trigger stories (`stories`, begun in beforeAll) wait on n8n's polls a minute
	// apart, and the tests before these run in those minutes.
	it('runs the active trigger workflow exactly once for a pool that ran low', async () => {
		await begun.restock;
	});

	it('runs example 5 once a template it created is approved: the template goes to Anna on WhatsApp', async () => {
		await begun.template;
	});

	it("runs example 7 once Eva Novak's Facebook window comes within the hour of closing, by the sandbox's clock", async () => {
		await begun.window;
	});
});

/**
 * The next version of the package, as a registry would hand it to n8n's installer: this build
 * with another version in its package.json, and a word added to the node's search aliases (its
 * codex file), so that the editor can show which files n8n loaded.
 */
function nextVersion(version: string, marker: string): string {
	const folder = privateFolder('mcrm-next-');
	spawnSync('tar', ['-xzf', packedPackage(), '-C', folder]);
	const edit = (file: string, change: (json: Record<string, unknown>) => void) => {
		const full = path.join(folder, 'package', file);
		const json = JSON.parse(readFileSync(full, 'utf8')) as Record<string, unknown>;
		change(json);
		writeFileSync(full, JSON.stringify(json));
	};
	edit('package.json', (pkg) => (pkg.version = version));
	edit('dist/nodes/MessagingCrm/MessagingCrm.node.json', (codex) =>
		(codex.alias as string[]).push(marker),
	);
	const tarball = path.join(folder, `n8n-nodes-messaging-crm-${version}.tgz`);
	const packed = spawnSync('tar', ['-czf', tarball, '-C', folder, 'package']);
	expect(packed.status).toBe(0);
	return tarball;
}

describe('an update of the package, as n8n installs one', () => {
	it('from this version to the next: n8n loads the new files, and the saved workflows run as before', async () => {
		const session = { url: n8n.url, cookie };
		const aliases = async () => {
			const response = await fetch(`${n8n.url}/types/nodes.json`, { headers: { cookie } });
			const types = (await response.json()) as Array<{
				name: string;
				codex?: { alias?: string[] };
			}>;
			return types.find((t) => t.name === 'n8n-nodes-messaging-crm.messagingCrm')?.codex?.alias;
		};
		const marker = 'Updated to 0.1.1';
		expect(await aliases()).not.toContain(marker);
		const before = await executeInEditor(session, 'mcrmWelcomeFlow01', FORM);
		expect(before.status).toBe('success');
		// As Settings → Community Nodes → Update: stop, install over the old folder, start.
		await n8n.stop();
		expect(installPackage(options.userFolder, nextVersion('0.1.1', marker))).toBe('0.1.1');
		const installed = path.join(options.userFolder, '.n8n', 'nodes');
		expect(readdirSync(path.join(installed, 'node_modules'))).toEqual(['n8n-nodes-messaging-crm']);
		expect(JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'))).toMatchObject({
			dependencies: { 'n8n-nodes-messaging-crm': '0.1.1' },
		});
		n8n = await startN8n({ ...options, output: privateLog('n8n-server-updated.log') });
		cookie = await setupOwner(n8n.url);
		const updated = { url: n8n.url, cookie };
		expect(await aliases()).toContain(marker);
		// A saved workflow run from the editor, and the published trigger's, on the new version.
		const after = await executeInEditor(updated, 'mcrmWelcomeFlow01', FORM);
		expect(after.status).toBe('success');
		const uploaded = uploads().length;
		// The pool runs low again (the restock of the first test filled it): issue all but two.
		const { remaining } = sandbox.issueCodes(DEMO.vipPool, 0)!.pool;
		sandbox.issueCodes(DEMO.vipPool, remaining - 2);
		await until(
			'the published trigger to fire on the new version',
			() => uploads().length > uploaded,
			150_000,
		);
		// The upload shows before the execution has ended: on a loaded machine, a while before.
		let ran: ExecutionSummary[] = [];
		await until(
			'the restock execution on the new version to end',
			async () => {
				ran = await executions(updated, 'mcrmRestockFlow01');
				return ran.length >= 2 && !ran.some((e) => e.status === 'running' || e.status === 'new');
			},
			60_000,
		);
		expect(ran.map((e) => e.status)).toEqual(['success', 'success']);
	}, 600_000);
});
