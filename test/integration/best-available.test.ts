/**
 * Send → Messenger "Best Available", through n8n's engine against the sandbox: the first of the
 * customer's messengers that takes the message, the next only after a refusal that names the
 * customer or the window, and one delivery per item across re-runs and n8n's Retry. Acceptance is
 * the sandbox's state: messages delivered and failed copies per customer, and the sends it saw.
 */
import type { INodeParameters, WorkflowExecuteMode } from 'n8n-workflow';

import { byId, useSandbox } from '../harness/fixtures';
import { demoPersonId, seedDemoPeople } from '../sandbox/demo';

const env = useSandbox();
beforeEach(() => seedDemoPeople(env.sandbox));

const chloe = demoPersonId('Chloé Martin');
const ben = demoPersonId('Ben Okafor');
const dmitri = demoPersonId('Dmitri Ivanov');
const anna = demoPersonId('Anna Petrova');

const best = (customerId: string, fields: INodeParameters = {}): INodeParameters => ({
	resource: 'message',
	operation: 'send',
	customerId: byId(customerId),
	messengerType: 'bestAvailable',
	content: 'text',
	text: 'Your order has shipped',
	...fields,
});

/** The same trigger item each time: a run again of the same event. */
const items = [{ json: { order: 'A-17' } }];
let executions = 0;
const run = async (parameters: INodeParameters, mode: WorkflowExecuteMode = 'manual') =>
	await env.run(parameters, {
		items,
		mode,
		continueOnFail: true,
		executionId: `best-${++executions}`,
	});

const delivered = (id: string) => env.sandbox.sentTo([id])[0];
const failedCopies = (id: string) => env.sandbox.failedTo([id])[0];
/** The messenger of each send the API saw, and whether it answered with a stored answer. */
const sends = () =>
	env.sandbox
		.requests()
		.filter((r) => r.method === 'POST' && r.path.endsWith('/messages'))
		.map((r) => {
			const type = String(
				(JSON.parse(String(r.body)) as { messenger_type: string }).messenger_type,
			);
			return r.replayed ? `${type} (stored)` : type;
		});
const details = (out: Awaited<ReturnType<typeof run>>) =>
	out.items[0].json.details as { code: string; description: string; tried: unknown };

describe('Send → Best Available: the demo customer Chloé Martin', () => {
	it('Telegram answers no_peer, Instagram takes it; the same event again, by Retry and after she pressed Start, sends nothing more', async () => {
		const first = await run(best(chloe));
		expect(first.items[0].json).toMatchObject({
			customer_id: chloe,
			status: 'sent',
			messenger_type: 'instagram',
			sent_via: 'instagram',
			tried: [{ messenger: 'telegram', code: 'no_peer' }],
		});
		expect(first.items[0].json.replayed).toBeUndefined();
		expect(sends()).toEqual(['telegram', 'instagram']);
		expect([delivered(chloe), failedCopies(chloe)]).toEqual([1, 1]);

		env.sandbox.clearRequests();
		const retried = await run(best(chloe), 'retry');
		expect(retried.items[0].json).toMatchObject({
			sent_via: 'instagram',
			replayed: true,
			repeat: expect.stringMatching(/^Nothing was sent this time/),
			tried: [{ messenger: 'telegram', code: 'no_peer', stored_by_earlier_run: true }],
		});
		expect(sends()).toEqual(['telegram (stored)', 'instagram (stored)']);

		// Now Telegram would take it: the stored refusal still leads to the stored delivery.
		env.sandbox.inbound(chloe, 'telegram', '/start');
		env.sandbox.clearRequests();
		const again = await run(best(chloe));
		expect(again.items[0].json).toMatchObject({ sent_via: 'instagram', replayed: true });
		expect(sends()).toEqual(['telegram (stored)', 'instagram (stored)']);
		expect([delivered(chloe), failedCopies(chloe)]).toEqual([1, 1]);
	});
});

describe('Send → Best Available: which refusals move on', () => {
	it.each([
		['recipient_unreachable', dmitri, 'telegram', 'max'],
		['bizchat_window_closed', ben, 'whatsapp', 'vk'],
	])('%s moves on to the next messenger', async (code, id, refused, via) => {
		const out = await run(best(id));
		expect(out.items[0].json).toMatchObject({
			sent_via: via,
			messenger_type: via,
			tried: [{ messenger: refused, code }],
		});
		expect(sends()).toEqual([refused, via]);
		expect(delivered(id)).toBe(1);
	});

	it.each([
		['channel_unavailable', 409, 1],
		['send_rejected', 409, 1],
		['send_failed', 502, 2],
	])(
		'%s fails the item with its code and the next messenger gets no request',
		async (code, status, tries) => {
			env.sandbox.store.sendFailures.set(
				anna,
				Array.from({ length: 5 }, () => code),
			);
			const out = await run(best(anna));
			expect(out.items).toHaveLength(1);
			expect(out.items[0].json.error).toMatch(new RegExp(`^${code}: `));
			expect(details(out)).toMatchObject({
				code,
				httpCode: status,
				tried: [{ messenger: 'telegram', code }],
				description: expect.stringMatching(/Messengers tried, in order: telegram \(\w+\)\.$/),
			});
			expect(sends()).toEqual(Array.from({ length: tries }, () => 'telegram'));
			expect(delivered(anna)).toBe(0);
		},
	);

	it('a connection broken in the first run: the run after the reconnect delivers on the preferred messenger, not the next', async () => {
		env.sandbox.store.brokenChannels.add('telegram');
		const first = await run(best(anna));
		expect(details(first).code).toBe('channel_unavailable');
		env.sandbox.store.brokenChannels.delete('telegram');
		env.sandbox.clearRequests();
		const second = await run(best(anna));
		expect(second.items[0].json).toMatchObject({
			sent_via: 'telegram',
			tried: [{ messenger: 'telegram', code: 'channel_unavailable', stored_by_earlier_run: true }],
		});
		expect(sends()).toEqual(['telegram (stored)', 'telegram']);
		expect(delivered(anna)).toBe(1);
	});

	it('a window closed in the first run and open in the second: the second finds the first delivery on the next messenger', async () => {
		expect((await run(best(ben))).items[0].json.sent_via).toBe('vk');
		env.sandbox.inbound(ben, 'whatsapp', 'hi!');
		env.sandbox.clearRequests();
		const again = await run(best(ben), 'retry');
		expect(again.items[0].json).toMatchObject({ sent_via: 'vk', replayed: true });
		expect(sends()).toEqual(['whatsapp (stored)', 'vk (stored)']);
		expect(delivered(ben)).toBe(1);
	});
});

