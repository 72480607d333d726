/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * `npm run bench -- families`. Members of the pacer's families (harness/families.ts) drawn at the
 * API's 60 s window, every client its own process.
 */
import { writeFileSync } from 'fs';
import path from 'path';

import type { Member } from '../harness/families';
import { benchMember, describeMember, judge } from '../harness/families';
import type { ModelResult } from '../harness/rateModel';
import type { Json, Log } from './runner';
import {
	BASE,
	fresh,
	keepLog,
	LIMIT,
	requestLog,
	results,
	row,
	sleep,
	wanted,
	workers,
} from './runner';
import { isCoTenant, isNodeUpsert, withCoTenant } from './beside';
import { windowsSvg } from './windowsSvg';

/** The user's picture of the rate limit (docs/retries-and-rate-limit.md), from the first F1 member. */
const PICTURE = path.join(__dirname, '../../docs/rate-limit-windows.svg');

/** The picture's title: what the node sent beside what, in a user's words. */
export function pictureTitle(member: Member): string {
	const c = member.cotenant;
	const how = !c
		? ''
		: c.kind === 'bursting'
			? `${c.rate} at once ${c.phaseMs ? `${c.phaseMs / 1000} s into` : 'at the start of'} each minute`
			: c.kind === 'spreading'
				? `${c.rate} spread over each minute`
				: `${c.rate} a minute at random moments`;
	const items = member.processes.reduce((a, p) => a + p.items, 0);
	return `${items} upserts beside another client sending ${how}, at 120 a minute`;
}

/**
 * The node's requests and the co-tenant's in a run's request log, as the model's result (client 0:
 * the node's processes together, -1: the co-tenant), for the families' judge.
 */
export function modelOf(log: Log, windowMs: number, figures: Json[]): ModelResult {
	const onKey = log.filter((r) => r.keyId !== undefined).sort((a, b) => a.seq - b.seq);
	const t0 = onKey.find((r) => isCoTenant(r) || isNodeUpsert(r))?.at ?? 0;
	const entries: ModelResult['log'] = [];
	let [index, start] = [-1, -Infinity];
	for (const r of onKey) {
		if (r.at >= start + windowMs) [index, start] = [index + 1, r.at];
		if (r.status === 0 || !(isCoTenant(r) || isNodeUpsert(r))) continue;
		entries.push({
			at: r.at - t0,
			client: isCoTenant(r) ? -1 : 0,
			ok: r.status !== 429,
			window: index,
		});
	}
	const node = entries.filter((e) => e.client === 0);
	const accepted = node.filter((e) => e.ok);
	const its = entries.filter((e) => e.client === -1);
	return {
		clients: [
			{
				done: accepted.length,
				lost: figures.reduce((a, f) => a + Number(f.failed), 0),
				first: node[0]?.at ?? NaN,
				last: accepted[accepted.length - 1]?.at ?? NaN,
			},
		],
		log: entries,
		cotenant: { sent: its.length, refused: its.filter((e) => !e.ok).length },
	};
}

/**
 * Members of the pacer's families (test/harness/families.ts) drawn at random at the API's own 60 s
 * window, every client its own process (the node's processes fresh worker.ts processes, started
 * when the member says; the co-tenant cotenant.ts), judged by the family's property: BENCH_MEMBERS
 * per family (3), from BENCH_SEED (printed; the time by default).
 */
export async function familiesAt60() {
	const windowMs = 60_000;
	const seed = Number(process.env.BENCH_SEED ?? Date.now() % 100_000);
	const count = Number(process.env.BENCH_MEMBERS ?? 3);
	console.log(`families: seed ${seed}, ${count} members of each`);
	let pictured = false;
	for (const family of ['F1', 'F2', 'F3', 'F5'] as const) {
		for (let i = 0; i < count; i++) {
			const member = benchMember(family, seed + i);
			const variant = describeMember(member);
			if (!wanted(variant)) continue;
			const apiKey = await fresh({ enabled: true, limit: LIMIT, windowMs });
			const jobs = member.processes.map((p, w) => ({
				kind: 'upserts',
				baseUrl: BASE,
				apiKey,
				count: p.items,
				prefix: `7${i}${w}`,
				startMs: p.startMs,
			}));
			const c = member.cotenant;
			const figures = !c
				? await workers(jobs)
				: await withCoTenant(
						apiKey,
						{
							mode: ({ spreading: 'spread', bursting: 'burst', random: 'random' } as const)[c.kind],
							perWindow: c.rate,
							windowMs,
							phaseMs: c.phaseMs,
							startup: c.kind === 'bursting',
							seed: member.seed,
						},
						async (tenant) => {
							let joined: Promise<void> = Promise.resolve();
							const f = await workers(jobs, () => {
								joined = sleep(c.startMs).then(() => tenant.go());
							});
							await joined;
							await tenant.stop();
							return f;
						},
					);
			const log = await requestLog();
			keepLog(`${family}-${member.seed}`, log);
			const model = modelOf(log, windowMs, figures);
			const verdict = judge(member, model);
			if (family === 'F1' && !pictured) {
				pictured = true;
				writeFileSync(PICTURE, windowsSvg(model.log, LIMIT, pictureTitle(member)));
			}
			((results.families ??= {}) as Json)[variant] = { seed: member.seed, member, verdict };
			row(
				`Family ${family} at 120 per 60 s`,
				variant,
				(verdict.ok ? 'held' : verdict.why.join('; ')) +
					(verdict.ok && verdict.refusedBeyond ? `; ${verdict.refusedBeyond} beyond its rate` : ''),
				`${verdict.ofMinimum.toFixed(3)}× the minimum`,
				`${(100 * verdict.refusedShare).toFixed(1)} % answered 429`,
			);
		}
	}
}
