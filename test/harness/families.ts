/**
 * The pacer's promises as properties over families of cases (docs/pacer.md, the
 * rate limit): each family draws a member at random from a seed, runs it in the model
 * (rateModel.ts), and says whether the property holds and by how much. `npm run sweep`
 * (test/bench/sweep.ts) and test/unit/pacer-families.test.ts draw their members here.
 *
 * A window is the server's window; a client starts with its first request, accepted or not.
 * Answers are late (1 to 8 ms each way) and jittered (up to 20 ms more each way), as those of
 * processes waiting for two cores are; a co-tenant's first request comes 2 to 20 ms later than its
 * schedule (a new connection), so that its windows start after its cycles and a burst at a cycle's
 * start may land before the server's reset, as the benchmark's co-tenant does.
 */
import type { ModelResult, ResetForm, ServerModel } from './rateModel';
import { runModel } from './rateModel';
import { prng } from './prng';

export type Family = 'F1' | 'F2' | 'F3' | 'F4' | 'F5';

/** One member of a family, as drawn: enough to run it again in the model or the benchmark. */
export interface Member {
	family: Family;
	seed: number;
	limit: number;
	windowMs: number;
	latencyMs: number;
	jitterMs: number;
	/** The node's processes: items each and when each starts (ms). */
	processes: Array<{ items: number; startMs: number }>;
	/** The key's other client, if any. */
	cotenant?: {
		/** Requests per window. */
		rate: number;
		kind: 'spreading' | 'bursting' | 'random';
		startMs: number;
		/** Bursting: this long after its start, every window-long cycle. */
		phaseMs?: number;
	};
	reset?: ResetForm;
	clockBehindS?: number;
	date?: 'server' | 'host' | 'none';
	retryAfter?: boolean;
	/** The key was spent before the run until then (ms): first contact is refused. */
	spentUntilMs?: number;
}

