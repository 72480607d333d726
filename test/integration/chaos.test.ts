/* eslint-disable no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * Chaos: a seeded run of 2,000 mixed operations (upserts, sends, variable sets, uploads, stage
 * moves) against a sandbox injecting 429s, 502s, 503s, resets (before and after the work), slow
 * answers past the timeout and malformed bodies. Every item is safe to repeat (a key, or
 * idempotent by the API), so every item must succeed, and the sandbox's final state must equal
 * that of a fault-free run of the same operations: nothing duplicated, nothing lost.
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode } from '../harness/engine';
import { prng } from '../harness/prng';
import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { DEMO } from '../sandbox/store';

// Timing through real options, so that hundreds of injected faults fit in a test run: the
// credential's Timeout, and the sandbox's 502 and 503 answers carry a short Retry-After, which the
// transport honours as any server's. A slow answer comes four timeouts late, so it is always lost,
// and an ordinary one (milliseconds on loopback) is never near the timeout, however loaded the
// machine: nothing is raced.
const TIMEOUT_SECONDS = 1;
const SLOW_MS = 4 * TIMEOUT_SECONDS * 1000;

interface Batch {
	parameters: INodeParameters;
	items: INodeExecutionData[];
}

const PHONES = Array.from({ length: 150 }, (_, i) => `+1555040${String(i).padStart(4, '0')}`);
const byPhone = (phone: string) => ({ __rl: true, mode: 'phone', value: phone });

/** The same seeded plan of batches (2,000 items in all) for both runs. */
function plan(seed: number): Batch[] {
	const random = prng(seed);
	const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
	const batches: Batch[] = [
		{
			parameters: {
				resource: 'customer',
				operation: 'upsert',
				phone: '={{ $json.phone }}',
				messengersUi: { messenger: [{ type: 'telegram', id: '={{ $json.tg }}' }] },
			},
			items: PHONES.map((phone, i) => ({ json: { phone, tg: `55${i}` } })),
		},
	];
	let total = PHONES.length;
	while (total < 2000) {
		const size = 25 + Math.floor(random() * 50);
		const kind = pick(['upsert', 'send', 'variables', 'upload', 'move']);
		const items: INodeExecutionData[] = Array.from({ length: size }, () => ({
			json: {
				phone: pick(PHONES),
				name: `N${Math.floor(random() * 1e6)}`,
				value: Math.floor(random() * 1000),
				stage: pick(['new', 'qualified', 'proposal', 'negotiation']),
				code: `CH-${Math.floor(random() * 5000)}`,
				text: `Hello ${Math.floor(random() * 1e6)}`,
			},
		}));
		const parameters: Record<string, INodeParameters> = {
			upsert: {
				resource: 'customer',
				operation: 'upsert',
				phone: '={{ $json.phone }}',
				additionalFields: { fullName: '={{ $json.name }}' },
			},
			send: {
				resource: 'message',
				operation: 'send',
				customerId: byPhone('={{ $json.phone }}'),
				messengerType: 'telegram',
				content: 'text',
				text: '={{ $json.text }}',
			},
			variables: {
				resource: 'variable',
				operation: 'set',
				target: 'customer',
				customerId: byPhone('={{ $json.phone }}'),
				variablesInput: 'json',
				variablesJson:
					'={{ JSON.stringify({ score: $json.value, ["v" + ($json.value % 7)]: $json.name }) }}',
			},
			upload: {
				resource: 'promoCode',
				operation: 'upload',
				poolId: { __rl: true, mode: 'id', value: DEMO.welcomePool },
				codesFrom: 'list',
				codes: '={{ $json.code }}',
			},
			move: {
				resource: 'deal',
				operation: 'moveStage',
				customerId: byPhone('={{ $json.phone }}'),
				stageBy: 'code',
				stageCode: '={{ $json.stage }}',
			},
		};
		batches.push({ parameters: parameters[kind], items });
		total += size;
	}
	return batches;
}

/** The company's state, without ids and timestamps, keyed by phone. */
function normalized(sandbox: Sandbox) {
	const store = sandbox.store;
	const customers = [...store.customers.values()].map((c) => {
		const deal = store.currentDeal(c.id);
		return {
			phone: c.phone,
			name: c.full_name,
			messengers: c.messengers.map((m) => `${m.type}:${m.id}`),
			variables: Object.fromEntries([...c.variables].map(([k, v]) => [k, v.value])),
			stage: deal
				? store.pipelines.get(deal.pipeline_id)?.stages.find((s) => s.id === deal.stage_id)
						?.stage_code
				: null,
			messages: [...store.messages.values()]
				.filter((m) => m.customer_id === c.id && m.status === 'sent')
				.map((m) => m.text)
				.sort(),
		};
	});
	const pool = store.promoPools.get(DEMO.welcomePool)!;
	return {
		customers: customers.sort((a, b) => String(a.phone).localeCompare(String(b.phone))),
		codes: pool.rows.map((r) => r.code).sort(),
		failedMessages: [...store.messages.values()].filter((m) => m.status === 'failed').length,
	};
}

async function runPlan(sandbox: Sandbox, batches: Batch[]) {
	const apiKey = sandbox.mintKey();
	const failed: Array<{ key: string; error: string }> = [];
	for (const [b, batch] of batches.entries()) {
		const { items: out, error } = await runNode({
			parameters: batch.parameters,
			items: batch.items,
			credentials: { baseUrl: sandbox.url, apiKey, timeoutSeconds: TIMEOUT_SECONDS },
			continueOnFail: true,
			executionId: `chaos-${b}`,
		});
		if (error) throw new Error(`Batch ${b} failed as a whole: ${error.message}`);
		out.forEach((item) => {
			if (!item.json.error) return;
			const index = (item.pairedItem as { item: number }).item;
			failed.push({ key: `${b}:${index}`, error: String(item.json.error) });
		});
	}
	return failed;
}

describe('chaos', () => {
	it('2,000 operations under random faults end in the same state as without faults', async () => {
		const batches = plan(7);
		expect(batches.reduce((n, b) => n + b.items.length, 0)).toBeGreaterThanOrEqual(2000);
		const chaotic = await startSandbox({ rateLimit: { enabled: false } });
		const calm = await startSandbox({ rateLimit: { enabled: false } });
		try {
			chaotic.setChaos({
				seed: 99,
				p429: 0.03,
				retryAfter: '0.02',
				retryAfter5xx: '0.005',
				p502: 0.03,
				p503: 0.02,
				pReset: 0.03,
				pSlow: 0.005,
				slowMs: SLOW_MS,
				pMalformed: 0.02,
			});
			const failed = await runPlan(chaotic, batches);
			chaotic.setChaos(null);
			const faults = chaotic.requests().filter((r) => r.fault).length;
			// No item lost to a fault: the transport's retries and the pacer outlast them all (the
			// plan and the faults are seeded, and nothing is raced against a clock).
			expect(failed).toEqual([]);
			await runPlan(calm, batches);
			const [a, b] = [normalized(chaotic), normalized(calm)];
			expect(a.customers).toHaveLength(PHONES.length);
			expect(a).toEqual(b);
			expect(faults).toBeGreaterThan(300);
			console.log(
				`chaos: ${batches.reduce((n, x) => n + x.items.length, 0)} items, ${chaotic.requests().length} requests, ${faults} faults injected, ${failed.length} items failed`,
			);
		} finally {
			await chaotic.stop();
			await calm.stop();
		}
	}, 600_000);
});
