/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * Message → Send and Wait for Response in real n8n, the newest 2.x and the newest 1.x: a published
 * workflow asks Anna on Telegram; the test reads the message the sandbox received, opens its link
 * in Chromium as a person would and presses the page's button; the execution resumes with the
 * answer, which the workflow's next node sends back to Anna ("Answer: {…}"), where the test reads
 * it. Also: a link preview's GET resumes nothing, Free Text and a Custom Form through their pages,
 * Limit Wait Time running out, a second press (later, and at once: a person's double press), two
 * people on two devices pressing Approve and Decline 0 to 600 ms apart (2.x: one answer recorded,
 * and each page says whose), n8n's Retry of the execution after the answer, and example 8 as
 * shipped, run twice from the editor.
 */
import path from 'path';

import type { Browser, Page } from 'playwright-core';

import type { Sandbox } from '../sandbox/server';
import { launchChromium, pressTwice } from './browser';
import { startSandbox } from '../sandbox/server';
import { ensureN8n, N8N_V1_VERSION, N8N_VERSION, prepareUserFolder, ROOT, startN8n } from './n8n';
import type { Session } from './rest';
import {
	executions,
	holdsFor,
	postToWebhook,
	publishInEditor,
	retryExecution,
	startInEditor,
	until,
} from './rest';
import type { WorkflowJson } from './setup';
import { answerIn, asking, FORM, linksIn, press } from './askWorkflows';
import { connectInstanceMcp, textOf } from './mcp';
import {
	apiCustomer,
	customerMessages,
	exampleWorkflow,
	importCredential,
	importWorkflows,
	privateFolder,
	privateLog,
	setupOwner,
} from './setup';
import { N8N_PORTS } from './ports';

const ACTION = 'n8n-nodes-messaging-crm.messagingCrm';
const TRIGGER = 'n8n-nodes-messaging-crm.messagingCrmTrigger';

/** A node type as n8n serves it to the editor (`/types/nodes.json`), the fields read here. */
interface ServedType {
	name: string;
	properties: Array<{
		name: string;
		type: string;
		default: unknown;
		displayOptions?: { show?: Record<string, unknown[]> };
		builderHint?: { propertyHint?: string };
	}>;
	codex?: { subcategories?: Record<string, string[]> };
	builderHint?: { searchHint?: string; relatedNodes?: Array<{ nodeType: string }> };
}

/** Example 8, "Confirm an appointment", and the demo customer it asks (Anna Petrova). */
const EXAMPLE_8 = 'mcrmConfirmAppt01';
const DEMO_ANNA = '126b6f2c-82f7-5b0c-96ef-3215510489b2';

/** Who asks, the approval pages' heading. */
const SENDER = 'Northside Dental';
/** How long a pressed answer may take to show as recorded: n8n resumes the execution first, slowly on a loaded machine. */
const RECORDED_MS = 60_000;

/** What a person must never read on the answer page: n8n's JSON or n8n's own pages. */
const N8N_WORDS = /n8n|"code"|No action required|running already/i;

describe.each([N8N_VERSION, N8N_V1_VERSION])('Send and Wait for Response in n8n %s', (version) => {
	const options = {
		userFolder: privateFolder(`n8n-e2e-wait-${version}-`),
		version,
		port: N8N_PORTS.sendAndWait,
	};
	const log = privateLog(`n8n-wait-${version}.log`);
	let sandbox: Sandbox;
	let n8n: Awaited<ReturnType<typeof startN8n>>;
	let session: Session;
	let browser: Browser;
	let anna: string;
	let workflows: Record<string, WorkflowJson>;
	let asked = 0;
	let example8: WorkflowJson;

	beforeAll(async () => {
		await ensureN8n(version);
		sandbox = await startSandbox();
		anna = await apiCustomer(sandbox, {
			phone: '+15550109001',
			full_name: 'Anna',
			messengers: [{ type: 'telegram', id: '9001' }],
		});
		workflows = {
			approval: asking(1, 'ask-approval', anna, {
				senderName: SENDER,
				approvalOptions: { values: { approvalType: 'double' } },
			}),
			text: asking(2, 'ask-text', anna, { responseType: 'freeText' }),
			form: asking(3, 'ask-form', anna, FORM),
			timeout: asking(4, 'ask-timeout', anna, {
				options: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 3, resumeUnit: 'seconds' },
					},
				},
			}),
			// After the answer the workflow fails (a customer the API does not know): n8n's Retry runs again.
			retry: asking(
				5,
				'ask-retry',
				anna,
				{},
				{
					resource: 'message',
					operation: 'send',
					customerId: { __rl: true, mode: 'id', value: '00000000-0000-4000-8000-000000000000' },
					messengerType: 'telegram',
					content: 'text',
					text: 'never sent',
				},
			),
		};
		// Example 8 as shipped, asking this test's Anna.
		example8 = JSON.parse(
			JSON.stringify(exampleWorkflow(EXAMPLE_8)).replaceAll(DEMO_ANNA, anna),
		) as WorkflowJson;
		prepareUserFolder(options.userFolder, true, version);
		await importCredential(options, { baseUrl: sandbox.url, apiKey: sandbox.mintKey() });
		await importWorkflows(options, [...Object.values(workflows), example8]);
		n8n = await startN8n({ ...options, output: log });
		session = { url: n8n.url, cookie: await setupOwner(n8n.url) };
		for (const workflow of Object.values(workflows)) await publishInEditor(session, workflow.id);
		// A customer's browser: no n8n session.
		browser = await launchChromium();
	});

	afterAll(async () => {
		await browser?.close();
		await n8n?.stop();
		await sandbox?.stop();
	});

	/** Starts the workflow and waits until its execution waits; the question's links by label. */
	async function ask(kind: string): Promise<{ execution: string; links: Record<string, string> }> {
		const workflow = workflows[kind];
		const path = (workflow.nodes[0].parameters as { path: string }).path;
		const before = customerMessages(sandbox, anna).length;
		// A body of its own: the same body again is the same event, which is asked once.
		const response = await postToWebhook(`${n8n.url}/webhook/${path}`, { ask: ++asked }, {});
		expect(response.status).toBe(200);
		let execution = '';
		await until('the execution to wait', async () => {
			const [latest] = await executions(session, workflow.id);
			execution = latest?.id ?? '';
			return latest?.status === 'waiting';
		});
		const messages = customerMessages(sandbox, anna);
		expect(messages).toHaveLength(before + 1);
		return { execution, links: linksIn(messages[messages.length - 1].text ?? '') };
	}

	/** The answer the workflow sent back to Anna after the execution resumed. */
	async function answer(workflowId: string): Promise<Record<string, unknown>> {
		await until('the execution to end', async () => {
			const [latest] = await executions(session, workflowId);
			return latest?.status === 'success';
		});
		return answerIn(customerMessages(sandbox, anna).pop()?.text ?? '');
	}

	async function open(url: string): Promise<Page> {
		const page = await browser.newPage();
		await page.goto(url);
		return page;
	}

	/** The node types as n8n serves them to the editor. */
	async function servedTypes(): Promise<ServedType[]> {
		const response = await fetch(`${n8n.url}/types/nodes.json`, {
			headers: { cookie: session.cookie },
		});
		return (await response.json()) as ServedType[];
	}

	it("n8n 2.x offers the node as the human review step of an AI Agent's tool calls (Human in the Loop); 1.x has no such step", async () => {
		const types = await servedTypes();
		const review = types.find((t) => t.name === 'n8n-nodes-messaging-crm.messagingCrmHitlTool');
		if (version.startsWith('1.')) return expect(review).toBeUndefined();
		expect(review).toBeDefined();
		const property = (name: string) => review!.properties.find((p) => p.name === name);
		expect(property('operation')).toMatchObject({ type: 'hidden', default: 'sendAndWait' });
		expect(property('responseType')).toMatchObject({ type: 'hidden', default: 'approval' });
		expect(property('message')?.type).toBe('string');
		expect(property('approvalOptions')?.type).toBe('fixedCollection');
		expect(JSON.stringify(review!.codex)).toContain('Human in the Loop');
	});

	it("n8n 2.x serves the AI Workflow Builder's hints to the editor and to the builder's own tools (search_nodes, get_node_types); 1.x loads the package beside them", async () => {
		const types = await servedTypes();
		const served = (name: string) => types.find((t) => t.name === name);
		const action = served(ACTION);
		const trigger = served(TRIGGER);
		// Loaded, with their fields, in both majors (1.x reads no builderHint and ignores it).
		expect(action?.properties.some((p) => p.name === 'resource')).toBe(true);
		expect(trigger?.properties.some((p) => p.name === 'events')).toBe(true);
		if (version.startsWith('1.')) return;
		expect(action!.builderHint?.searchHint).toMatch(/send a WhatsApp, Telegram/);
		expect(trigger!.builderHint?.searchHint).toMatch(/a watched customer wrote/);
		// Every related node is one this n8n serves: the builder can wire it.
		const related = [action!, trigger!].flatMap((t) =>
			(t.builderHint?.relatedNodes ?? []).map((r) => r.nodeType),
		);
		expect(related).toEqual(
			expect.arrayContaining([
				'n8n-nodes-base.formTrigger',
				'n8n-nodes-base.scheduleTrigger',
				'n8n-nodes-base.if',
				'@n8n/n8n-nodes-langchain.agent',
			]),
		);
		expect(related.filter((name) => !served(name))).toEqual([]);
		// The four parameters a builder gets wrong, on Send and Send and Wait (the customer everywhere).
		const hinted = (name: string, resource?: string) =>
			action!.properties
				.filter((p) => p.name === name)
				.filter((p) => !resource || p.displayOptions?.show?.resource?.includes(resource))
				.map((p) => p.builderHint?.propertyHint ?? '');
		for (const [name, resource] of [
			['customerId', undefined],
			['messengerType', 'message'],
			['templateVariables', 'message'],
			['responseType', 'message'],
		] as const) {
			expect(hinted(name, resource).length).toBeGreaterThan(0);
			expect(hinted(name, resource).filter((hint) => hint.length < 80)).toEqual([]);
		}
		// The builder's tools, through n8n's own MCP server: the search shows the hint and the related
		// nodes with why; the type definition carries the parameters' hints.
		const client = await connectInstanceMcp(n8n.url, session.cookie);
		try {
			const found = textOf(
				await client.callTool({ name: 'search_nodes', arguments: { queries: ['promo code'] } }),
			);
			expect(found).toContain(ACTION);
			expect(found).toContain('send a WhatsApp, Telegram');
			expect(found).toContain('n8n-nodes-base.formTrigger');
			expect(found).toContain('Collect a lead on a form');
			const definition = textOf(
				await client.callTool({
					name: 'get_node_types',
					arguments: {
						nodeIds: [{ nodeId: ACTION, resource: 'message', operation: 'sendAndWait' }],
					},
				}),
			);
			expect(definition).toContain('@builderHint A resource locator { __rl: true, mode, value }');
			expect(definition).toContain('@builderHint The messenger type, not the customer');
			expect(definition).toContain('@builderHint What the customer answers');
		} finally {
			await client.close();
		}
	});

	it("a link preview's GET of Approve resumes nothing; the person presses Approve on the page and the execution goes on with approved: true", async () => {
		const { links } = await ask('approval');
		expect(Object.keys(links)).toEqual(['Approve', 'Decline']);
		expect(links.Approve).toContain(`/webhook-waiting/`);
		for (const agent of [
			'TelegramBot (like TwitterBot)',
			'facebookexternalhit/1.1',
			'WhatsApp/2.23',
		]) {
			const preview = await fetch(links.Approve, { headers: { 'User-Agent': agent } });
			expect(preview.status).toBe(200);
			expect(await preview.text()).toContain('Approve</button>');
		}
		await holdsFor(
			'the execution waiting after the link previews',
			async () => (await executions(session, workflows.approval.id))[0]?.status === 'waiting',
		);
		const page = await open(links.Approve);
		await page.getByRole('button', { name: 'Approve' }).click();
		await page.getByText('Your answer was recorded').waitFor({ timeout: RECORDED_MS });
		expect(await answer(workflows.approval.id)).toEqual({
			data: { approved: true, respondedAt: expect.any(String) },
			customer_id: anna,
			messenger_type: 'telegram',
		});
		// The link again, once answered: n8n's own page says so, and nothing resumes again.
		await page.goto(links.Approve);
		await page.getByText('No action required').waitFor();
		expect(await press(links.Approve, 'approve').then((r) => r.text())).toContain(
			'No action required',
		);
		await page.close();
		await holdsFor(
			'one execution and one answer',
			async () =>
				(await executions(session, workflows.approval.id)).length === 1 &&
				customerMessages(sandbox, anna).filter((m) => m.text?.startsWith('Answer:')).length === 1,
		);
	});

	it("a person's double press: the message's bold on the page, the button disabled once pressed, the thank-you page and no JSON, the execution resumed once", async () => {
		const { execution, links } = await ask('approval');
		const answers = () =>
			customerMessages(sandbox, anna).filter((m) => m.text?.startsWith('Answer:')).length;
		const before = answers();
		const page = await open(links.Approve);
		expect(await page.locator('p b').innerText()).toBe('Tuesday');
		if (version === N8N_VERSION) {
			await page.setViewportSize({ width: 480, height: 360 });
			await page.screenshot({
				path: path.join(ROOT, 'test/e2e/screenshots/send-and-wait-page.png'),
			});
		}
		await pressTwice(page, page.getByRole('button', { name: 'Approve' }));
		await page.getByText('Your answer was recorded').waitFor({ timeout: RECORDED_MS });
		expect(await page.content()).not.toContain('"code"');
		await page.close();
		await until(
			'the execution to end',
			async () =>
				(await executions(session, workflows.approval.id)).find((e) => e.id === execution)
					?.status === 'success',
		);
		await holdsFor('one answer for the double press', () => answers() === before + 1);
	});

	it("two people press Approve and Decline on two devices 0, 200, 400 and 600 ms apart: one answer is recorded, that page says so, the other says someone already answered; neither shows n8n's JSON or pages (2.x)", async () => {
		// n8n 1.x sends the node's page before it resumes the execution: both would read "recorded".
		if (version !== N8N_VERSION) return;
		const answers = () =>
			customerMessages(sandbox, anna).filter((m) => m.text?.startsWith('Answer:')).length;
		const before = answers();
		const seen: string[] = [];
		for (const apart of [0, 200, 400, 600]) {
			const { execution, links } = await ask('approval');
			const people = await Promise.all(
				[links.Approve, links.Decline].map(async (link) => {
					const context = await browser.newContext();
					const page = await context.newPage();
					// What n8n answered each press (and the script's second look, after a 5xx).
					const answered: string[] = [];
					page.on('response', (r) => answered.push(`${r.request().method()} ${r.status()}`));
					await page.goto(link);
					answered.length = 0;
					expect(await page.locator('h1').innerText()).toBe(SENDER);
					return { context, page, answered, button: page.locator('button') };
				}),
			);
			const [first, second] = people;
			if (apart === 0) await Promise.all([first.button.click(), second.button.click()]);
			else {
				await first.button.click();
				await second.page.waitForTimeout(apart);
				await second.button.click();
			}
			const outcomes = await Promise.all(
				people.map(async ({ page, answered }) => {
					const shown = page.locator('main[data-outcome]:not([data-outcome="question"])');
					await shown.waitFor();
					const text = await page.locator('body').innerText();
					expect(text).not.toMatch(N8N_WORDS);
					expect(text).toContain(SENDER);
					const outcome = await shown.getAttribute('data-outcome');
					return { outcome, text, said: `${outcome} (${answered.join(', ')})` };
				}),
			);
			for (const { context } of people) await context.close();
			seen.push(`${apart} ms: ${outcomes.map((o) => o.said).join(' / ')}`);
			// What each page showed and what n8n answered its press, should the two not be one of each.
			expect({ outcomes: outcomes.map((o) => o.outcome).sort(), seen }).toEqual({
				outcomes: ['recorded', 'taken'],
				seen,
			});
			const recorded = outcomes.find((o) => o.outcome === 'recorded')!;
			const other = outcomes.find((o) => o.outcome === 'taken')!;
			expect(recorded.text).toContain('Your answer was recorded');
			expect(other.text).toContain('Someone already answered');
			expect(other.text).toContain('Your answer was not recorded');
			await until(
				'the execution to end',
				async () =>
					(await executions(session, workflows.approval.id)).find((e) => e.id === execution)
						?.status === 'success',
			);
			// The answer the execution took is the one whose page said "recorded".
			const approved = outcomes[0].outcome === 'recorded';
			expect(answerIn(customerMessages(sandbox, anna).pop()?.text ?? '').data).toMatchObject({
				approved,
			});
		}
		console.log(`Approve / Decline on two devices: ${seen.join('; ')}`);
		await holdsFor('one answer a question', () => answers() === before + 4);
	});

	it('example 8 run twice from the editor: Anna is asked twice and, each time she says yes, thanked', async () => {
		const texts = () => customerMessages(sandbox, anna).map((m) => m.text ?? '');
		const count = (start: string) => texts().filter((t) => t.startsWith(start)).length;
		const [questions, thanks] = [count('Hi Anna!'), count('Thank you, see you')];
		for (let run = 1; run <= 2; run++) {
			const shown = version.startsWith('1.') ? example8 : undefined;
			const id = await startInEditor(session, EXAMPLE_8, 'Ask Anna (run me)', shown);
			await until(
				'example 8 to wait',
				async () =>
					(await executions(session, EXAMPLE_8)).find((e) => e.id === id)?.status === 'waiting',
			);
			const links = linksIn(
				texts()
					.filter((t) => t.startsWith('Hi Anna!'))
					.pop() ?? '',
			);
			expect((await press(links["Yes, I'll be there"], 'approve')).status).toBe(200);
			await until(
				'example 8 to end',
				async () =>
					(await executions(session, EXAMPLE_8)).find((e) => e.id === id)?.status === 'success',
			);
		}
		expect([count('Hi Anna!') - questions, count('Thank you, see you') - thanks]).toEqual([2, 2]);
	});

	it('Decline answers approved: false', async () => {
		const { links } = await ask('approval');
		const page = await open(links.Decline);
		await page.getByRole('button', { name: 'Decline' }).click();
		await page.getByText('Your answer was recorded').waitFor({ timeout: RECORDED_MS });
		await page.close();
		expect((await answer(workflows.approval.id)).data).toMatchObject({ approved: false });
	});

	it('Free Text: the person writes an answer on the page; data.text', async () => {
		const { links } = await ask('text');
		const page = await open(links.Respond);
		await page.locator('textarea').fill('Tuesday is fine, thanks!');
		await page.getByRole('button', { name: 'Submit' }).click();
		await page.getByText('Your answer was recorded').waitFor({ timeout: RECORDED_MS });
		await page.close();
		expect((await answer(workflows.text.id)).data).toMatchObject({
			text: 'Tuesday is fine, thanks!',
		});
	});

	it("Custom Form: the form's fields by label", async () => {
		const { links } = await ask('form');
		const page = await open(links['Choose a day']);
		await page.locator('select').selectOption('Wednesday');
		await page.locator('input[type="number"]').fill('2');
		await page.getByRole('button', { name: 'Submit' }).click();
		await page.getByText('Your answer was recorded').waitFor({ timeout: RECORDED_MS });
		await page.close();
		expect((await answer(workflows.form.id)).data).toMatchObject({ Day: 'Wednesday', Guests: 2 });
	});

	it('Limit Wait Time runs out: the workflow goes on with the input unchanged (no data)', async () => {
		await ask('timeout');
		await until(
			'the wait to run out',
			async () => (await executions(session, workflows.timeout.id))[0]?.status === 'success',
			90_000,
		);
		expect(await answer(workflows.timeout.id)).toEqual({
			data: null,
			customer_id: null,
			messenger_type: null,
		});
	});

	it("n8n's Retry of the execution that failed after the answer sends the question nothing twice", async () => {
		const { links } = await ask('retry');
		const page = await open(links.Approve);
		await page.getByRole('button', { name: 'Approve' }).click();
		await page.getByText('Your answer was recorded').waitFor({ timeout: RECORDED_MS });
		await page.close();
		let failed = '';
		await until('the execution to fail', async () => {
			const [latest] = await executions(session, workflows.retry.id);
			failed = latest?.id ?? '';
			return latest?.status === 'error';
		});
		const asked = customerMessages(sandbox, anna).length;
		for (const loadWorkflow of [false, true]) {
			await retryExecution(session, failed, loadWorkflow);
			await until('the retry to end', async () => {
				const list = await executions(session, workflows.retry.id);
				return list.filter((e) => e.retryOf === failed).every((e) => e.status !== 'running');
			});
		}
		await holdsFor(
			'nothing sent by the retries',
			() => customerMessages(sandbox, anna).length === asked,
		);
	});
});
