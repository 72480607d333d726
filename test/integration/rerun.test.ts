/**
 * Running the same input again after the operator fixed the cause, in every execution mode, and a
 * key changed in the middle of a run. Acceptance is the sandbox's state: messages sent and failed
 * copies left per customer.
 */
import type { INodeExecutionData, INodeParameters, WorkflowExecuteMode } from 'n8n-workflow';

import { useSandbox } from '../harness/fixtures';
import { ALL_SCOPES } from '../sandbox/server';

const env = useSandbox();

/**
 * Three customers with a bot messenger; the second is written on VK, whose company connection the
 * tests break and reconnect (`channel_unavailable` in between).
 */
function threeCustomers(): { ids: string[]; items: INodeExecutionData[] } {
	const ids = [1, 2, 3].map((n) => env.sandbox.demoCustomer(`Re-run customer ${n}`));
	env.sandbox.addMessenger(ids[1], 'vk', 'vk-2');
	const messengers = ['telegram', 'vk', 'telegram'];
	return {
		ids,
		items: ids.map((customerId, i) => ({ json: { customerId, messenger: messengers[i] } })),
	};
}

const send: INodeParameters = {
	resource: 'message',
	operation: 'send',
	customerId: { __rl: true, mode: 'id', value: '={{ $json.customerId }}' },
	messengerType: '={{ $json.messenger }}',
	text: 'Your order has shipped',
};

const channel = (broken: boolean) =>
	broken
		? env.sandbox.store.brokenChannels.add('vk')
		: env.sandbox.store.brokenChannels.delete('vk');
const sent = (ids: string[]) => env.sandbox.sentTo(ids);
const failed = (ids: string[]) => env.sandbox.failedTo(ids);
const sends = () => env.sandbox.requests().filter((r) => r.path.endsWith('/messages'));

let executions = 0;
const run = async (
	items: INodeExecutionData[],
	mode: WorkflowExecuteMode = 'manual',
	parameters: INodeParameters = send,
) =>
	await env.run(parameters, {
		items,
		mode,
		continueOnFail: true,
		executionId: `rerun-${++executions}`,
	});

/** What each output item is: sent, replayed (the API's stored answer) or the error's code. */
const outcomes = (out: Awaited<ReturnType<typeof run>>) =>
	out.items.map((i) =>
		i.json.error
			? String((i.json.details as { code?: string }).code)
			: i.json.replayed
				? 'replayed'
				: 'sent',
	);

