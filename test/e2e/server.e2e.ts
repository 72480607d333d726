/**
 * A running n8n (`n8n start`) with the package installed: an active trigger workflow fires once
 * for a change made in the sandbox, and the editor, in headless Chromium, shows the node with its
 * dropdowns filled from the sandbox. Screenshots go to test/e2e/screenshots/ for the README.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { DEMO } from '../sandbox/store';
import { ensureN8n, N8N_VERSION, prepareUserFolder, ROOT, startN8n } from './n8n';
import type { WorkflowJson } from './setup';
import { exampleWorkflows, importCredential, importWorkflows, publishWorkflow, setupOwner } from './setup';

const PORT = 5691;
const SCREENSHOTS = path.join(ROOT, 'test', 'e2e', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const options = { userFolder: mkdtempSync(path.join(tmpdir(), 'n8n-e2e-server-')), port: PORT, version: N8N_VERSION };

let sandbox: Sandbox;
let n8n: Awaited<ReturnType<typeof startN8n>>;
let cookie: string;

const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000) => {
	const deadline = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
};

const pollsOfPools = () => sandbox.requests().filter((r) => r.method === 'GET' && r.path === '/promo-pools').length;
const uploads = () => sandbox.requests().filter((r) => r.method === 'POST' && r.path.endsWith('/codes'));

beforeAll(async () => {
	ensureN8n(N8N_VERSION);
	sandbox = await startSandbox();
	prepareUserFolder(options.userFolder);
	await importCredential(options, { baseUrl: sandbox.url, apiKey: sandbox.mintKey() });
	const workflows = exampleWorkflows();
	const restock = workflows.find((w) => w.id === 'mcrmRestockFlow01') as WorkflowJson;
	// The shortest poll interval n8n allows: every minute.
	restock.nodes[0].parameters.pollTimes = { item: [{ mode: 'everyMinute' }] };
	await importWorkflows(options, workflows);
	await publishWorkflow(options, 'mcrmRestockFlow01');
	n8n = await startN8n({ ...options, output: (chunk) => appendFileSync(path.join(tmpdir(), 'n8n-e2e-server.log'), chunk) });
	cookie = await setupOwner(n8n.url);
});

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.stop();
});

describe(`a running n8n ${N8N_VERSION}`, () => {
	it('runs the active trigger workflow exactly once for a pool that ran low', async () => {
		await until('the baseline poll', () => pollsOfPools() >= 1, 90_000);
		expect(uploads()).toHaveLength(0);
		sandbox.issueCodes(DEMO.vipPool, 8); // 2 of 10 left: at or below the threshold of 3
		await until('the restock upload', () => uploads().length > 0, 90_000);
		const seen = pollsOfPools();
		await until('one more poll', () => pollsOfPools() >= seen + 1, 90_000);
		expect(uploads()).toHaveLength(1);
		expect(sandbox.store.promoPools.get(DEMO.vipPool)!.rows.filter((r) => r.code.startsWith('RESTOCK-'))).toHaveLength(25);
		const response = await fetch(`${n8n.url}/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: 'mcrmRestockFlow01' }))}`, { headers: { cookie } });
		const body = (await response.json()) as { data: { results: Array<{ status: string }> } };
		expect(body.data.results.map((e) => e.status)).toEqual(['success']);
	});

	describe('the editor in headless Chromium', () => {
		let browser: Browser;
		let page: Page;

		beforeAll(async () => {
			if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium`);
			mkdirSync(SCREENSHOTS, { recursive: true });
			browser = await chromium.launch({
				executablePath: CHROMIUM,
				args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
			});
			const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
			const [name, value] = cookie.split('=');
			await context.addCookies([{ name, value, domain: 'localhost', path: '/' }]);
			page = await context.newPage();
		});
		afterAll(async () => browser?.close());

		async function openNode(workflowId: string, nodeName: string) {
			await page.goto(`${n8n.url}/workflow/${workflowId}`, { waitUntil: 'domcontentloaded' });
			const node = page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`).first();
			await node.waitFor({ timeout: 60_000 });
			await node.dblclick();
			await page.locator('[data-test-id="ndv"]').first().waitFor({ timeout: 30_000 });
		}

		async function optionsOf(parameter: string): Promise<string[]> {
			const field = page.locator(`[data-test-id="parameter-input-${parameter}"]`).first();
			await field.click();
			const items = page.locator('.el-select-dropdown:visible .el-select-dropdown__item');
			await items.first().waitFor({ timeout: 30_000 });
			const texts = await items.allInnerTexts();
			await page.keyboard.press('Escape');
			await items.first().waitFor({ state: 'hidden', timeout: 10_000 });
			return texts.map((t) => t.split('\n')[0].trim());
		}

		it('shows the agent and pipeline dropdowns filled from the sandbox, and saves a screenshot', async () => {
			await openNode('mcrmWelcomeFlow01', 'Create or update customer');
			expect(await optionsOf('agentId')).toEqual(['(Not Set)', 'Sales Chat', 'Support Bot']);
			expect(await optionsOf('pipelineId')).toEqual(['(Not Set)', 'Onboarding', 'Sales (default)']);
			await page.screenshot({ path: path.join(SCREENSHOTS, 'node-panel.png') });
		});

		it('shows the trigger panel, and saves a screenshot', async () => {
			await openNode('mcrmRestockFlow01', 'Pool became low');
			await page.locator('[data-test-id="parameter-input-poolEvents"]').first().waitFor({ timeout: 30_000 });
			await page.screenshot({ path: path.join(SCREENSHOTS, 'trigger-panel.png') });
		});
	});
});
