/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * Another client of the benchmark's key (test/bench/cotenant.ts in a process of its own) and what a
 * run's request log says of it and of the node, window by window: shared by the sections that run
 * the node beside it (cotenant, limiters, families).
 */
import { spawn } from 'child_process';
import path from 'path';
import { ROOT } from '../e2e/n8n';
import type { Job } from './cotenant';
import type { Log } from './runner';
import { BASE, linesOf, requestLog } from './runner';

/** What test/bench/cotenant.ts does (see there), on the benchmark's sandbox and key. */
export type CoTenantJob = Omit<Job, 'baseUrl' | 'apiKey'>;

/** What the co-tenant process reports when stopped: `at` on its own clock. */
export interface CoTenantReport {
	sent: number;
	refused: number;
	requests: Array<{ at: number; status: number }>;
}

/**
 * Another client of the key (the company's backend) in a process of its own (test/bench/cotenant.ts,
 * its own clock and timers), ready to start: `use` gets `go()`, which starts its schedule, and
 * `stop()`, which ends it and resolves to its report. The process is killed when `use` ends, however
 * it ends.
 */
export async function withCoTenant<T>(
	apiKey: string,
	job: CoTenantJob,
	use: (tenant: { go(): void; stop(): Promise<CoTenantReport> }) => Promise<T>,
): Promise<T> {
	const child = spawn(
		process.execPath,
		[
			require.resolve('ts-node/dist/bin.js'),
			'--transpile-only',
			path.join(ROOT, 'test/bench/cotenant.ts'),
		],
		{
			env: { ...process.env, BENCH_JOB: JSON.stringify({ baseUrl: BASE, apiKey, ...job }) },
			stdio: ['pipe', 'pipe', 'inherit'],
		},
	);
	// A line for a process already gone (a start signal timed after a failed run) is dropped.
	child.stdin.on('error', () => undefined);
	const lines = linesOf(child);
	try {
		if ((await lines.next()) !== 'ready') throw new Error('co-tenant not ready');
		return await use({
			go: () => {
				if (child.exitCode === null) child.stdin.write('go\n');
			},
			stop: async () => {
				child.stdin.write('stop\n');
				return JSON.parse(await lines.next()) as CoTenantReport;
			},
		});
	} finally {
		child.kill();
	}
}

export const isCoTenant = (r: Log[number]) => r.method === 'GET' && r.path === '/agents';
export const isNodeUpsert = (r: Log[number]) => r.method === 'POST' && r.path === '/customers';

export interface Tally {
	/** Let through by the rate limit (any answer but a 429): a slot taken. */
	accepted: number;
	/** Answered 429. */
	refused: number;
}

/** One of the sandbox's fixed windows on the key, with what the co-tenant and the node sent in it. */
export interface KeyWindow {
	start: number;
	cotenant: Tally;
	node: Tally;
	/**
	 * Requests in it that the sandbox counted in another window (its `windowStart` more than a
	 * second away): `at` is logged after the rate check, a millisecond or so later, so a request
	 * right at a reset may be placed one window off.
	 */
	misplaced: number;
}

/**
 * The sandbox's fixed windows on the key, rebuilt from its request log: every request on the key
 * (a refused one too) counts; a window starts at the first request at or after the previous
 * window's start + `windowMs`. Requests that named no key (refused before the rate limit) are left
 * out.
 */
export function keyWindows(log: Log, windowMs: number): KeyWindow[] {
	const windows: KeyWindow[] = [];
	const onKey = log.filter((r) => r.keyId !== undefined).sort((a, b) => a.seq - b.seq);
	for (const r of onKey) {
		let w = windows[windows.length - 1];
		if (!w || r.at >= w.start + windowMs) {
			w = {
				start: r.at,
				cotenant: { accepted: 0, refused: 0 },
				node: { accepted: 0, refused: 0 },
				misplaced: 0,
			};
			windows.push(w);
		}
		if (r.windowStart !== undefined && Math.abs(r.windowStart - w.start) > 1000) w.misplaced++;
		const tally = isCoTenant(r) ? w.cotenant : isNodeUpsert(r) ? w.node : undefined;
		if (!tally || r.status === 0) continue;
		if (r.status === 429) tally.refused++;
		else tally.accepted++;
	}
	return windows;
}

/**
 * The co-tenant's side of the windows: the window where it first showed itself (the first with one
 * of its requests accepted; -1 if none was), what was refused in it, and from the next one on.
 */
export function coTenantSide(windows: KeyWindow[]) {
	const shown = windows.findIndex((w) => w.cotenant.accepted > 0);
	const refusedIn = (from: number, to = windows.length) =>
		windows.slice(from, to).reduce((a, w) => a + w.cotenant.refused, 0);
	return {
		cotenant_shown_in_window: shown,
		cotenant_refused_when_shown: shown < 0 ? 0 : refusedIn(shown, shown + 1),
		cotenant_refused_after_shown: shown < 0 ? refusedIn(0) : refusedIn(shown + 1),
		cotenant_refused_per_window: windows.map((w) => w.cotenant.refused),
		node_accepted_per_window: windows.map((w) => w.node.accepted),
	};
}

/** The node and the co-tenant in a run's request log: the figures every co-tenant row reports. */
export async function besideFigures(windowMs: number, report: CoTenantReport) {
	const log = await requestLog();
	const windows = keyWindows(log, windowMs);
	const upserts = log.filter(isNodeUpsert);
	const ok = upserts.filter((r) => r.status > 0 && r.status < 400);
	return {
		log,
		windows,
		figures: {
			seconds: ok.length ? (ok[ok.length - 1].at - ok[0].at) / 1000 : 0,
			cotenant_sent: report.sent,
			cotenant_refused: report.refused,
			...coTenantSide(windows),
			node_429: upserts.filter((r) => r.status === 429).length,
			requests_in_another_server_window: windows.reduce((a, w) => a + w.misplaced, 0),
		},
	};
}