describe('a refusal delivered nothing, so running the same input again after the fix sends it', () => {
	it.each<[string, WorkflowExecuteMode]>([
		['the editor (Execute workflow)', 'manual'],
		['a webhook delivered again', 'webhook'],
		['a trigger or schedule', 'trigger'],
		["n8n's Retry of the execution", 'retry'],
		['a sub-workflow', 'integrated'],
	])(
		'%s: the refused customer is messaged once, the others not twice, and a third run changes nothing',
		async (_name, mode) => {
			const { ids, items } = threeCustomers();
			channel(true);
			const first = await run(items, mode);
			expect(outcomes(first)).toEqual(['sent', 'channel_unavailable', 'sent']);
			expect(first.items[1].json.error).toMatch(/^channel_unavailable: /);
			expect(String((first.items[1].json.details as { description: string }).description)).toMatch(
				/Once an operator reconnects it in the CRM, run the workflow again: this item is tried anew, and what had gone through is not sent twice/,
			);
			channel(false);
			const second = await run(items, mode);
			expect(outcomes(second)).toEqual(['replayed', 'sent', 'replayed']);
			expect(second.items.map((i) => i.pairedItem)).toEqual(items.map((_, item) => ({ item })));
			expect(sent(ids)).toEqual([1, 1, 1]);
			expect(outcomes(await run(items, mode))).toEqual(['replayed', 'replayed', 'replayed']);
			expect(sent(ids)).toEqual([1, 1, 1]);
			expect(failed(ids)).toEqual([0, 1, 0]);
		},
	);

	it('without Continue on fail: the run stops at the refusal, the run after the fix sends the rest once', async () => {
		const { ids, items } = threeCustomers();
		channel(true);
		const first = await env.run(send, { items, executionId: 'stop-1' });
		expect(first.error?.message).toMatch(/^channel_unavailable/);
		expect(sent(ids)).toEqual([1, 0, 0]);
		channel(false);
		expect((await env.run(send, { items, executionId: 'stop-2' })).error).toBeUndefined();
		expect(sent(ids)).toEqual([1, 1, 1]);
	});

	it.each(['no_peer', 'recipient_unreachable', 'send_rejected', 'bizchat_window_closed'])(
		'%s gets a fresh try on the next run too (the cause can clear)',
		async (reason) => {
			const { ids, items } = threeCustomers();
			env.sandbox.store.sendFailures.set(ids[1], [reason]);
			expect(outcomes(await run(items))).toEqual(['sent', reason, 'sent']);
			expect(outcomes(await run(items))).toEqual(['replayed', 'sent', 'replayed']);
			expect(sent(ids)).toEqual([1, 1, 1]);
		},
	);

	it('while the cause stays, each run leaves one failed copy, three more runs in 24 hours at most; then the stored refusal, saying so', async () => {
		const { ids, items } = threeCustomers();
		channel(true);
		const perRun: number[] = [];
		let last: Awaited<ReturnType<typeof run>> | undefined;
		for (let i = 0; i < 6; i++) {
			const before = failed(ids)[1];
			env.sandbox.clearRequests();
			last = await run(items);
			perRun.push(failed(ids)[1] - before);
			expect(outcomes(last)[1]).toBe('channel_unavailable');
		}
		expect(perRun).toEqual([1, 1, 1, 1, 0, 0]);
		// The last run read the four stored links and tried nothing.
		expect(sends().filter((r) => r.path.startsWith(`/customers/${ids[1]}`))).toHaveLength(4);
		const details = last!.items[1].json.details as { description: string; replayed?: boolean };
		expect(details.replayed).toBe(true);
		expect(details.description).toMatch(
			/already tried 3 more times within 24 hours and were refused, so it is not tried again\. To try now, map a new Idempotency Key/,
		);
		expect(sent(ids)).toEqual([1, 0, 1]);
	});

	it('a send failure the messenger saw is retried once in a run: at most two failed copies per item and run', async () => {
		const { ids, items } = threeCustomers();
		env.sandbox.store.sendFailures.set(
			ids[1],
			Array.from({ length: 10 }, () => 'send_failed'),
		);
		const out = await run(items);
		expect(outcomes(out)).toEqual(['sent', 'send_failed', 'sent']);
		expect(failed(ids)).toEqual([0, 2, 0]);
		// Not stored by the API: the next run tries again, twice at most.
		await run(items);
		expect(failed(ids)).toEqual([0, 4, 0]);
	});

	it('the same input twice in one run meets its own refusal: one try, not two', async () => {
		const { ids, items } = threeCustomers();
		channel(true);
		const out = await run([items[1], items[1]]);
		expect(outcomes(out)).toEqual(['channel_unavailable', 'channel_unavailable']);
		expect(failed(ids)).toEqual([0, 1, 0]);
	});

	it("a server that does not mark its stored answers: the refusal comes back and nothing is sent twice (the fresh try needs the API's word)", async () => {
		env.sandbox.markReplays = false;
		const { ids, items } = threeCustomers();
		channel(true);
		await run(items);
		channel(false);
		expect(outcomes(await run(items))).toEqual(['sent', 'channel_unavailable', 'sent']);
		expect(sent(ids)).toEqual([1, 0, 1]);
		expect(failed(ids)).toEqual([0, 1, 0]);
	});
});