describe('Send → Best Available: the order', () => {
	it('keeps an explicit order and leaves out what the customer lacks', async () => {
		const out = await run(best(dmitri, { messengerOrder: ['whatsapp', 'max', 'telegram'] }));
		expect(out.items[0].json).toMatchObject({ sent_via: 'max', tried: [] });
		expect(sends()).toEqual(['max']);
	});

	it('takes the order as comma-separated text from an expression, as the list', async () => {
		const out = await run(best(dmitri, { messengerOrder: '={{ "whatsapp, max, telegram" }}' }));
		expect(out.items[0].json).toMatchObject({ sent_via: 'max', tried: [] });
		expect(sends()).toEqual(['max']);
	});

	it("fails before any send when the order names none of the customer's messengers", async () => {
		const out = await run(best(chloe, { messengerOrder: ['vk', 'max'] }));
		expect(out.items[0].json.error).toBe(
			'"Try Messengers In Order" names none of the customer\'s messengers (vk, max; the customer has telegram, instagram) [item 1]',
		);
		expect(env.sandbox.requests().map((r) => r.method)).toEqual(['GET']);
	});

	it('the default: the bot messenger first, then as the API lists them', async () => {
		env.sandbox.addMessenger(ben, 'telegram', 'ben-bot');
		const out = await run(best(ben));
		expect(out.items[0].json).toMatchObject({ sent_via: 'telegram', tried: [] });
		expect(sends()).toEqual(['telegram']);
	});
});

describe('Send → Best Available: every messenger refused', () => {
	it('fails with the last code and the tries in the description, one error item; the next run tries each once more and delivers once', async () => {
		const instagram = env.sandbox.store.customers
			.get(chloe)!
			.messengers.find((m) => m.type === 'instagram')!;
		instagram.last_inbound_at = new Date(env.sandbox.now() - 30 * 3_600_000).toISOString();
		const first = await run(best(chloe));
		expect(first.items).toHaveLength(1);
		expect(first.items[0].json.error).toMatch(/^bizchat_window_closed: /);
		expect(details(first).tried).toEqual([
			{ messenger: 'telegram', code: 'no_peer' },
			{ messenger: 'instagram', code: 'bizchat_window_closed' },
		]);
		expect(details(first).description).toMatch(
			/Messengers tried, in order: telegram \(no_peer\), instagram \(bizchat_window_closed\)\.$/,
		);
		expect(failedCopies(chloe)).toBe(2);

		env.sandbox.inbound(chloe, 'instagram', 'hello?');
		env.sandbox.clearRequests();
		const second = await run(best(chloe));
		expect(second.items[0].json).toMatchObject({ sent_via: 'instagram' });
		expect(sends()).toEqual(['telegram (stored)', 'instagram (stored)', 'telegram', 'instagram']);
		env.sandbox.clearRequests();
		expect((await run(best(chloe))).items[0].json.replayed).toBe(true);
		expect(sends()).toEqual([
			'telegram (stored)',
			'instagram (stored)',
			'telegram (stored)',
			'instagram (stored)',
		]);
		expect([delivered(chloe), failedCopies(chloe)]).toEqual([1, 3]);
	});
	it('the same input twice in one run meets its own refusals: one try of each messenger, not a second round', async () => {
		const instagram = env.sandbox.store.customers
			.get(chloe)!
			.messengers.find((m) => m.type === 'instagram')!;
		instagram.last_inbound_at = null;
		const out = await env.run(best(chloe), {
			items: [items[0], items[0]],
			continueOnFail: true,
			executionId: 'best-twice',
		});
		expect(out.items.map((i) => (i.json.details as { code: string }).code)).toEqual([
			'bizchat_window_closed',
			'bizchat_window_closed',
		]);
		expect(sends()).toEqual(['telegram', 'instagram', 'telegram (stored)', 'instagram (stored)']);
		expect(failedCopies(chloe)).toBe(2);
	});
});

describe('Send → Best Available with a template when the window is closed', () => {
	it('sends the template on the messenger whose window is closed, not on the next one, once', async () => {
		const parameters = best(ben, {
			windowClosed: 'template',
			fallbackTemplateName: 'order_update',
			fallbackTemplateLanguage: 'en',
			fallbackTemplateVariables: { variable: [{ value: 'Ben' }, { value: 'A-17' }] },
		});
		const first = await run(parameters);
		expect(first.items[0].json).toMatchObject({
			sent_via: 'whatsapp',
			sent_as: 'template',
			tried: [],
		});
		expect(sends()).toEqual(['whatsapp', 'whatsapp']);
		const again = await run(parameters, 'retry');
		expect(again.items[0].json).toMatchObject({ sent_via: 'whatsapp', replayed: true });
		expect(delivered(ben)).toBe(1);
	});
});
