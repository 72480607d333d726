import axios from 'axios';
import type { INodeParameters, INodePropertyOptions } from 'n8n-workflow';

import { byId, useSandbox } from '../harness/fixtures';
import { callMethod } from '../harness/toolRuns';
import { DEMO } from '../sandbox/store';

const env = useSandbox();

async function customer(
	messengers: Array<{ type: string; id: string }>,
	phone = '+15550105000',
): Promise<string> {
	const [c] = await env.ok({
		resource: 'customer',
		operation: 'upsert',
		phone,
		messengersUi: { messenger: messengers },
	});
	env.sandbox.clearRequests();
	return String(c.id);
}

const send = (customerId: string, fields: INodeParameters = {}): INodeParameters => ({
	resource: 'message',
	operation: 'send',
	customerId: byId(customerId),
	messengerType: 'telegram',
	content: 'text',
	text: 'Hello **there**',
	...fields,
});

describe('Message → Send', () => {
	it('sends text and returns the send result', async () => {
		const id = await customer([{ type: 'telegram', id: '100' }]);
		const [sent] = await env.ok(send(id));
		expect(sent).toMatchObject({ customer_id: id, status: 'sent', messenger_type: 'telegram' });
		const stored = [...env.sandbox.store.messages.values()];
		expect(stored.map((m) => [m.id, m.rendered])).toEqual([
			[sent.message_id, 'Hello <b>there</b>'],
		]);
		expect(env.sandbox.requests()[0].idempotencyKey).toMatch(/^n8n-[0-9a-f]{40}$/);
	});

	it('reaches the sandbox as one message through injected 502s and resets, always with the same key', async () => {
		const id = await customer([{ type: 'telegram', id: '101' }]);
		const path = `/customers/${id}/messages`;
		env.sandbox.injectFault({ path, count: 1, kind: 'html', status: 502 });
		env.sandbox.injectFault({ path, count: 1, kind: 'reset' });
		env.sandbox.injectFault({ path, count: 1, kind: 'reset', when: 'after' });
		env.sandbox.injectFault({ path, count: 1, kind: 'status', status: 503, when: 'after' });
		const [sent] = await env.ok(send(id));
		expect(env.sandbox.store.messages.size).toBe(1);
		expect([...env.sandbox.store.messages.keys()]).toEqual([sent.message_id]);
		const log = env.sandbox.requests();
		expect(log).toHaveLength(5);
		expect(new Set(log.map((r) => r.idempotencyKey)).size).toBe(1);
	});

	it('meets its stored refusal on a re-run and tries once more under the next key: one more failed copy, never the same key anew', async () => {
		const id = await customer([{ type: 'telegram', id: 'nostart-1' }]);
		const first = await env.run(send(id), { executionId: 'exec-send-1' });
		const second = await env.run(send(id), { executionId: 'exec-send-1' });
		expect(first.error?.message).toBe(
			'no_peer: The bot cannot write first to a customer who never pressed Start [item 1]',
		);
		expect(second.error?.message).toBe(first.error?.message);
		expect(env.sandbox.store.messages.size).toBe(2);
		const log = env.sandbox.requests();
		expect(log.map((r) => [r.status, r.replayed ?? false])).toEqual([
			[409, false],
			[409, true],
			[409, false],
		]);
		expect(log[1].idempotencyKey).toBe(log[0].idempotencyKey);
		expect(log[2].idempotencyKey).not.toBe(log[0].idempotencyKey);
	});

	it.each([
		['no_peer', 409, false],
		['recipient_unreachable', 409, false],
		['channel_unavailable', 409, false],
		['send_rejected', 409, false],
		['send_failed', 502, true],
		['bizchat_window_closed', 409, false],
	])(
		'delivers %s to the error output with reason, retryable, provider_error and message_id',
		async (reason, status, retryable) => {
			const id = await customer([{ type: 'telegram', id: '102' }]);
			await axios.post(
				`${env.sandbox.url}/__sandbox/customers/${id}/send-failures`,
				{ reason, count: 10 },
				{ headers: { 'X-Sandbox-Token': env.sandbox.controlToken } },
			);
			const { items, errorItems, logs } = await env.run(send(id), {
				errorOutput: true,
				items: [{ json: {} }],
			});
			expect(items).toEqual([]);
			expect(errorItems).toHaveLength(1);
			// One line in n8n's log names the node, the item, the code and the API's message.
			expect(logs?.filter((line) => line.includes(' failed'))).toEqual([
				expect.stringMatching(
					new RegExp(
						`^warn Messaging CRM "Messaging CRM", item 1 failed: ${reason} \\(HTTP ${status}\\): \\S`,
					),
				),
			]);
			expect(errorItems[0].json).toMatchObject({
				error: expect.stringMatching(new RegExp(`^${reason}: `)),
				details: {
					code: reason,
					httpCode: status,
					reason,
					retryable,
					provider_error: expect.any(String),
					message_id: expect.any(String),
					// What the refusal means and what to do next, in words.
					description: expect.stringMatching(/^(Nothing was sent|The messenger did not answer)/),
				},
			});
			// Retried only when the API says it may help, once (each try leaves a failed copy in
			// the dialog), and always with the same key.
			expect(env.sandbox.requests()).toHaveLength(retryable ? 2 : 1);
			expect(new Set(env.sandbox.requests().map((r) => r.idempotencyKey)).size).toBe(1);
		},
	);

	it('renders the Markdown of the spec per messenger group', async () => {
		const sample =
			'***Hi*** **Jane**, *new* ~~old~~ `CODE-1` [shop](https://shop.example.com) _under_ ** loose** # heading';
		const id = await customer([
			{ type: 'telegram', id: '103' },
			{ type: 'whatsapp_personal', id: '104' },
			{ type: 'vk', id: '105' },
		]);
		for (const messengerType of ['telegram', 'whatsapp_personal', 'vk'])
			await env.ok(send(id, { messengerType, text: sample }));
		const rendered = Object.fromEntries(
			[...env.sandbox.store.messages.values()].map((m) => [m.messenger_type, m.rendered]),
		);
		expect(rendered).toEqual({
			telegram:
				'<b><i>Hi</i></b> <b>Jane</b>, <i>new</i> <s>old</s> <code>CODE-1</code> <a href="https://shop.example.com">shop</a> _under_ ** loose** # heading',
			whatsapp_personal:
				'*_Hi_* *Jane*, _new_ ~old~ ```CODE-1``` shop: https://shop.example.com _under_ ** loose** # heading',
			vk: 'Hi Jane, new old CODE-1 shop: https://shop.example.com _under_ ** loose** # heading',
		});
	});

	it('honours the 24-hour window: local check before sending, templates outside it, text inside it', async () => {
		const id = await customer([{ type: 'whatsapp', id: '200' }]);
		const text = send(id, {
			messengerType: 'whatsapp',
			agentId: DEMO.salesChat,
			options: { checkWindow: true },
		});
		const checked = await env.run(text);
		expect(checked.error?.message).toMatch(
			/^The 24-hour window on whatsapp is not open .*; use a template \[item 1\]$/,
		);
		expect(env.sandbox.requests().map((r) => r.path)).toEqual([`/customers/${id}/messengers`]);
		const [viaTemplate] = await env.ok(
			send(id, {
				messengerType: 'whatsapp',
				content: 'template',
				templateName: 'order_update',
				templateLanguage: 'en',
				templateVariables: { variable: [{ value: 'Jane' }, { value: 'A-17' }] },
			}),
		);
		expect(viaTemplate.status).toBe('sent');
		env.sandbox.inbound(id, 'whatsapp', 'hi!');
		const [inside] = await env.ok(text);
		expect(inside.status).toBe('sent');
	});

	it('schedules a follow-up that a reply cancels, and pauses the agent after sending', async () => {
		const id = await customer([{ type: 'telegram', id: '106' }]);
		const [sent] = await env.ok(
			send(id, {
				followUp: 'text',
				followUpMinutes: 30,
				followUpText: 'Still there?',
				pauseAgent: true,
			}),
		);
		const followUp = sent.follow_up as { job_id: string; scheduled_at: string };
		expect(Date.parse(followUp.scheduled_at) - Date.now()).toBeGreaterThan(29 * 60_000);
		const message = env.sandbox.store.messages.get(String(sent.message_id))!;
		const dialog = env.sandbox.store.conversations.get(message.conversation_id)!;
		expect(dialog.timeline.map((e) => e.kind)).toEqual(['outgoing', 'pause']);
		expect(env.sandbox.inbound(id, 'telegram', 'yes').follow_ups_cancelled).toBe(1);
		expect(env.sandbox.store.followUps.get(followUp.job_id)?.status).toBe('cancelled');
	});

	it('needs messages:send for text and messages:template for a template', async () => {
		const id = await customer([
			{ type: 'telegram', id: '107' },
			{ type: 'whatsapp', id: '201' },
		]);
		const scopes = ['customers:read', 'messages:template'];
		const text = await env.run(send(id), { scopes });
		expect(text.error?.message).toContain('"messages:send"');
		expect(env.sandbox.requests()).toHaveLength(0);
		const templateSend = send(id, {
			messengerType: 'whatsapp',
			content: 'template',
			templateName: 'welcome_back',
			templateVariables: { variable: [{ value: 'Jane' }] },
		});
		const template = await env.run(templateSend, { scopes });
		expect(template.error).toBeUndefined();
		const withoutTemplateScope = await env.run(templateSend, {
			scopes: ['customers:read', 'messages:send'],
		});
		expect(withoutTemplateScope.error?.message).toContain('"messages:template"');
		expect(env.sandbox.requests().filter((r) => r.method === 'POST')).toHaveLength(1);
	});

	it("offers the customer's messengers and the agent's approved templates as dropdowns", async () => {
		const id = await customer([
			{ type: 'telegram', id: '108' },
			{ type: 'whatsapp', id: '202' },
		]);
		const messengers = (await callMethod({
			kind: 'loadOptions',
			method: 'getCustomerMessengers',
			parameters: { customerId: byId(id) },
			credentials: env.creds(),
		})) as INodePropertyOptions[];
		expect(messengers.map((m) => m.value)).toEqual(['bestAvailable', 'telegram', 'whatsapp']);
		expect(messengers[2].description).toMatch(/templates only/);
		const fallback = (await callMethod({
			kind: 'loadOptions',
			method: 'getCustomerMessengers',
			parameters: {},
			credentials: env.creds(),
		})) as INodePropertyOptions[];
		expect(fallback.length).toBeGreaterThan(5);
		expect(fallback[0].value).toBe('bestAvailable');
		const templates = (await callMethod({
			kind: 'loadOptions',
			method: 'getApprovedTemplates',
			parameters: { agentId: DEMO.salesChat },
			credentials: env.creds(),
		})) as INodePropertyOptions[];
		expect(templates.map((t) => t.value)).toEqual(['order_update', 'welcome_back']);
	});
});