describe('the key changes in the middle of a run', () => {
	/** Six customers on the bot messenger. */
	function six(): { ids: string[]; items: INodeExecutionData[] } {
		const ids = Array.from({ length: 6 }, (_, i) => env.sandbox.demoCustomer(`Key customer ${i}`));
		return {
			ids,
			items: ids.map((customerId) => ({ json: { customerId, messenger: 'telegram' } })),
		};
	}

	/** Calls `change` just before the `n`-th send reaches the API. */
	function beforeSend(n: number, change: () => void) {
		let seen = 0;
		env.sandbox.onRequest = (method, path) => {
			if (method === 'POST' && path.endsWith('/messages') && ++seen === n) change();
		};
	}

	it('a revoked key: the first 401 is the last request; every remaining item fails with it and its fix, one error item each', async () => {
		const { ids, items } = six();
		beforeSend(4, () => env.sandbox.revokeKey(env.apiKey));
		const out = await run(items);
		expect(outcomes(out)).toEqual([
			'sent',
			'sent',
			'sent',
			'unauthorized',
			'unauthorized',
			'unauthorized',
		]);
		expect(sends()).toHaveLength(4);
		for (const item of out.items.slice(3)) {
			expect(item.json.error).toMatch(/^unauthorized: This API key has been revoked \[item \d\]$/);
			expect((item.json.details as { description: string }).description).toMatch(
				/Mint a new key in the company settings \(API tab\) and update the credential/,
			);
		}
		expect((out.items[4].json.details as { description: string }).description).toMatch(
			/Not sent: an earlier request of this run got this answer/,
		);
		expect(out.items.map((i) => i.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		expect(sent(ids)).toEqual([1, 1, 1, 0, 0, 0]);
	});

	it('a scope removed mid-run: the first 403 is the last request; the items that need the scope fail with it and how to get it', async () => {
		const { ids, items } = six();
		beforeSend(3, () =>
			env.sandbox.setScopes(
				env.apiKey,
				ALL_SCOPES.filter((s) => s !== 'messages:send'),
			),
		);
		const out = await run(items);
		expect(outcomes(out)).toEqual(['sent', 'sent', ...Array(4).fill('insufficient_scope')]);
		for (const item of out.items.slice(2))
			expect((item.json.details as { description: string }).description).toMatch(
				/"messages:send".*Mint a key/,
			);
		expect(sends()).toHaveLength(3);
		expect(sent(ids)).toEqual([1, 1, 0, 0, 0, 0]);
	});

	it.each<['company' | 'key', number[], string[]]>([
		['company', [1, 1, 1, 1, 1, 1], ['replayed', 'replayed', 'replayed', 'sent', 'sent', 'sent']],
		['key', [2, 2, 2, 1, 1, 1], ['sent', 'sent', 'sent', 'sent', 'sent', 'sent']],
	])(
		'Idempotency-Keys kept per %s: a new key in the credential, the same input again',
		async (scope, counts, again) => {
			env.sandbox.idempotencyScope = scope;
			const { ids, items } = six();
			beforeSend(4, () => env.sandbox.revokeKey(env.apiKey));
			await run(items);
			env.sandbox.onRequest = undefined;
			env.apiKey = env.sandbox.mintKey();
			const out = await run(items);
			expect(outcomes(out)).toEqual(again);
			expect(sent(ids)).toEqual(counts);
		},
	);

	it.each(['company', 'key'] as const)(
		'upserts under a new key, Idempotency-Keys per %s: no customer twice, what had gone through is found by its identity',
		async (scope) => {
			env.sandbox.idempotencyScope = scope;
			const items = Array.from({ length: 5 }, (_, i) => ({
				json: { phone: `+1555099000${i}`, name: `Key upsert ${i}` },
			}));
			const upsert: INodeParameters = {
				resource: 'customer',
				operation: 'upsert',
				phone: '={{ $json.phone }}',
				additionalFields: { fullName: '={{ $json.name }}' },
			};
			let seen = 0;
			env.sandbox.onRequest = (method, path) => {
				if (method === 'POST' && path === '/customers' && ++seen === 3)
					env.sandbox.revokeKey(env.apiKey);
			};
			const before = env.sandbox.store.customers.size;
			const first = await run(items, 'manual', upsert);
			expect(outcomes(first)).toEqual([
				'sent',
				'sent',
				'unauthorized',
				'unauthorized',
				'unauthorized',
			]);
			env.sandbox.onRequest = undefined;
			env.apiKey = env.sandbox.mintKey();
			const second = await run(items, 'manual', upsert);
			expect(second.items.map((i) => i.json.created)).toEqual(
				scope === 'company' ? [true, true, true, true, true] : [false, false, true, true, true],
			);
			expect(env.sandbox.store.customers.size - before).toBe(5);
		},
	);
});
