/**
 * Message → Send and Wait for Response through n8n's engine against the sandbox: what goes out
 * (the question and its signed links), that the execution waits, what fails before any request,
 * that a repeat sends nothing and does not wait; and the node's webhook in n8n's WebhookContext as
 * n8n calls it while the execution waits: a GET (a person, or a link preview) shows a page and
 * resumes nothing, the page's POST answers in the shape of n8n's own Send and Wait, its page
 * ("recorded") handed to n8n to send once the execution took the answer; a typed answer is at most
 * MAX_ANSWER_LENGTH characters; a link past its deadline answers nothing.
 */
import { createHash } from 'crypto';

import type { IDataObject, INodeParameters, IRun, IWebhookResponseData } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { WebhookContext } from 'n8n-core';

import { MAX_ANSWER_LENGTH } from '../../nodes/MessagingCrm/wait/config';
import { PAGE_HEADERS } from '../../nodes/MessagingCrm/wait/pages';
import { FORM } from '../e2e/askWorkflows';
import { byId, useSandbox } from '../harness/fixtures';
import { additionalData, crmNode, loadPackage, NODE_TYPE } from '../harness/engine';

const env = useSandbox();

async function customer(): Promise<string> {
	const [c] = await env.ok({
		resource: 'customer',
		operation: 'upsert',
		phone: '+15550107000',
		fullName: 'Anna',
		messengersUi: { messenger: [{ type: 'telegram', id: '7001' }] },
	});
	env.sandbox.clearRequests();
	return String(c.id);
}

const ask = (customerId: string, fields: INodeParameters = {}): INodeParameters => ({
	resource: 'message',
	operation: 'sendAndWait',
	customerId: byId(customerId),
	messengerType: 'telegram',
	message: 'Can you make it on **Tuesday** at 10:00?',
	...fields,
});

const double = { approvalOptions: { values: { approvalType: 'double' } } };

/** The links of the message the sandbox received, by label. */
function linksOf(text: string): Record<string, URL> {
	const links: Record<string, URL> = {};
	for (const [, label, url] of text.matchAll(/\[([^\]]+)\]\((\S+)\)/g)) links[label] = new URL(url);
	return links;
}

const sentMessages = () => [...env.sandbox.store.messages.values()];

/** Calls the node's webhook as n8n does while `run` waits: `method` on `url`, with `body`. */
async function callWebhook(
	run: IRun,
	parameters: INodeParameters,
	method: 'GET' | 'POST',
	url: URL,
	body: IDataObject = {},
) {
	const { nodeTypes } = await loadPackage();
	const node = crmNode(parameters);
	const workflow = new Workflow({
		id: 'test-workflow',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
	});
	const sent: { status?: number; headers: Record<string, string>; body?: string } = { headers: {} };
	const res = {
		status(code: number) {
			sent.status = code;
			return res;
		},
		setHeader(name: string, value: string) {
			sent.headers[name.toLowerCase()] = value;
		},
		send(html: string) {
			sent.body = html;
		},
	};
	const req = {
		method,
		headers: { 'user-agent': 'TelegramBot (like TwitterBot)' },
		query: Object.fromEntries(url.searchParams),
		params: {},
		body,
	};
	const data = { ...additionalData(undefined as never), httpRequest: req, httpResponse: res };
	const context = new WebhookContext(
		workflow,
		node,
		data as never,
		'webhook',
		{ httpMethod: method, node: node.name, path: node.id, webhookDescription: {} } as never,
		[],
		run.data,
	);
	const type = nodeTypes.getByNameAndVersion(node.type, 1);
	const result = (await type.webhook!.call(context)) as IWebhookResponseData;
	return { result, page: sent };
}