describe('Template', () => {
	it('lists templates with a local status filter', async () => {
		const all = await env.ok({ resource: 'template', operation: 'getMany' });
		expect(all).toHaveLength(4);
		const pending = await env.ok({
			resource: 'template',
			operation: 'getMany',
			agentId: DEMO.salesChat,
			templateStatus: ['PENDING', 'REJECTED'],
		});
		expect(pending.map((t) => t.name).sort()).toEqual(['old_offer', 'spring_sale']);
	});

	it('creates a template from the structured editor, queued as PENDING, the answer passed through', async () => {
		const [created] = await env.ok({
			resource: 'template',
			operation: 'create',
			agentId: DEMO.salesChat,
			name: 'shipping_notice',
			category: 'UTILITY',
			language: 'en',
			componentsInput: 'fields',
			headerText: 'Shipped',
			bodyText: 'Hi {{1}}, order {{2}} is on its way.',
			footerText: 'Reply STOP to opt out',
			buttonsUi: { button: [{ type: 'URL', text: 'Track', url: 'https://t.example.com/{{1}}' }] },
		});
		expect(created).toMatchObject({ name: 'shipping_notice', status: 'PENDING' });
		const body = JSON.parse(String(env.sandbox.requests()[0].body));
		expect(body.components.map((c: { type: string }) => c.type)).toEqual([
			'HEADER',
			'BODY',
			'FOOTER',
			'BUTTONS',
		]);
		expect(env.sandbox.requests()[0].query).toBe(`?agent_id=${DEMO.salesChat}`);
	});

	it('accepts raw JSON components and refuses malformed ones before any request', async () => {
		const bad = await env.run({
			resource: 'template',
			operation: 'create',
			name: 'x',
			componentsInput: 'json',
			componentsJson: '{"type": "BODY"}',
		});
		expect(bad.error?.message).toMatch(/"Components \(JSON\)" must be a non-empty array/);
		expect(env.sandbox.requests()).toHaveLength(0);
		const [ok] = await env.ok({
			resource: 'template',
			operation: 'create',
			name: 'raw_one',
			componentsInput: 'json',
			componentsJson: '[{"type": "BODY", "text": "Hi {{1}}"}]',
		});
		expect(ok.status).toBe('PENDING');
	});
});

