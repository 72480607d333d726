/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The model sweep: many random members of each family of the pacer's promises
 * (test/harness/families.ts), in simulated time, with the seed and the worst member printed so that
 * any one can be replayed. `npm run sweep -- [members] [first seed] [families]`, for example
 * `npm run sweep -- 500 1 F1,F3` (F3s: the processes' family at 30 per 6 s; `cases`: the six cases
 * in `CASES`, each drawn that many times).
 */
import type { Family } from '../harness/families';
import { badness, CASES, describeMember, judge, runMember, sweep } from '../harness/families';

const members = Number(process.argv[2] ?? 500);
const seed = Number(process.argv[3] ?? 1);
const families = (process.argv[4] ?? 'F1,F2,F3,F3s,F4,F5').split(',');

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
console.log(`Model sweep: ${members} members of each family from seed ${seed}`);
for (const name of families) {
	if (name === 'cases') {
		printCases();
		continue;
	}
	const short = name === 'F3s';
	const family = (short ? 'F3' : name) as Family;
	const { failures, classes, beyond, unseeable, worst } = sweep(family, seed, members, short);
	const v = worst.verdict;
	console.log(`\n${name}: the property held for ${members - failures.length} of ${members}`);
	// The co-tenant refused beyond its rate in a server window (its clock drifting against the
	// server's windows): not counted against the node.
	if (beyond)
		console.log(`  the co-tenant refused beyond its rate in a server window: ${beyond} members`);
	// Refused after the node's look, in the moment before the reset: out of any pacer's reach.
	if (unseeable.length)
		console.log(
			`  the co-tenant refused only after the node's look: ${unseeable.length} members (seeds ${unseeable.join(', ')})`,
		);
	const causes = new Map<string, number>();
	for (const f of failures) {
		for (const why of f.verdict.why) {
			const cause = why.replace(/[\d.]+/g, 'N');
			causes.set(cause, (causes.get(cause) ?? 0) + 1);
		}
	}
	for (const [cause, n] of causes) console.log(`  ${n}× ${cause}`);
	// Where it fails: each class of member, the most failing first.
	const byShare = [...classes].sort(([, a], [, b]) => b.failed / b.drawn - a.failed / a.drawn);
	for (const [name, c] of byShare)
		console.log(`  ${name}: held ${c.drawn - c.failed} of ${c.drawn}`);
	console.log(`  worst: ${describeMember(worst.member)}`);
	console.log(
		`         ${v.ok ? 'held' : v.why.join('; ')}; ${v.ofMinimum.toFixed(2)}× the minimum, ${pct(v.refusedShare)} answered 429`,
	);
}

/** The table's cases (CASES), each drawn `members` times: how many held, the spread, the worst. */
function printCases() {
	console.log(`\nThe table's cases, ${members} draws of each from seed ${seed}:`);
	for (const { name, member } of CASES) {
		const runs = Array.from({ length: members }, (_, i) => {
			const m = member(seed + i);
			return { m, v: judge(m, runMember(m)) };
		});
		const ratios = runs.map((x) => x.v.ofMinimum).sort((a, b) => a - b);
		const mid = ratios[Math.floor(ratios.length / 2)];
		const refused = runs.filter((x) => x.v.refusedAfter > 0);
		const most = Math.max(...runs.map((x) => x.v.refusedAfter));
		const worst = runs.reduce((a, b) => (badness(b.v) > badness(a.v) ? b : a));
		const f = (x: number) => x.toFixed(2);
		console.log(`  ${name}: held ${runs.filter((x) => x.v.ok).length} of ${members}`);
		console.log(
			`    ${f(ratios[0])} / ${f(mid)} / ${f(ratios[ratios.length - 1])}× the minimum (min / median / max); the co-tenant refused after its first window in ${refused.length} (${most} at most)`,
		);
		console.log(`    worst: ${describeMember(worst.m)}`);
		console.log(`           ${worst.v.ok ? 'held' : worst.v.why.join('; ')}`);
	}
}