describe('Message → Send and Wait for Response', () => {
	it('sends the question with an Approve and a Decline link, each signed and naming its answer, the customer and the messenger, and the execution waits until answered', async () => {
		const id = await customer();
		const { run, error, items } = await env.run(ask(id, double), { executionId: 'exec-ask-1' });
		expect(error).toBeUndefined();
		expect(run.data.waitTill?.toISOString()).toBe('3000-01-01T00:00:00.000Z');
		expect(items[0]?.json).toMatchObject({ customer_id: id, status: 'sent' });
		const [message] = sentMessages();
		expect(message.text).toMatch(/^Can you make it on \*\*Tuesday\*\* at 10:00\?\n\n\[Approve\]\(/);
		const links = linksOf(message.text ?? '');
		expect(Object.keys(links)).toEqual(['Approve', 'Decline']);
		for (const [label, url] of Object.entries(links)) {
			expect(url.pathname).toBe('/webhook-waiting/exec-ask-1/b7a0c1d2-0000-4000-8000-000000000001');
			expect(url.searchParams.get('approved')).toBe(String(label === 'Approve'));
			expect(url.searchParams.get('customer')).toBe(id);
			expect(url.searchParams.get('messenger')).toBe('telegram');
			expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
			expect(url.searchParams.has('until')).toBe(false);
		}
	});

	it('waits until Limit Wait Time (after an interval, or at a date and time)', async () => {
		const id = await customer();
		const before = Date.now();
		const limited = await env.run(
			ask(id, {
				options: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' },
					},
				},
			}),
		);
		const till = limited.run.data.waitTill!.getTime();
		expect(till - before).toBeGreaterThanOrEqual(2 * 3600_000);
		expect(till - Date.now()).toBeLessThanOrEqual(2 * 3600_000);
		// The links carry the deadline (a wait without one: no `until`, as the first test's).
		const { Approve } = linksOf(sentMessages()[0].text ?? '');
		expect(Approve.searchParams.get('until')).toBe(new Date(till).toISOString());
		const at = new Date(Date.now() + 86_400_000).toISOString();
		const dated = await env.run(
			ask(id, {
				message: 'Another question',
				options: {
					limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: at } },
				},
			}),
		);
		expect(dated.run.data.waitTill?.toISOString()).toBe(at);
	});

	it.each([
		['no message', { message: '  ' }, '"Message" is empty'],
		[
			'a Decline button without a label',
			{ approvalOptions: { values: { approvalType: 'double', disapproveLabel: ' ' } } },
			'"Decline Button Label" is empty',
		],
		['a form without fields', { responseType: 'customForm' }, '"Form Fields" has no field'],
		[
			'a dropdown without options',
			{
				responseType: 'customForm',
				formFields: {
					values: [{ fieldLabel: 'Time', fieldType: 'dropdown', fieldOptions: { values: [] } }],
				},
			},
			'"Form Fields → field 1 (Time) → Field Options" has no option',
		],
		[
			'a wait of zero',
			{
				options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 0 } } },
			},
			'"Limit Wait Time → Amount" must be more than 0',
		],
		[
			'a wait until a moment past',
			{
				options: {
					limitWaitTime: {
						values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00Z' },
					},
				},
			},
			'"Limit Wait Time → Max Date and Time" is in the past',
		],
	])('%s fails the item before any request, naming the field', async (_, fields, message) => {
		const id = await customer();
		const { error, run } = await env.run(ask(id, fields));
		expect(error?.message).toContain(message);
		expect(env.sandbox.requests()).toHaveLength(0);
		expect(run.data.waitTill).toBeUndefined();
	});

	it('two items fail before any request: one message per run, and the fix', async () => {
		const id = await customer();
		const { error } = await env.run(ask(id), { items: [{ json: {} }, { json: {} }] });
		expect(error?.message).toContain('"Input" has 2 items');
		expect(error?.description).toContain('Loop Over Items');
		expect(env.sandbox.requests()).toHaveLength(0);
	});

	it('a re-run of the same event in another execution sends nothing and fails, saying why and what to do; the same execution again (Retry On Fail) waits on its own links', async () => {
		const id = await customer();
		await env.run(ask(id), { executionId: 'exec-ask-first' });
		const again = await env.run(ask(id), { executionId: 'exec-ask-again' });
		expect(sentMessages()).toHaveLength(1);
		expect(again.run.data.waitTill).toBeUndefined();
		expect(again.error?.message).toContain(
			'This question went out for the same event in an earlier execution (or was refused then): nothing was sent now',
		);
		expect(again.error?.description).toContain('Repeat Protection → Every Execution Sends');
		const retried = await env.run(ask(id), { executionId: 'exec-ask-first' });
		expect(sentMessages()).toHaveLength(1);
		expect(retried.items[0].json).toMatchObject({ replayed: true });
		expect(retried.run.data.waitTill?.getFullYear()).toBe(3000);
		const everyExecution = await env.run(ask(id, { options: { repeatProtection: 'execution' } }), {
			executionId: 'exec-ask-third',
		});
		expect(everyExecution.run.data.waitTill?.getFullYear()).toBe(3000);
		expect(sentMessages()).toHaveLength(2);
	});

	it('a page that cannot be made leaves the execution waiting: a page saying so, no answer, nothing thrown', async () => {
		const id = await customer();
		const parameters = ask(id, {
			responseType: 'customForm',
			formFields: { values: [{ fieldLabel: 'Day', fieldType: 'text' }] },
		});
		const { run } = await env.run(parameters);
		const link = linksOf(sentMessages()[0].text ?? '').Respond;
		// The form's fields no longer read (the workflow changed while it waited).
		const broken = { ...parameters, formFields: { values: [] } };
		const opened = await callWebhook(run, broken, 'GET', link);
		expect(opened.result).toEqual({ noWebhookResponse: true });
		expect(opened.page.status).toBe(500);
		expect(opened.page.body).toContain('Nothing was recorded');
	});

	it("as an AI Agent's tool it refuses before any request, saying what to use instead; as n8n 2.x's human review step (messagingCrmHitlTool) it sends and waits", async () => {
		const id = await customer();
		const asTool = await env.run(ask(id), { node: { type: `${NODE_TYPE}Tool` } });
		expect(env.sandbox.requests()).toHaveLength(0);
		expect(JSON.stringify(asTool.items[0]?.json ?? asTool.error?.message)).toContain(
			'operation_not_available',
		);
		const review = await env.run(ask(id), { node: { type: `${NODE_TYPE}HitlTool` } });
		expect(review.error).toBeUndefined();
		expect(review.run.data.waitTill?.getFullYear()).toBe(3000);
		expect(sentMessages()).toHaveLength(1);
	});

	it("a link preview's GET of Approve shows a page and resumes nothing; the page's POST answers approved: true with the customer and messenger", async () => {
		const id = await customer();
		const parameters = ask(id, {
			...double,
			message:
				'Can you make it on **Tuesday** at 10:00? [Map](https://maps.example/clinic?a=1&b=2) <script>alert(1)</script>',
		});
		const { run } = await env.run(parameters, { executionId: 'exec-ask-2' });
		const links = linksOf(sentMessages()[0].text ?? '');
		const opened = await callWebhook(run, parameters, 'GET', links.Approve);
		expect(opened.result).toEqual({ noWebhookResponse: true });
		expect(opened.page.status).toBe(200);
		const csp = opened.page.headers['content-security-policy'];
		expect(csp).toContain("default-src 'none'");
		expect(opened.page.body).toContain('<button type="submit" class="approve">Approve</button>');
		// The message as the messenger shows it: bold and a link; the rest escaped.
		expect(opened.page.body).toContain(
			'Can you make it on <b>Tuesday</b> at 10:00? <a href="https://maps.example/clinic?a=1&amp;b=2" rel="noopener noreferrer">Map</a> &lt;script&gt;alert(1)&lt;/script&gt;',
		);
		// One script, the page's own, allowed by its hash (a script of the message's would not run).
		const scripts = [...opened.page.body!.matchAll(/<script>([\s\S]*?)<\/script>/g)];
		expect(scripts).toHaveLength(1);
		const hash = createHash('sha256').update(scripts[0][1]).digest('base64');
		expect(csp).toContain(`script-src 'sha256-${hash}';`);
		const pressed = await callWebhook(run, parameters, 'POST', links.Approve, {
			choice: 'approve',
		});
		// The page that says "recorded" is n8n's to send, once the execution took the answer.
		expect(pressed.page.body).toBeUndefined();
		expect(pressed.result.noWebhookResponse).toBeUndefined();
		expect(pressed.result.webhookResponse).toContain('Your answer was recorded');
		expect(pressed.page.headers['content-type']).toBe(PAGE_HEADERS['Content-Type']);
		const [[answer]] = pressed.result.workflowData!;
		expect(answer.pairedItem).toEqual({ item: 0 });
		expect(answer.json).toEqual({
			data: { approved: true, respondedAt: expect.any(String) },
			customer_id: id,
			messenger_type: 'telegram',
		});
		const declined = await callWebhook(run, parameters, 'POST', links.Decline);
		expect((declined.result.workflowData![0][0].json.data as IDataObject).approved).toBe(false);
	});

	it('Free Text: the link opens a form; an empty answer shows it again with what is missing; the answer is data.text', async () => {
		const id = await customer();
		const parameters = ask(id, { responseType: 'freeText' });
		const { run } = await env.run(parameters);
		const links = linksOf(sentMessages()[0].text ?? '');
		expect(Object.keys(links)).toEqual(['Respond']);
		const opened = await callWebhook(run, parameters, 'GET', links.Respond);
		expect(opened.page.body).toContain(
			'<textarea id="field-0" name="field-0" required maxlength="2000" aria-describedby="field-0-hint">',
		);
		const empty = await callWebhook(run, parameters, 'POST', links.Respond, {
			data: { 'field-0': '' },
		});
		expect(empty.result.workflowData).toBeUndefined();
		expect(empty.page.status).toBe(400);
		expect(empty.page.body).toContain('Please fill in &quot;Response&quot;.');
		const answered = await callWebhook(run, parameters, 'POST', links.Respond, {
			data: { 'field-0': ['Tuesday is fine <b>'] },
		});
		expect(answered.result.workflowData![0][0].json.data).toEqual({
			text: 'Tuesday is fine <b>',
			respondedAt: expect.any(String),
		});
	});

	it(`Free Text: the page states the limit, ${MAX_ANSWER_LENGTH} characters (a line break counted once, as the page counts it); more is shown again with the limit, and resumes nothing`, async () => {
		const id = await customer();
		const parameters = ask(id, { responseType: 'freeText', senderName: 'Northside Dental' });
		const { run } = await env.run(parameters);
		const { Respond } = linksOf(sentMessages()[0].text ?? '');
		const opened = await callWebhook(run, parameters, 'GET', Respond);
		expect(opened.page.body).toContain('<h1>Northside Dental</h1>');
		expect(opened.page.body).toContain(`maxlength="${MAX_ANSWER_LENGTH}"`);
		expect(opened.page.body).toContain('Up to 2,000 characters.');
		const post = (text: string) =>
			callWebhook(run, parameters, 'POST', Respond, { data: { 'field-0': text } });
		const tooLong = await post('x'.repeat(MAX_ANSWER_LENGTH + 1));
		expect(tooLong.result.workflowData).toBeUndefined();
		expect(tooLong.page.status).toBe(400);
		expect(tooLong.page.body).toContain(
			'Please keep &quot;Response&quot; to 2,000 characters or fewer.',
		);
		const hundredThousand = await post('x'.repeat(100_000));
		expect(hundredThousand.result.workflowData).toBeUndefined();
		const lines = `${'x'.repeat(MAX_ANSWER_LENGTH - 2)}\r\ny`;
		const atLimit = await post(lines);
		expect(atLimit.result.workflowData![0][0].json.data).toMatchObject({ text: lines });
	});

	it('a link past its deadline (Limit Wait Time) shows "too late" and answers nothing, the question not shown', async () => {
		const id = await customer();
		const parameters = ask(id, {
			options: {
				limitWaitTime: {
					values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' },
				},
			},
		});
		const { run } = await env.run(parameters);
		const { Approve } = linksOf(sentMessages()[0].text ?? '');
		const opened = await callWebhook(run, parameters, 'GET', Approve);
		expect(opened.page.body).toContain('data-outcome="question"');
		Approve.searchParams.set('until', new Date(Date.now() - 1000).toISOString());
		for (const method of ['GET', 'POST'] as const) {
			const late = await callWebhook(run, parameters, method, Approve, { choice: 'approve' });
			expect(late.result).toEqual({ noWebhookResponse: true });
			expect(late.page.status).toBe(410);
			expect(late.page.body).toContain('The time to answer has run out');
			expect(late.page.body).not.toContain('<form');
		}
	});

	it("Custom Form: the form's fields by label, numbers as numbers, a dropdown's value one of its options", async () => {
		const id = await customer();
		// The end-to-end tests' form, with a text area more and a title.
		const parameters = ask(id, {
			...FORM,
			formFields: {
				values: [...FORM.formFields.values, { fieldLabel: 'Note', fieldType: 'textarea' }],
			},
			options: { ...FORM.options, responseFormTitle: 'Your appointment' },
		});
		const { run } = await env.run(parameters);
		const links = linksOf(sentMessages()[0].text ?? '');
		const opened = await callWebhook(run, parameters, 'GET', links['Choose a day']);
		expect(opened.page.body).toContain('<h2>Your appointment</h2>');
		expect(opened.page.body).toContain('<option value="Wednesday">Wednesday</option>');
		const wrong = await callWebhook(run, parameters, 'POST', links['Choose a day'], {
			data: { 'field-0': 'Sunday' },
		});
		expect(wrong.page.body).toContain('Please choose one of the options of &quot;Day&quot;.');
		const answered = await callWebhook(run, parameters, 'POST', links['Choose a day'], {
			data: { 'field-0': 'Wednesday', 'field-1': '3', 'field-2': '' },
		});
		expect(answered.result.workflowData![0][0].json.data).toEqual({
			Day: 'Wednesday',
			Guests: 3,
			Note: '',
			respondedAt: expect.any(String),
		});
	});
});