describe('Message → Send: a template when the 24-hour window is closed', () => {
	const withFallback = (id: string, messengerType: string, fields: INodeParameters = {}) =>
		send(id, {
			messengerType,
			text: 'Your order has shipped',
			windowClosed: 'template',
			fallbackTemplateName: 'order_update',
			fallbackTemplateLanguage: 'en',
			fallbackTemplateVariables: { variable: [{ value: 'Jane' }, { value: 'A-17' }] },
			...fields,
		});
	const templatesSent = () =>
		[...env.sandbox.store.messages.values()].filter(
			(m) => m.template?.name === 'order_update' && m.status !== 'failed',
		);

	it('the API refuses the text: the template goes instead, once, and the output says so; a re-run sends nothing twice', async () => {
		const id = await customer([{ type: 'whatsapp', id: '300' }]);
		const first = await env.run(withFallback(id, 'whatsapp'));
		expect(first.items[0].json).toMatchObject({
			sent_as: 'template',
			status: 'sent',
			fallback_reason:
				'The 24-hour window was closed, so the template was sent instead of the text',
		});
		expect(templatesSent()).toHaveLength(1);
		const again = await env.run(withFallback(id, 'whatsapp'));
		expect(again.items[0].json).toMatchObject({ sent_as: 'template', replayed: true });
		expect(templatesSent()).toHaveLength(1);
		// The text's refusal is the API's stored one on the re-run: no new failed copy of the text.
		expect(env.sandbox.requests().filter((r) => r.status === 409 && !r.replayed)).toHaveLength(1);
	});

	it('with the pre-check on, the text is still tried first: a re-run after the window opened sends nothing more', async () => {
		const id = await customer([{ type: 'whatsapp', id: '301' }]);
		const parameters = withFallback(id, 'whatsapp', { options: { checkWindow: true } });
		expect((await env.run(parameters)).items[0].json.sent_as).toBe('template');
		env.sandbox.inbound(id, 'whatsapp', 'hi!');
		const again = await env.run(parameters);
		expect(again.items[0].json).toMatchObject({ sent_as: 'template', replayed: true });
		const sends = env.sandbox
			.requests()
			.filter((r) => r.method === 'POST' && r.path.endsWith('/messages') && !r.replayed);
		expect(sends.map((r) => r.status)).toEqual([409, 200]);
	});

	it('a refused template is tried anew on a re-run, once, like any refused send', async () => {
		const id = await customer([{ type: 'whatsapp', id: '304' }]);
		env.sandbox.store.sendFailures.set(id, ['bizchat_window_closed', 'recipient_unreachable']);
		const first = await env.run(withFallback(id, 'whatsapp'));
		expect(first.error?.message).toMatch(/^recipient_unreachable/);
		const again = await env.run(withFallback(id, 'whatsapp'));
		expect(again.items[0].json).toMatchObject({ sent_as: 'template', status: 'sent' });
		expect(templatesSent()).toHaveLength(1);
	});

	it('an open window sends the text; a messenger without a window never falls back', async () => {
		const id = await customer([
			{ type: 'whatsapp', id: '302' },
			{ type: 'telegram', id: '302' },
		]);
		env.sandbox.inbound(id, 'whatsapp', 'hi!');
		expect((await env.run(withFallback(id, 'whatsapp'))).items[0].json.sent_as).toBe('text');
		expect((await env.run(withFallback(id, 'telegram'))).items[0].json.sent_as).toBe('text');
		expect(templatesSent()).toHaveLength(0);
	});

	it('Fail (the default) still fails the item with the code and the way out', async () => {
		const id = await customer([{ type: 'whatsapp', id: '303' }]);
		const { error } = await env.run(withFallback(id, 'whatsapp', { windowClosed: 'fail' }));
		expect(error?.message).toMatch(/^bizchat_window_closed/);
		expect(templatesSent()).toHaveLength(0);
	});
});