/** What a member's run showed, and whether the family's property held. */
export interface Verdict {
	ok: boolean;
	/** The node's time from its first request to its last answer over its bound (≤ 1 holds). */
	timeRatio: number;
	/** The node's time over the family's minimum (what the docs report). */
	ofMinimum: number;
	/**
	 * The other client's requests refused where the property allows none, among its first `rate`
	 * of their server window (within its rate).
	 */
	refusedAfter: number;
	/** Refused there too, beyond its rate in their server window (its clock drifted against it). */
	refusedBeyond: number;
	/**
	 * Refused there within its rate, but out of the node's reach: it reached the server after the
	 * node's last request of that window, which went at the window's look (its last 120th), so no
	 * answer of the node's could have shown it. Not counted against the node; the sweep names them.
	 */
	unseeable: number;
	/** Answered 429, of the node's requests. */
	refusedShare: number;
	lost: number;
	why: string[];
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const between = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

/** `total` items split among `n` processes, evenly or not (each even at random, or 0.2 to 1.2 of a part). */
function split(r: () => number, n: number, total: number): number[] {
	const weights = Array.from({ length: n }, () => (r() < 0.5 ? 1 : 0.2 + r()));
	const sum = weights.reduce((a, b) => a + b, 0);
	return weights.map((x) => Math.max(1, Math.round((x / sum) * total)));
}

/** Draws member `seed` of `family` (at the API's 120 per 60 s, or `short`: 30 per 6 s, for F3). */
export function draw(family: Family, seed: number, short = false): Member {
	const r = prng(seed * 7919 + family.charCodeAt(1));
	const base = {
		family,
		seed,
		limit: short ? 30 : 120,
		windowMs: short ? 6000 : 60_000,
		latencyMs: between(r, 1, 8),
		jitterMs: between(r, 0, 20),
	};
	const w = base.windowMs;
	if (family === 'F1') {
		const rate = between(r, 10, 80);
		const kind = pick(r, ['spreading', 'bursting', 'random'] as const);
		// Its first and last second of the window included.
		const phaseMs = kind === 'bursting' ? pick(r, [0, 59_000, between(r, 0, 59) * 1000]) : 0;
		return {
			...base,
			processes: [{ items: between(r, 150, 600), startMs: between(r, 0, w - 1) }],
			cotenant: { rate, kind, startMs: 0, phaseMs },
		};
	}
	if (family === 'F2') {
		const items = between(r, 200, 1000);
		const windows = Math.ceil(items / 120);
		const kind = pick(r, ['spreading', 'bursting'] as const);
		return {
			...base,
			processes: [{ items, startMs: 0 }],
			cotenant: {
				rate: between(r, 10, 40),
				kind,
				startMs: between(r, 0, Math.max(1, windows - 1) * w),
				phaseMs: 0,
			},
		};
	}
	if (family === 'F3') {
		const n = between(r, 2, 8);
		const items = split(r, n, short ? between(r, 12, 150) : between(r, 50, 600));
		const together = r() < 0.25;
		return {
			...base,
			processes: items.map((i) => ({ items: i, startMs: together ? 0 : between(r, 0, 5000) })),
		};
	}
	if (family === 'F5') {
		// Queue-mode workers (or other processes of the node) beside the company's backend.
		const rate = between(r, 10, 60);
		const kind = pick(r, ['spreading', 'bursting', 'random'] as const);
		const phaseMs = kind === 'bursting' ? between(r, 0, 59) * (w / 60) : 0;
		const n = between(r, 2, 4);
		const items = split(r, n, between(r, 150, 600));
		const first = between(r, 0, w - 1);
		const together = r() < 0.25;
		return {
			...base,
			processes: items.map((i) => ({
				items: i,
				// All within the co-tenant's first window, as F1's node.
				startMs: Math.min(w - 1, first + (together ? 0 : between(r, 0, 5000))),
			})),
			cotenant: { rate, kind, startMs: 0, phaseMs },
		};
	}
	const reset = pick(r, ['exact', 'floor', 'ceil', 'epoch', 'epoch-floor', 'epoch-ms'] as const);
	const epoch = reset.startsWith('epoch');
	return {
		...base,
		processes: [{ items: pick(r, [50, 150, 300, 340, 1000]), startMs: 0 }],
		reset,
		clockBehindS: epoch ? between(r, 0, 2) : 0,
		date: epoch ? pick(r, ['server', 'host', 'none'] as const) : 'server',
		retryAfter: r() < 0.5,
		spentUntilMs: r() < 0.3 ? between(r, 1000, w - 1000) : undefined,
	};
}

/**
 * Member `seed` of `family` as the benchmark runs it at the API's 60 s window, where a window is a
 * minute: at most 300 upserts beside a co-tenant of at most 60 per window (F1, and in all for F5),
 * 400 (F2), 360 in all (F3), so that a member ends within six windows.
 */
export function benchMember(family: Family, seed: number): Member {
	const m = draw(family, seed);
	const cap = { F1: 300, F2: 400, F3: 360, F4: 340, F5: 300 }[family];
	const total = m.processes.reduce((a, p) => a + p.items, 0);
	const scale = Math.min(1, cap / total);
	const processes = m.processes.map((p) => ({
		...p,
		items: Math.max(1, Math.floor(p.items * scale)),
	}));
	// A co-tenant that joins does so within the node's shorter run.
	const startMs = family === 'F2' ? Math.floor((m.cotenant?.startMs ?? 0) * scale) : 0;
	const cotenant = m.cotenant && { ...m.cotenant, rate: Math.min(60, m.cotenant.rate), startMs };
	// Real processes: a request takes a round trip of some 40 ms at most back to back.
	return { ...m, latencyMs: 10, jitterMs: 10, processes, cotenant };
}

/** A draw of a case: other answer latencies and jitter per seed, at 120 per 60 s or 30 per 6 s. */
function caseBase(seed: number, short: boolean) {
	const r = prng(seed * 104_729);
	const [limit, windowMs] = short ? [30, 6000] : [120, 60_000];
	return { seed, limit, windowMs, latencyMs: between(r, 1, 8), jitterMs: between(r, 0, 20) };
}

/** 300 upserts beside a co-tenant there from the start (F1, the node 1 s later) or joining (F2). */
const beside =
	(family: Family, kind: 'spreading' | 'bursting', rate: number, startMs = 0) =>
	(seed: number): Member => ({
		...caseBase(seed, false),
		family,
		processes: [{ items: 300, startMs: family === 'F1' ? 1000 : 0 }],
		cotenant: { rate, kind, startMs, phaseMs: 0 },
	});

/** Eight processes of `items` upserts each, started as they load: within 2.5 s of one another. */
const eight =
	(items: number, short = false) =>
	(seed: number): Member => {
		const r = prng(seed);
		const processes = Array.from({ length: 8 }, () => ({ items, startMs: between(r, 0, 2500) }));
		return { ...caseBase(seed, short), family: 'F3', processes };
	};

/**
 * Six cases a user meets (docs/benchmarks.md, the model sweep), each drawn again per seed: other
 * answer latencies and jitter, the co-tenant's first request later or sooner, other start times
 * for the processes. Each is judged by its family's property.
 */
export const CASES: Array<{ name: string; member: (seed: number) => Member }> = [
	{ name: 'spreading 40, there from the start', member: beside('F1', 'spreading', 40) },
	{ name: '40 at once at the start of each of its windows', member: beside('F1', 'bursting', 40) },
	{
		name: 'spreading 40, starting 30 s into the run',
		member: beside('F2', 'spreading', 40, 30_000),
	},
	{ name: 'spreading 60 (the fair share)', member: beside('F1', 'spreading', 60) },
	{ name: 'eight processes of 37, started within 2.5 s', member: eight(37) },
	{ name: 'eight processes of 12 at 30 per 6 s, started within 2.5 s', member: eight(12, true) },
];

/** Runs a member in the model. */
export function runMember(m: Member): ModelResult {
	const { limit, windowMs, latencyMs, jitterMs } = m;
	const server: ServerModel = { limit, windowMs, latencyMs, jitterMs };
	// Only what the member sets: the model's defaults stand for the rest.
	for (const key of ['reset', 'clockBehindS', 'date', 'retryAfter', 'spentUntilMs'] as const) {
		if (m[key] !== undefined) Object.assign(server, { [key]: m[key] });
	}
	const c = m.cotenant;
	return runModel(server, m.processes, {
		jitterSeed: m.seed + 1,
		untilMs: 4 * 3_600_000,
		...(c && {
			cotenantPerWindow: c.rate,
			cotenantFirstLateMs: 2 + ((m.seed * 7) % 19),
			cotenantStartMs: c.startMs,
			...(c.kind === 'bursting' && { cotenantBurstAtMs: c.phaseMs, cotenantStartup: true }),
			...(c.kind === 'random' && { cotenantRandomSeed: m.seed + 2 }),
		}),
	});
}

/**
 * The family's property for a member's run. `bound` is the node's minimum: the windows it needs
 * (its fair share beside the co-tenant, the limit alone or among its processes), whole windows
 * apart, and its last window's requests at one round trip each.
 */
export function judge(m: Member, res: ModelResult): Verdict {
	const why: string[] = [];
	// Back to back, a request takes at most a round trip with the most jitter each way.
	const rtt = 2 * (m.latencyMs + m.jitterMs);
	const nodeLog = res.log.filter((e) => e.client >= 0);
	// A process's first request, sent before it knows anything, may find the window spent: not counted.
	const firsts = new Set(m.processes.map((_, i) => nodeLog.find((e) => e.client === i)));
	const refused = nodeLog.filter((e) => !e.ok && !firsts.has(e)).length;
	const refusedShare = refused / Math.max(1, nodeLog.length);
	const lost = res.clients.reduce((a, c) => a + c.lost, 0);
	const done = res.clients.reduce((a, c) => a + c.done, 0);
	const total = m.processes.reduce((a, p) => a + p.items, 0);
	if (lost > 0) why.push(`${lost} lost`);
	if (done + lost < total) why.push(`${total - done - lost} never done`);
	const first = Math.min(...res.clients.map((c) => c.first));
	const last = Math.max(...res.clients.map((c) => c.last));
	const elapsed = last - first;
	// Beside a co-tenant there from the start, the node's fair share is what it leaves.
	const sharing = m.family === 'F1' || m.family === 'F5';
	const perWindow = m.limit - (sharing ? (m.cotenant?.rate ?? 0) : 0);
	// A co-tenant on its own clock may land one request more than its rate in a server window:
	// that window's fair share for the node is one less. The windows the node needs, from its first.
	const theirs = acceptedPerWindow(res.log.filter((e) => e.client === -1));
	const from = Math.min(...nodeLog.map((e) => e.window).filter((w) => w >= 0));
	const part = (i: number) =>
		sharing ? m.limit - Math.max(m.cotenant?.rate ?? 0, theirs.get(from + i) ?? 0) : perWindow;
	let [windows, before] = [1, 0];
	while (before + part(windows - 1) < total) before += part(windows++ - 1);
	const lastWindow = total - before;
	// How far apart the processes start: the last one's first request comes that much later.
	const starts =
		Math.max(...m.processes.map((p) => p.startMs)) - Math.min(...m.processes.map((p) => p.startMs));
	const minimum = (windows - 1) * m.windowMs;
	// The node's processes on one key (F3, F5 beside a co-tenant) tell each other from another
	// client only by the headers, and take each other for one: one window later than the minimum
	// where the work needs more than one, and by the first window's end where it fits one.
	const processes = m.processes.length > 1;
	const slack = m.family === 'F4' ? 1.03 : processes ? 1 : 1.1;
	// Beside others, a twentieth of the window more: a co-tenant that came late, a process that ran out.
	const beside = m.family === 'F4' ? 0 : m.windowMs / 20;
	const tail = lastWindow * rtt + (windows === 1 ? starts : 0) + beside;
	let bound = slack * minimum + tail + (processes && windows > 1 ? m.windowMs : 0);
	if (processes && windows === 1) bound = m.windowMs;
	// Refused first contact: the announced reset is waited out before anything goes, and probed (in
	// whole seconds it may lie a second later than it reads; on a slow clock the pacer cannot learn,
	// as many seconds earlier).
	const whole = m.reset !== undefined && m.reset !== 'exact' && m.reset !== 'epoch-ms';
	const unlearned = (m.clockBehindS ?? 0) > 0 && m.date !== 'server';
	const off = (whole ? 1 : 0) + (unlearned ? 1 : 0);
	if (m.spentUntilMs) bound += m.spentUntilMs + 1000 * (1 + off + (m.clockBehindS ?? 0));
	const timeRatio = elapsed / Math.max(1, bound);
	let [refusedAfter, refusedBeyond, unseeable] = [0, 0, 0];
	const its = res.log.filter((e) => e.client === -1);
	if (m.cotenant) {
		// Per server window: where it began, and when the node's last request reached it.
		const began = new Map<number, number>();
		const lastOfNode = new Map<number, number>();
		for (const e of res.log) {
			if (!began.has(e.window)) began.set(e.window, e.at);
			if (e.client >= 0) lastOfNode.set(e.window, e.at);
		}
		const atLook = (w: number) => {
			const look = (began.get(w) as number) + m.windowMs - m.windowMs / 120;
			return (lastOfNode.get(w) ?? -Infinity) >= look;
		};
		const startWindow = its.length ? its[0].window : 0;
		const allowed = m.family !== 'F2' ? 0 : m.cotenant.kind === 'bursting' ? 1 : 0;
		// A co-tenant on its own clock drifts against windows that start at the first request after
		// the last one ended, and may send more than its rate in one: only its first `rate` there
		// are within its rate.
		const sent = new Map<number, number>();
		for (const e of its) {
			const rank = sent.get(e.window) ?? 0;
			sent.set(e.window, rank + 1);
			if (e.ok || e.window <= startWindow + allowed) continue;
			if (rank >= m.cotenant.rate) refusedBeyond++;
			else if (atLook(e.window) && e.at > (lastOfNode.get(e.window) as number)) unseeable++;
			else refusedAfter++;
		}
		const beyond = refusedBeyond ? ` (${refusedBeyond} more beyond its rate)` : '';
		if (refusedAfter > 0)
			why.push(
				`co-tenant refused ${refusedAfter} after its window ${startWindow + allowed}${beyond}`,
			);
	}
	if (m.family === 'F2') {
		// Alone meanwhile: each whole window before the co-tenant's holds the limit (the look's slot aside).
		const startWindow = its.length ? its[0].window : Infinity;
		const counts = acceptedPerWindow(nodeLog);
		const lastNodeWindow = Math.max(...counts.keys());
		for (const [w, n] of counts) {
			if (w < startWindow && w < lastNodeWindow && n < m.limit - 1) {
				why.push(`alone, window ${w} held ${n}`);
			}
		}
	}
	// F2 bounds the node's time only by finishing: it shares the key from the join on.
	if (m.family !== 'F2' && timeRatio > 1) {
		const over = `${(elapsed / 1000).toFixed(1)} s over the bound ${(bound / 1000).toFixed(1)} s`;
		why.push(`${over}: ${whereTimeWent(nodeLog, windows, perWindow)}`);
	}
	// At 30 per 6 s a reset written in whole seconds is a sixth of the window: 6 % there.
	const most = m.windowMs < 60_000 ? 0.06 : 0.02;
	if ((m.family === 'F3' || m.family === 'F5') && refusedShare > most) {
		why.push(`${(100 * refusedShare).toFixed(1)} % answered 429`);
	}
	if (m.family === 'F4' && m.spentUntilMs) {
		// Refused first contact: one request per announced reset (one more for a reset in whole
		// seconds or a slow clock the pacer cannot learn).
		const before = nodeLog.findIndex((e) => e.ok);
		const allowed = 1 + off;
		if (before > allowed) why.push(`${before} refused before the first answer`);
	}
	return {
		ok: why.length === 0,
		timeRatio: m.family === 'F2' ? 0 : timeRatio,
		ofMinimum: elapsed / Math.max(1, minimum + tail + (m.spentUntilMs ?? 0)),
		refusedAfter,
		refusedBeyond,
		unseeable,
		refusedShare,
		lost,
		why,
	};
}

/**
 * Where a run over its bound lost the time: the first of the node's windows (the server's, from
 * the one of its first request) that held less than its part while more were needed, or, in as
 * many windows as it needed, how late in its last window its last request was answered.
 */
export function whereTimeWent(
	nodeLog: ModelResult['log'],
	windows: number,
	perWindow: number,
): string {
	const ok = nodeLog.filter((e) => e.ok && e.window >= 0);
	const counts = acceptedPerWindow(ok);
	const used = [...counts.keys()].sort((a, b) => a - b);
	if (used.length > windows) {
		// The window whose shortfall made one more necessary: the first short of its part (the
		// margin of two kept for the others aside); its first window may be cut by its start.
		const short = used.slice(0, -1).find((w) => (counts.get(w) ?? 0) < perWindow - 2) ?? used[0];
		const which = short === used[0] ? 'its first window' : 'a later window';
		return `${which} held ${counts.get(short)} of ${perWindow}, one window more`;
	}
	const last = used[used.length - 1];
	const inLast = ok.filter((e) => e.window === last);
	const begun = Math.min(...nodeLog.filter((e) => e.window === last).map((e) => e.at));
	const late = (inLast[inLast.length - 1].at - begun) / 1000;
	return `its last window's last answer ${late.toFixed(1)} s after its first`;
}

/** Accepted requests of a log in each of the server's windows that has any. */
function acceptedPerWindow(log: ModelResult['log']): Map<number, number> {
	const counts = new Map<number, number>();
	for (const e of log)
		if (e.ok && e.window >= 0) counts.set(e.window, (counts.get(e.window) ?? 0) + 1);
	return counts;
}

/** How far a verdict is from failing (higher is worse): the worst member is the highest. */
export function badness(v: Verdict): number {
	return (
		(v.ok ? 0 : 1000) + 100 * v.refusedAfter + v.lost * 100 + 50 * v.refusedShare + v.timeRatio
	);
}

/**
 * Sweeps `count` members of a family from `seed` on: the failures, the worst member, and per class
 * (`classOf`) how many were drawn and how many failed.
 */
export function sweep(family: Family, seed: number, count: number, short = false) {
	const failures: Array<{ member: Member; verdict: Verdict }> = [];
	const classes = new Map<string, { drawn: number; failed: number }>();
	let worst: { member: Member; verdict: Verdict } | undefined;
	let beyond = 0;
	const unseeable: number[] = [];
	for (let i = 0; i < count; i++) {
		const member = draw(family, seed + i, short);
		const verdict = judge(member, runMember(member));
		if (verdict.refusedBeyond > 0) beyond++;
		if (verdict.unseeable > 0) unseeable.push(member.seed);
		const name = classOf(member);
		const c = classes.get(name) ?? { drawn: 0, failed: 0 };
		classes.set(name, { drawn: c.drawn + 1, failed: c.failed + (verdict.ok ? 0 : 1) });
		if (!verdict.ok) failures.push({ member, verdict });
		if (!worst || badness(verdict) > badness(worst.verdict)) worst = { member, verdict };
	}
	return {
		failures,
		classes,
		beyond,
		unseeable,
		worst: worst as { member: Member; verdict: Verdict },
	};
}

/**
 * The class a member belongs to, for the sweep's count of where a property fails: the co-tenant's
 * kind, when it sends all at once and how fast (F1), how it joins (F2), how many windows the
 * processes need and how they start (F3), the reset and whether the key was spent (F4), the
 * co-tenant's kind and rate and how the processes start (F5).
 */
export function classOf(m: Member): string {
	const c = m.cotenant;
	if (m.family === 'F1' && c) {
		const second = (c.phaseMs ?? 0) / 1000;
		const when =
			second === 0 ? 'its first second' : second >= 59 ? 'its last second' : 'another second';
		const at = c.kind === 'bursting' ? ` in ${when}` : '';
		const rate = c.rate <= 40 ? '10 to 40' : c.rate <= 60 ? '41 to 60' : '61 to 80';
		return `${c.kind}${at}, ${rate} per window`;
	}
	if (m.family === 'F2' && c) {
		const first = c.startMs < m.windowMs ? "the node's first window" : 'a later window';
		return `${c.kind}, joining in ${first}`;
	}
	if (m.family === 'F3') {
		const total = m.processes.reduce((a, p) => a + p.items, 0);
		const windows = Math.ceil(total / m.limit);
		const together = m.processes.every((p) => p.startMs === 0) ? 'together' : 'apart';
		return `${windows === 1 ? 'one window' : `${windows} windows`}, started ${together}`;
	}
	if (m.family === 'F5' && c) {
		const rate = c.rate <= 30 ? '10 to 30' : '31 to 60';
		const together = m.processes.every((p) => p.startMs === m.processes[0].startMs);
		return `${c.kind}, ${rate} per window, processes started ${together ? 'together' : 'apart'}`;
	}
	return `reset ${m.reset}${m.spentUntilMs ? ', the key spent before the run' : ''}`;
}

/** A member in one line, to replay it. */
export function describeMember(m: Member): string {
	const c = m.cotenant;
	const procs = m.processes.map((p) => `${p.items}@${(p.startMs / 1000).toFixed(1)}s`).join(' ');
	const co = c
		? ` co-tenant ${c.rate}/window ${c.kind}${c.kind === 'bursting' ? ` at ${(c.phaseMs ?? 0) / 1000} s` : ''} from ${(c.startMs / 1000).toFixed(1)} s`
		: '';
	const reset = m.reset
		? ` reset ${m.reset}${m.clockBehindS ? ` ${m.clockBehindS} s behind` : ''}`
		: '';
	const spent = m.spentUntilMs ? ` key spent until ${m.spentUntilMs} ms` : '';
	return `${m.family} seed ${m.seed}: ${m.limit} per ${m.windowMs / 1000} s, ${m.latencyMs} ms + ${m.jitterMs} ms; node ${procs}${co}${reset}${spent}`;
}
