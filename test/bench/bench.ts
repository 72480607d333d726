/**
 * `npm run bench`: the node against n8n's HTTP Request node doing the same calls, in one run,
 * through n8n's execution engine, against the sandbox in its own process (so memory figures are
 * the node's). Prints a table and writes test/bench/results/latest.json. Figures, not assertions.
 */
// First: the home folder n8n's packages write in is the run's own (see privateHome.ts).
import './privateHome';
import type { ChildProcessByStdio } from 'child_process';
import { spawn } from 'child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import os from 'os';
import path from 'path';
import type { Readable, Writable } from 'stream';

import { PackageDirectoryLoader } from 'n8n-core';
import type {
	IDataObject,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';

import { endDescendants } from '../dev/processes';
import { UPSERTS } from '../e2e/listWorkflows';
import { ensureN8n, N8N_VERSION, ROOT } from '../e2e/n8n';
import { startQueueStack } from '../e2e/queue';
import { triggerWebhook } from '../e2e/rest';
import { importCredential, importWorkflows, publishWorkflow, setupOwner } from '../e2e/setup';
import { benchMember, describeMember, judge } from '../harness/families';
import { createTrigger, loadPackage, runNode } from '../harness/n8n';
import type { ModelResult } from '../harness/rateModel';
import { perFullWindow } from '../harness/windows';
import type { Job } from './cotenant';
import { measuredUpload } from './restock';

/** The sandbox's port (BENCH_PORT: another, to run beside a running benchmark). */
const PORT = Number(process.env.BENCH_PORT ?? 4090);
const BASE = `http://127.0.0.1:${PORT}`;
const TOKEN = 'bench-control-token';
/** The API's 120 requests per 60 s, ten times faster: the same requests-per-window ratio. */
const LIMIT = 120;
const WINDOW_MS = 6000;

type Json = Record<string, unknown>;

async function control(method: string, route: string, body?: unknown): Promise<Json> {
	const response = await fetch(`${BASE}/__sandbox${route}`, {
		method,
		headers: { 'X-Sandbox-Token': TOKEN, 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!response.ok)
		throw new Error(`control ${method} ${route}: ${response.status} ${await response.text()}`);
	return (await response.json()) as Json;
}

async function startSandboxProcess() {
	const child = spawn(
		process.execPath,
		[
			require.resolve('ts-node/dist/bin.js'),
			'--transpile-only',
			path.join(ROOT, 'test/sandbox/cli.ts'),
		],
		{
			env: { ...process.env, SANDBOX_PORT: String(PORT), SANDBOX_CONTROL_TOKEN: TOKEN },
			stdio: 'ignore',
		},
	);
	for (let i = 0; i < 200; i++) {
		try {
			await control('GET', '/config');
			return child;
		} catch {
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
	}
	throw new Error('The sandbox did not start');
}

async function fresh(rateLimit: Json): Promise<string> {
	await control('POST', '/reset', { seed: 'demo' });
	await control('POST', '/config', { rateLimit });
	return String((await control('POST', '/keys', {})).key);
}

type Log = Array<{
	seq: number;
	at: number;
	status: number;
	method: string;
	path: string;
	keyId?: string;
	windowStart?: number;
}>;
const requestLog = async () => (await control('GET', '/requests')).requests as Log;
const stats = async () =>
	(await control('GET', '/stats')) as Json & {
		customers: number;
		requests: number;
		messagesSent: number;
		customersWithMoreThanOneMessage: number;
		byStatus: Record<string, number>;
	};

/** n8n's own HTTP Request node, from the n8n installed for the end-to-end tests. */
async function nodeTypesWithHttpRequest(): Promise<INodeTypes> {
	await ensureN8n(N8N_VERSION);
	const loader = new PackageDirectoryLoader(
		path.join(ROOT, '.cache', `n8n-${N8N_VERSION}`, 'node_modules', 'n8n-nodes-base'),
		[],
		['n8n-nodes-base.httpRequest'],
	);
	await loader.loadAll();
	const ours = (await loadPackage()).nodeTypes;
	const http = loader.nodeTypes.httpRequest.type as IVersionedNodeType;
	const get = (name: string, version?: number): INodeType =>
		name === 'n8n-nodes-base.httpRequest'
			? http.getNodeType(version)
			: ours.getByNameAndVersion(name, version);
	return {
		getByName: (name) => (name === 'n8n-nodes-base.httpRequest' ? http : ours.getByName(name)),
		getByNameAndVersion: get,
		getKnownTypes: () => ({}),
	};
}

function httpNode(parameters: INodeParameters, settings: Json = {}) {
	return {
		node: {
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			name: 'HTTP Request',
			...settings,
		},
		parameters: {
			authentication: 'predefinedCredentialType',
			nodeCredentialType: 'messagingCrmApi',
			options: {},
			...parameters,
		},
	};
}

const items = (n: number, make: (i: number) => IDataObject): INodeExecutionData[] =>
	Array.from({ length: n }, (_, i) => ({ json: make(i) }));

/** Accepted requests per full rate window, as a share of the limit (the last, partial window left out). */
function windowShare(log: Log, windowMs = WINDOW_MS): number {
	return perFullWindow(log, windowMs) / LIMIT;
}

const results: Json = {};
const rows: string[][] = [];
function row(...cells: Array<string | number>) {
	rows.push(cells.map(String));
}

/** Every benchmark runs this many times (BENCH_RUNS, at least 3 for the figures of docs/benchmarks.md). */
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));

interface Spread {
	min: number;
	median: number;
	max: number;
}

function spread(values: number[]): Spread {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
	return { min: sorted[0], median, max: sorted[sorted.length - 1] };
}

/** A run's figures: numbers, and lists (one number per rate window) kept with the run only. */
type Figures = Record<string, number | number[]>;
type Spreads = Record<string, Spread>;

/**
 * BENCH_ROWS=<text>: in the sections cotenant, cotenant60, eight and limiters, only the rows whose
 * name (as latest.json keys them in their section) contains the text run; the others are skipped.
 */
const wanted = (variant: string) =>
	!process.env.BENCH_ROWS || variant.includes(process.env.BENCH_ROWS);

/**
 * Runs `once` RUNS times; each number figure as min, median and max over the runs (all runs kept
 * too, with their lists).
 */
async function repeated(
	section: string,
	variant: string,
	once: (run: number) => Promise<Figures>,
): Promise<Spreads> {
	const runs: Figures[] = [];
	for (let run = 0; run < RUNS; run++) {
		runs.push(await once(run));
		// BENCH_LOG=<dir>: each run's request log as the sandbox kept it, to read a figure window by
		// window (key ids, not keys; the directory is the caller's, kept).
		const logDir = process.env.BENCH_LOG;
		if (logDir) {
			mkdirSync(logDir, { recursive: true });
			const file = `${section}-${variant}-${run}.json`.replace(/[^\w.-]+/g, '_');
			writeFileSync(path.join(logDir, file), JSON.stringify(await requestLog()));
		}
	}
	const out: Spreads = {};
	for (const key of Object.keys(runs[0])) {
		const values = runs.map((r) => r[key]);
		if (values.every((v): v is number => typeof v === 'number')) out[key] = spread(values);
	}
	const sectionResults = (results[section] ??= {}) as Json;
	sectionResults[variant] = { ...out, runs };
	return out;
}

/** "49.0 (48.7–49.3)": the median, then min–max when the runs differ. */
function show(s: Spread, digits = 1, unit = ''): string {
	const f = (n: number) => `${n.toFixed(digits)}${unit}`;
	return s.min === s.max ? f(s.median) : `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
}

const percent = (s: Spread) =>
	show({ min: s.min * 100, median: s.median * 100, max: s.max * 100 }, 1, ' %');

const UPSERT = {
	resource: 'customer',
	operation: 'upsert',
	phone: '={{ $json.phone }}',
	additionalFields: { fullName: '={{ $json.name }}' },
};

const people = (n: number, prefix: string) =>
	items(n, (i) => ({ phone: `+1555${prefix}${String(100000 + i)}`, name: `Bench ${i}` }));

const failedOf = (result: Awaited<ReturnType<typeof runNode>>, count: number) =>
	result.error ? count : result.items.filter((i) => i.json.error).length;

/** Create or Update of `count` people, one at a time, through n8n's engine, with `apiKey`. */
const upsertPeople = (apiKey: string, count: number, prefix: string) =>
	runNode({
		parameters: UPSERT,
		credentials: { baseUrl: BASE, apiKey },
		items: people(count, prefix),
		continueOnFail: true,
	});

/** The node's upserts in the log: seconds from the first accepted to the last, and the 429 share. */
async function upsertFigures() {
	const log = (await requestLog()).filter((r) => r.method === 'POST');
	const ok = log.filter((r) => r.status < 400);
	const seconds = ok.length ? (ok[ok.length - 1].at - ok[0].at) / 1000 : 0;
	const share_429 = log.filter((r) => r.status === 429).length / Math.max(1, log.length);
	return { log, seconds, share_429 };
}

/** A fresh key under 30 requests per 6 s and no Retry-After, as `variant` writes its headers. */
const strictWindow = (variant: Json) =>
	fresh({ enabled: true, limit: 30, windowMs: WINDOW_MS, retryAfter: false, ...variant });

async function bulkUpsert(types: INodeTypes) {
	const input = items(1000, (i) => ({ phone: `+1555${String(1000000 + i)}`, name: `Bulk ${i}` }));
	const run = async (label: string, go: (apiKey: string) => ReturnType<typeof runNode>) => {
		const s = await repeated('bulkUpsert', label, async () => {
			const apiKey = await fresh({ enabled: true, limit: LIMIT, windowMs: WINDOW_MS });
			const started = Date.now();
			const result = await go(apiKey);
			const seconds = (Date.now() - started) / 1000;
			const log = await requestLog();
			const st = await stats();
			const created = st.customers;
			return {
				seconds,
				requests: log.length,
				// Over full windows only; a run that stopped in its first window has none to show.
				share_of_limit: windowShare(log),
				responses_429: st.byStatus['429'] ?? 0,
				failed_items: result.error
					? 1000 - created
					: result.items.filter((i) => i.json.error).length,
				duplicate_customers: Math.max(0, created - (st.distinctPhones as number)),
			};
		});
		row(
			'Bulk upsert 1,000',
			label,
			`${percent(s.share_of_limit)} of limit`,
			`${show(s.responses_429, 0)} answered 429`,
			`${show(s.failed_items, 0)} failed`,
			`${show(s.duplicate_customers, 0)} duplicates`,
			`${show(s.seconds, 1, ' s')}`,
		);
	};
	await run('Messaging CRM node', (apiKey) =>
		runNode({
			parameters: UPSERT,
			credentials: { baseUrl: BASE, apiKey },
			items: input,
			continueOnFail: true,
		}),
	);
	const body = {
		method: 'POST',
		url: `${BASE}/customers`,
		sendBody: true,
		specifyBody: 'json',
		jsonBody: '={{ JSON.stringify({ phone: $json.phone, full_name: $json.name }) }}',
	};
	await run('HTTP Request, defaults', (apiKey) =>
		runNode({
			...httpNode(body),
			credentials: { baseUrl: BASE, apiKey },
			items: input,
			nodeTypes: types,
		}),
	);
	const retry = httpNode(body, { retryOnFail: true, maxTries: 5, waitBetweenTries: 5000 });
	await run('HTTP Request, Retry On Fail max', (apiKey) =>
		runNode({ ...retry, credentials: { baseUrl: BASE, apiKey }, items: input, nodeTypes: types }),
	);
}

/** What test/bench/cotenant.ts does (see there), on the benchmark's sandbox and key. */
type CoTenantJob = Omit<Job, 'baseUrl' | 'apiKey'>;

/** What the co-tenant process reports when stopped: `at` on its own clock. */
interface CoTenantReport {
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
async function withCoTenant<T>(
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const isCoTenant = (r: Log[number]) => r.method === 'GET' && r.path === '/agents';
const isNodeUpsert = (r: Log[number]) => r.method === 'POST' && r.path === '/customers';

interface Tally {
	/** Let through by the rate limit (any answer but a 429): a slot taken. */
	accepted: number;
	/** Answered 429. */
	refused: number;
}

/** One of the sandbox's fixed windows on the key, with what the co-tenant and the node sent in it. */
interface KeyWindow {
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
function keyWindows(log: Log, windowMs: number): KeyWindow[] {
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
function coTenantSide(windows: KeyWindow[]) {
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
async function besideFigures(windowMs: number, report: CoTenantReport) {
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

/** The figures of the runs of a row, as `repeated` kept them. */
const runsOf = (section: string, variant: string) =>
	((results[section] as Json)[variant] as Json).runs as Figures[];

/** A list figure of every run: "80 80 80 60", runs apart by " | ". */
const lists = (section: string, variant: string, key: string) =>
	runsOf(section, variant)
		.map((r) => (r[key] as number[]).join(' '))
		.join(' | ');

/**
 * Another client of the same key (the company's backend, another workflow, another worker) spends
 * 40 (or 80) requests per window, evenly, from its own process, started with the node, while the
 * node upserts 300 customers: how many of the co-tenant's requests are refused, and how much of
 * what it leaves the node takes.
 */
async function coTenant() {
	for (const perWindow of [40, 80]) {
		const variant = `${perWindow} per window`;
		if (!wanted(variant)) continue;
		const s = await repeated('coTenant', variant, async () => {
			const apiKey = await fresh({ enabled: true, limit: LIMIT, windowMs: WINDOW_MS });
			const job: CoTenantJob = { mode: 'spread', perWindow, windowMs: WINDOW_MS };
			const { result, seconds, report } = await withCoTenant(apiKey, job, async (tenant) => {
				tenant.go();
				const started = Date.now();
				const result = await upsertPeople(apiKey, 300, '2');
				const seconds = (Date.now() - started) / 1000;
				return { result, seconds, report: await tenant.stop() };
			});
			const beside = await besideFigures(WINDOW_MS, report);
			const log = beside.log.filter(isNodeUpsert);
			const nodeShare = windowShare(log) * LIMIT;
			return {
				seconds,
				cotenant_requests: report.sent,
				cotenant_refused_429: report.refused,
				cotenant_refused_share: report.refused / Math.max(1, report.sent),
				cotenant_refused_after_shown: beside.figures.cotenant_refused_after_shown,
				node_per_full_window: nodeShare,
				node_share_of_what_is_left: nodeShare / (LIMIT - perWindow),
				node_429_on_the_wire: log.filter((r) => r.status === 429).length,
				failed_items: failedOf(result, 300),
			};
		});
		row(
			`Co-tenant ${perWindow}/window + 300 upserts`,
			'Messaging CRM node',
			`co-tenant ${percent(s.cotenant_refused_share)} refused`,
			`node ${show(s.node_per_full_window)}/window (${percent(s.node_share_of_what_is_left)} of the rest)`,
			`${show(s.failed_items, 0)} failed`,
			`${show(s.seconds, 1, ' s')}`,
		);
	}
}

/**
 * Beside a co-tenant at the API's own 120 requests per 60 s (the company's backend, in a process
 * of its own, 40 requests per window), the node upserts 300 customers. Whether the node, pacing
 * itself from the API's headers, takes slots the co-tenant needs once the co-tenant has shown
 * itself (a request of its accepted): the co-tenant's refusals window by window, the node's
 * accepted requests window by window (the sandbox's windows, rebuilt from its log), and the node's
 * first to last accepted upsert against the fair-share minimum (180 s: 300 at 80 per window).
 * Rows: a co-tenant spreading its requests from 20 s before the node; a cron job (one request at
 * its start, 40 at once each minute) whose minute lands near the start, the middle or the end of
 * the server's window (the node's requests open the later windows), the node 1 s after it; one
 * spreading that joins 30 s into the node's run; one that stops 80 s into the node's run, and how
 * soon the node takes the whole window then.
 */
async function coTenant60() {
	const windowMs = 60_000;
	const rows60: Array<{
		variant: string;
		job: CoTenantJob;
		/** When the node starts, in ms after the co-tenant (negative: before it). */
		nodeAfterMs: number;
	}> = [
		{
			variant: 'spread, from 20 s before the node',
			job: { mode: 'spread', perWindow: 40, windowMs },
			nodeAfterMs: 20_000,
		},
		...[2, 30, 57].map((phase) => ({
			variant: `burst at ${phase} s each minute, one request at its start, the node 1 s after`,
			job: {
				mode: 'burst' as const,
				perWindow: 40,
				windowMs,
				phaseMs: phase * 1000,
				startup: true,
			},
			nodeAfterMs: 1000,
		})),
		{
			variant: 'spread, joining 30 s after the node',
			job: { mode: 'spread', perWindow: 40, windowMs },
			nodeAfterMs: -30_000,
		},
		{
			variant: 'spread, from 20 s before the node to 80 s after its start',
			job: { mode: 'spread', perWindow: 40, windowMs, stopAfterMs: 100_000 },
			nodeAfterMs: 20_000,
		},
	];
	for (const { variant, job, nodeAfterMs } of rows60) {
		if (!wanted(variant)) continue;
		const stops = job.stopAfterMs !== undefined;
		const s = await repeated('coTenant60', variant, async (run) => {
			const apiKey = await fresh({ enabled: true, limit: LIMIT, windowMs });
			const { result, report } = await withCoTenant(apiKey, job, async (tenant) => {
				let joined: Promise<void> = Promise.resolve();
				if (nodeAfterMs >= 0) {
					tenant.go();
					await sleep(nodeAfterMs);
				} else joined = sleep(-nodeAfterMs).then(() => tenant.go());
				// A co-tenant that stops: enough work for the node to show the windows after it.
				const result = await upsertPeople(apiKey, stops ? 500 : 300, `1${run}`);
				await joined;
				return { result, report: await tenant.stop() };
			});
			const { log, windows, figures } = await besideFigures(windowMs, report);
			const common = { ...figures, failed_items: failedOf(result, stops ? 500 : 300) };
			if (!stops) return { ...common, ratio: figures.seconds / 180 };
			// Windows counted from the one the co-tenant's last request fell in (0).
			const lastAt = log.filter(isCoTenant).pop()?.at ?? -Infinity;
			const stopIndex = Math.max(0, windows.filter((w) => w.start <= lastAt).length - 1);
			const whole = windows.findIndex((w, i) => i >= stopIndex && w.node.accepted >= LIMIT - 2);
			return {
				...common,
				cotenant_stop_window: stopIndex,
				node_whole_window_after_stop: whole < 0 ? -1 : whole - stopIndex,
			};
		});
		row(
			'Co-tenant 40/window at 120 per 60 s, 300 upserts',
			variant,
			stops
				? `${show(s.seconds, 1, ' s')}, node ≥ 118 in window ${show(s.node_whole_window_after_stop, 0)} after the stop`
				: `${show(s.seconds, 1, ' s')}, ${show(s.ratio, 3)}× the fair-share minimum (180 s)`,
			`co-tenant ${show(s.cotenant_sent, 0)} sent, ${show(s.cotenant_refused, 0)} refused, ${show(s.cotenant_refused_after_shown, 0)} after the window it showed itself in`,
			`co-tenant refused per window ${lists('coTenant60', variant, 'cotenant_refused_per_window')}`,
			`node per window ${lists('coTenant60', variant, 'node_accepted_per_window')}`,
			`${show(s.failed_items, 0)} failed`,
		);
	}
}

/** Seconds from the first to the last accepted upsert, and the physical minimum for `count`. */
function span(log: Log, count: number, limit: number, windowMs: number) {
	const ok = log.filter((r) => r.method === 'POST' && r.status < 400);
	const seconds = ok.length ? (ok[ok.length - 1].at - ok[0].at) / 1000 : 0;
	const minimum = (Math.floor((count - 1) / limit) * windowMs) / 1000;
	return { seconds, ratio: seconds / minimum };
}

/**
 * A server whose reset hint is early or rounded, with no Retry-After (30 per 6 s, 90 upserts):
 * what is lost, what answers 429 on the wire.
 */
async function skewedReset() {
	const variants: Array<[string, Json]> = [
		[
			'epoch reset 1 s behind, Date on the host clock',
			{ resetFormat: 'epoch', clockBehindSeconds: 1 },
		],
		[
			'epoch reset 2 s behind, Date on the host clock',
			{ resetFormat: 'epoch', clockBehindSeconds: 2 },
		],
		[
			'epoch reset 2 s behind, matching Date',
			{ resetFormat: 'epoch', clockBehindSeconds: 2, dateHeader: 'server' },
		],
		['truncated epoch reset, no Date', { resetFormat: 'epoch-floor', dateHeader: 'none' }],
		['seconds until reset, rounded down', { resetFormat: 'seconds-floor' }],
	];
	for (const [label, variant] of variants) {
		const s = await repeated('skewedReset', label, async () => {
			const apiKey = await strictWindow(variant);
			const result = await upsertPeople(apiKey, 90, '3');
			const log = await requestLog();
			return {
				failed_items: failedOf(result, 90),
				responses_429: log.filter((r) => r.status === 429).length,
				seconds: span(log, 90, 30, WINDOW_MS).seconds,
			};
		});
		row(
			'Skewed reset, 90 upserts, 30/6 s',
			label,
			`${show(s.failed_items, 0)} lost`,
			`${show(s.responses_429, 0)} answered 429`,
			'',
			'',
			`${show(s.seconds, 1, ' s')}`,
		);
	}
}

/** Alone on the key: the tail of a run is not spread (first to last request, against the minimum). */
async function loneTail() {
	const variants: Array<[string, number, number, number, string]> = [
		['60 s window, 120/60 s, 300 upserts', 120, 60_000, 300, 'seconds'],
		['6 s window, 30/6 s, 75 upserts', 30, WINDOW_MS, 75, 'seconds'],
		['6 s window, whole seconds rounded down', 30, WINDOW_MS, 75, 'seconds-floor'],
		['6 s window, whole seconds rounded up', 30, WINDOW_MS, 75, 'seconds-ceil'],
		['6 s window, epoch seconds', 30, WINDOW_MS, 75, 'epoch'],
	];
	for (const [label, limit, windowMs, count, resetFormat] of variants) {
		const s = await repeated('loneTail', label, async () => {
			const apiKey = await fresh({ enabled: true, limit, windowMs, resetFormat });
			const result = await runNode({
				parameters: UPSERT,
				credentials: { baseUrl: BASE, apiKey },
				items: people(count, '4'),
				continueOnFail: true,
			});
			const log = await requestLog();
			return { ...span(log, count, limit, windowMs), failed_items: failedOf(result, count) };
		});
		row(
			'Alone, first to last request',
			label,
			`${show(s.seconds, 1, ' s')}`,
			`${show(s.ratio, 3)}× the minimum`,
			`${show(s.failed_items, 0)} failed`,
			'',
			'',
		);
	}
}

/**
 * Limiters the API may be: first contact refused (the key spent before the run), a
 * reset in epoch milliseconds, a sliding log, and the tail of a shared run at the API's own 60 s
 * window (eight processes; beside a co-tenant). The first rows send no Retry-After; the shared-tail
 * rows send it, as the sandbox does by default.
 */
async function limiters() {
	const firstVariant = 'first contact refused, 5 per 4 s';
	if (wanted(firstVariant)) {
		const first = await repeated('limiters', firstVariant, async () => {
			const apiKey = await fresh({ enabled: true, limit: 5, windowMs: 4000, retryAfter: false });
			// Another client spends the key's window, as a second workflow or worker would.
			for (let i = 0; i < 5; i++)
				await fetch(`${BASE}/agents`, { headers: { Authorization: `Bearer ${apiKey}` } });
			const spentAt = (await requestLog())[0].at;
			const result = await upsertPeople(apiKey, 24, '6');
			const { log } = await upsertFigures();
			return {
				requests_before_the_reset: log.filter((r) => r.at < spentAt + 4000).length,
				responses_429: log.filter((r) => r.status === 429).length,
				failed_items: failedOf(result, 24),
			};
		});
		row(
			'First contact refused: key spent before the run, 24 upserts at 5 per 4 s',
			'Messaging CRM node',
			`${show(first.requests_before_the_reset, 0)} request(s) before the reset`,
			`${show(first.responses_429, 0)} answered 429`,
			`${show(first.failed_items, 0)} failed`,
		);
	}
	const alone: Array<[string, Json]> = [
		['Reset in epoch milliseconds', { resetFormat: 'epoch-ms' }],
		[
			'Sliding log, reset in whole seconds rounded down',
			{ limiter: 'sliding', resetFormat: 'seconds-floor' },
		],
		['Sliding log, reset to the millisecond', { limiter: 'sliding' }],
	];
	for (const [label, variant] of alone) {
		if (!wanted(label)) continue;
		const s = await repeated('limiters', label, async () => {
			const apiKey = await strictWindow(variant);
			const result = await upsertPeople(apiKey, 75, '7');
			const { seconds, share_429 } = await upsertFigures();
			return { seconds, ratio: seconds / 12, share_429, failed_items: failedOf(result, 75) };
		});
		row(
			`${label}, 75 upserts at 30 per 6 s`,
			'Messaging CRM node',
			`${show(s.seconds, 2, ' s')}, ${show(s.ratio, 3)}× the minimum (12 s)`,
			`${percent(s.share_429)} answered 429`,
			`${show(s.failed_items, 0)} failed`,
		);
	}
	const tailVariant = 'eight processes, 296 upserts at 120 per 60 s';
	if (wanted(tailVariant)) {
		const tail = await repeated('limiters', tailVariant, async (run) => {
			const apiKey = await fresh({ enabled: true, limit: 120, windowMs: 60_000 });
			const figures = await eightUpserting(apiKey, 37, `8${run}`);
			const { seconds, share_429 } = await upsertFigures();
			const failed_items = figures.reduce((a, f) => a + Number(f.failed), 0);
			return { seconds, ratio: seconds / 120, share_429, failed_items };
		});
		row(
			'Shared tail: eight processes, 296 upserts at 120 per 60 s',
			'Messaging CRM node',
			`${show(tail.seconds, 1, ' s')}, ${show(tail.ratio, 3)}× the minimum (120 s)`,
			`${percent(tail.share_429)} answered 429`,
			`${show(tail.failed_items, 0)} failed`,
		);
	}
	const besideVariant = 'co-tenant 40 per 60 s, 300 upserts';
	if (!wanted(besideVariant)) return;
	const beside = await repeated('limiters', besideVariant, async () => {
		const apiKey = await fresh({ enabled: true, limit: 120, windowMs: 60_000 });
		const job: CoTenantJob = { mode: 'spread', perWindow: 40, windowMs: 60_000 };
		const { result, report } = await withCoTenant(apiKey, job, async (tenant) => {
			tenant.go();
			const result = await upsertPeople(apiKey, 300, '9');
			return { result, report: await tenant.stop() };
		});
		const { figures } = await besideFigures(60_000, report);
		return {
			seconds: figures.seconds,
			ratio: figures.seconds / 180,
			cotenant_refused_share: report.refused / Math.max(1, report.sent),
			cotenant_refused_after_shown: figures.cotenant_refused_after_shown,
			failed_items: failedOf(result, 300),
		};
	});
	row(
		'Shared tail: co-tenant at 40 per 60 s, 300 upserts at 120 per 60 s',
		'Messaging CRM node',
		`${show(beside.seconds, 1, ' s')}, ${show(beside.ratio, 3)}× the fair-share minimum (180 s)`,
		`co-tenant ${percent(beside.cotenant_refused_share)} refused`,
		`${show(beside.failed_items, 0)} failed`,
	);
}

/** A child's stdout line by line: `next()` waits for the next line, and throws if the child exits first. */
function linesOf(child: ChildProcessByStdio<Writable, Readable, null>) {
	let buffer = '';
	const seen: string[] = [];
	const waiters: Array<() => void> = [];
	child.stdout.on('data', (chunk: Buffer) => {
		buffer += chunk.toString();
		const parts = buffer.split('\n');
		buffer = parts.pop() ?? '';
		seen.push(...parts.filter(Boolean));
		for (const w of waiters.splice(0)) w();
	});
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	return {
		async next(): Promise<string> {
			while (seen.length === 0) {
				const more = new Promise<void>((resolve) => waiters.push(resolve));
				if (
					(await Promise.race([more.then(() => 'more'), exited.then(() => 'exit')])) === 'exit' &&
					seen.length === 0
				)
					throw new Error('a benchmark child process exited early');
			}
			return seen.shift() as string;
		},
	};
}

/**
 * A fresh `ts-node test/bench/worker.ts` process per job, all started together once loaded (or
 * each its job's `startMs` after the others are; `onStart` is called then).
 */
async function workers(jobs: Json[], onStart?: () => void): Promise<Json[]> {
	const children = jobs.map((job) =>
		spawn(
			process.execPath,
			[
				'--expose-gc',
				require.resolve('ts-node/dist/bin.js'),
				'--transpile-only',
				path.join(ROOT, 'test/bench/worker.ts'),
			],
			{
				env: { ...process.env, BENCH_JOB: JSON.stringify(job) },
				stdio: ['pipe', 'pipe', 'inherit'],
			},
		),
	);
	const lines = children.map(linesOf);
	try {
		for (const l of lines) if ((await l.next()) !== 'ready') throw new Error('worker not ready');
		onStart?.();
		for (const [i, child] of children.entries()) {
			const delay = Number(jobs[i].startMs ?? 0);
			if (delay > 0) setTimeout(() => child.exitCode === null && child.stdin.write('go\n'), delay);
			else child.stdin.write('go\n');
		}
		return await Promise.all(lines.map(async (l) => JSON.parse(await l.next()) as Json));
	} finally {
		for (const child of children) child.kill();
	}
}

/** Eight processes (eight pacers, as eight queue-mode workers) upserting `count` people each. */
const eightUpserting = (apiKey: string, count: number, prefix: string) =>
	workers(
		Array.from({ length: 8 }, (_, w) => ({
			kind: 'upserts',
			baseUrl: BASE,
			apiKey,
			count,
			prefix: `${prefix}${w}`,
		})),
	);

/**
 * Eight processes (eight pacers, as eight queue-mode workers) share the key at 30/6 s: 48 upserts
 * each, throughput over the full windows before the first of them ran out of work; 12 upserts each,
 * first to last accepted upsert against the minimum.
 */
async function eightProcesses() {
	const manyVariant = '8 processes × 48 upserts, 30/6 s';
	if (wanted(manyVariant)) {
		const s = await repeated('eightProcesses', manyVariant, async (run) => {
			const apiKey = await fresh({ enabled: true, limit: 30, windowMs: WINDOW_MS });
			const figures = await eightUpserting(apiKey, 48, `5${run}`);
			const log = (await requestLog()).filter(
				(r) => r.method === 'POST' && r.path === '/customers',
			);
			const t0 = log[0]?.at ?? 0;
			const after = log.filter((r) => r.at >= t0 + WINDOW_MS);
			const st = await stats();
			return {
				failed_items: figures.reduce((a, f) => a + Number(f.failed), 0),
				requests_after_first_window: after.length,
				answered_429_after_first_window: after.filter((r) => r.status === 429).length,
				share_429_after_first_window:
					after.filter((r) => r.status === 429).length / Math.max(1, after.length),
				share_of_limit:
					perFullWindow(
						log.filter((r) => r.at <= Math.min(...figures.map((f) => Number(f.finished_at)))),
						WINDOW_MS,
					) / 30,
				duplicates: Math.max(0, st.customers - (st.distinctPhones as number)),
			};
		});
		row(
			'Eight processes, 384 upserts',
			'Messaging CRM node',
			`${percent(s.share_of_limit)} of limit`,
			`${percent(s.share_429_after_first_window)} 429 after window 1`,
			`${show(s.failed_items, 0)} failed`,
			`${show(s.duplicates, 0)} duplicates`,
			'',
		);
	}
	// A short shared run: 96 upserts need 4 windows, the last begun 18 s after the first.
	const fewVariant = '8 processes × 12 upserts, 30/6 s';
	if (!wanted(fewVariant)) return;
	const few = await repeated('eightProcesses', fewVariant, async (run) => {
		const apiKey = await fresh({ enabled: true, limit: 30, windowMs: WINDOW_MS });
		const figures = await eightUpserting(apiKey, 12, `4${run}`);
		const { seconds, share_429 } = await upsertFigures();
		return {
			seconds,
			ratio: seconds / 18,
			share_429,
			failed_items: figures.reduce((a, f) => a + Number(f.failed), 0),
		};
	});
	row(
		'Eight processes, 96 upserts at 30 per 6 s',
		'Messaging CRM node',
		`${show(few.seconds, 2, ' s')}, ${show(few.ratio, 3)}× the minimum (18 s)`,
		`${percent(few.share_429)} answered 429`,
		`${show(few.failed_items, 0)} failed`,
	);
}

/**
 * The node's requests and the co-tenant's in a run's request log, as the model's result (client 0:
 * the node's processes together, -1: the co-tenant), for the families' judge.
 */
function modelOf(log: Log, windowMs: number, figures: Json[]): ModelResult {
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
async function familiesAt60() {
	const windowMs = 60_000;
	const seed = Number(process.env.BENCH_SEED ?? Date.now() % 100_000);
	const count = Number(process.env.BENCH_MEMBERS ?? 3);
	console.log(`families: seed ${seed}, ${count} members of each`);
	for (const family of ['F1', 'F2', 'F3'] as const) {
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
			const verdict = judge(member, modelOf(await requestLog(), windowMs, figures));
			((results.families ??= {}) as Json)[variant] = { seed: member.seed, member, verdict };
			row(
				`Family ${family} at 120 per 60 s`,
				variant,
				verdict.ok ? 'held' : verdict.why.join('; '),
				`${verdict.ofMinimum.toFixed(3)}× the minimum`,
				`${(100 * verdict.refusedShare).toFixed(1)} % answered 429`,
			);
		}
	}
}

/**
 * Queue mode (n8n main and 2 workers, PostgreSQL, Redis; see test/e2e/queue.ts): 4 executions of
 * upserts started at once, spread over the workers, each pacing itself from the API's headers.
 * Once at the shortened window, once at the API's own 60-second window.
 */
async function queueMode() {
	const apiKey = await fresh({ enabled: true, limit: LIMIT, windowMs: WINDOW_MS });
	const stack = await startQueueStack(
		{
			root: path.join(ROOT, '.cache', 'queue-bench'),
			mainPort: 5740,
			pgPort: 5441,
			redisPort: 6392,
		},
		async (cli) => {
			await importCredential(cli, { baseUrl: BASE, apiKey });
			await importWorkflows(cli, [UPSERTS]);
			await publishWorkflow(cli, UPSERTS.id);
		},
	);
	try {
		const session = { url: stack.url, cookie: await setupOwner(stack.url) };
		for (const [label, windowMs, perRun, base] of [
			['6 s window', WINDOW_MS, 150, 300000],
			['60 s window', 60_000, 75, 400000],
		] as const) {
			const s = await repeated('queueMode', label, async (run) => {
				// The same key for every run (the credential holds it): a new rate window and a clean log.
				await control('POST', '/config', { rateLimit: { enabled: true, limit: LIMIT, windowMs } });
				await control('DELETE', '/requests');
				const before = await stats();
				const started = Date.now();
				const ended = await triggerWebhook(
					session,
					'retry-upserts',
					UPSERTS.id,
					[1, 2, 3, 4].map((n) => ({
						people: Array.from({ length: perRun }, (_, i) => ({
							phone: `+1555${run}${n}${String(base + i)}`,
							name: `Queue ${n}-${i}`,
						})),
					})),
					20 * 60_000,
				);
				const seconds = (Date.now() - started) / 1000;
				const log = (await requestLog()).filter(
					(r) => r.method === 'POST' && r.path === '/customers',
				);
				const st = await stats();
				return {
					seconds,
					requests: log.length,
					responses_429: log.filter((r) => r.status === 429).length,
					share_of_limit: windowShare(
						log.filter((r) => r.status < 400),
						windowMs,
					),
					failed_executions: ended.filter((e) => e.status !== 'success').length,
					customers: st.customers - before.customers,
					duplicates: Math.max(
						0,
						st.customers -
							(st.distinctPhones as number) -
							(before.customers - (before.distinctPhones as number)),
					),
				};
			});
			row(
				`Queue mode, ${4 * perRun} upserts`,
				`2 workers, ${label}`,
				`${percent(s.share_of_limit)} of limit`,
				`${show(s.responses_429, 0)} 429 on the wire`,
				`${show(s.failed_executions, 0)} failed`,
				`${show(s.duplicates, 0)} duplicates`,
				`${show(s.seconds, 1, ' s')}`,
			);
		}
	} finally {
		await stack.stop();
	}
}

/** Milliseconds per item of a whole run, the node against n8n's HTTP Request node doing the same. */
async function perItemOverhead(types: INodeTypes) {
	const timeIt = async (count: number, go: () => ReturnType<typeof runNode>) => {
		const started = process.hrtime.bigint();
		const result = await go();
		const ms = Number(process.hrtime.bigint() - started) / 1e6;
		if (result.error || result.items.length !== count)
			throw new Error(`overhead run failed: ${result.error?.message ?? result.items.length}`);
		return ms / count;
	};
	// Reads: Get Customer × 2,000, up to 8 in flight.
	const reads = await repeated(
		'perItemOverhead',
		'reads (Get Customer × 2,000, 8 at once)',
		async () => {
			const apiKey = await fresh({ enabled: false, limit: LIMIT, windowMs: WINDOW_MS });
			const { ids } = (await control('POST', '/customers/bulk', { count: 2000 })) as {
				ids: string[];
			};
			const input = items(2000, (i) => ({ id: ids[i] }));
			const credentials = { baseUrl: BASE, apiKey };
			const node = await timeIt(2000, () =>
				runNode({
					parameters: {
						resource: 'customer',
						operation: 'get',
						customerId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
					},
					credentials,
					items: input,
				}),
			);
			const http = await timeIt(2000, () =>
				runNode({
					...httpNode({ method: 'GET', url: `=${BASE}/customers/{{ $json.id }}` }),
					credentials,
					items: input,
					nodeTypes: types,
				}),
			);
			return { node_ms_per_item: node, http_request_ms_per_item: http, ratio: node / http };
		},
	);
	// Writes: Create or Update × 500, one at a time.
	const writes = await repeated(
		'perItemOverhead',
		'writes (Create or Update × 500, 1 at a time)',
		async (run) => {
			const apiKey = await fresh({ enabled: false, limit: LIMIT, windowMs: WINDOW_MS });
			const credentials = { baseUrl: BASE, apiKey };
			const input = people(500, `6${run}`);
			const node = await timeIt(500, () =>
				runNode({ parameters: UPSERT, credentials, items: input }),
			);
			const http = await timeIt(500, () =>
				runNode({
					...httpNode({
						method: 'POST',
						url: `${BASE}/customers`,
						sendBody: true,
						specifyBody: 'json',
						jsonBody: '={{ JSON.stringify({ phone: $json.phone, full_name: $json.name }) }}',
					}),
					credentials,
					items: input,
					nodeTypes: types,
				}),
			);
			return { node_ms_per_item: node, http_request_ms_per_item: http, ratio: node / http };
		},
	);
	for (const [label, s] of [
		['Get Customer × 2,000 (reads, 8 at once)', reads],
		['Create or Update × 500 (writes, 1 at a time)', writes],
	] as const) {
		row(
			label,
			'Messaging CRM node',
			`${show(s.node_ms_per_item, 3, ' ms')}/item`,
			'',
			'',
			`ratio ${show(s.ratio, 2)}`,
			'',
		);
		row(
			label,
			'HTTP Request',
			`${show(s.http_request_ms_per_item, 3, ' ms')}/item`,
			'',
			'',
			'',
			'',
		);
	}
}

async function restock() {
	const newPool = async () => {
		const apiKey = await fresh({ enabled: false, limit: LIMIT, windowMs: WINDOW_MS });
		const poolId = String(
			(await control('POST', '/promo-pools', { title: 'Restock benchmark' })).id,
		);
		return { apiKey, poolId };
	};
	// In this (warm) process: resident memory and heap above the baseline, the CSV included.
	const warm = await repeated('restock', 'in the bench process (warm)', async () => {
		const { apiKey, poolId } = await newPool();
		const upload = await measuredUpload({ baseUrl: BASE, apiKey, poolId, count: 100_000 });
		const uploadRequests = (await requestLog()).length;
		await control('DELETE', '/requests');
		const listStarted = Date.now();
		const list = await runNode({
			parameters: {
				resource: 'promoCode',
				operation: 'getMany',
				poolId: { __rl: true, mode: 'id', value: poolId },
				returnAll: true,
			},
			credentials: { baseUrl: BASE, apiKey },
		});
		const codes = list.items.map((i) => i.json.code);
		return {
			upload_requests: uploadRequests,
			upload_seconds: upload.seconds,
			accepted: upload.accepted,
			rss_peak_above_baseline_mb: upload.rss_peak_above_baseline_mb,
			heap_peak_above_baseline_mb: upload.heap_peak_above_baseline_mb,
			return_all_requests: (await requestLog()).length,
			return_all_items: codes.length,
			return_all_distinct: new Set(codes).size,
			return_all_seconds: (Date.now() - listStarted) / 1000,
		};
	});
	// In a fresh process, as a new n8n worker would run it.
	const cold = await repeated('restock', 'in a fresh process', async () => {
		const { apiKey, poolId } = await newPool();
		const [figures] = await workers([
			{ kind: 'restock', baseUrl: BASE, apiKey, count: 100_000, poolId },
		]);
		return figures as Figures;
	});
	row(
		'Restock 100,000 codes (CSV)',
		'Messaging CRM node',
		`${show(warm.upload_requests, 0)} requests`,
		`${show(warm.upload_seconds, 2, ' s')}`,
		`fresh process: +${show(cold.rss_peak_above_baseline_mb, 0, ' MB')} RSS, +${show(cold.heap_peak_above_baseline_mb, 0, ' MB')} heap`,
		`warm: +${show(warm.rss_peak_above_baseline_mb, 0, ' MB')} RSS, +${show(warm.heap_peak_above_baseline_mb, 0, ' MB')} heap`,
		'',
	);
	row(
		'Return All over 100,000 codes',
		'Messaging CRM node',
		`${show(warm.return_all_requests, 0)} requests`,
		`${show(warm.return_all_items, 0)} items`,
		`${show(warm.return_all_distinct, 0)} distinct`,
		'',
		`${show(warm.return_all_seconds, 2, ' s')}`,
	);
}

async function trigger() {
	const s = await repeated('trigger', 'pools and 500 watched customers', async () => {
		const apiKey = await fresh({ enabled: true, limit: LIMIT, windowMs: WINDOW_MS });
		const pools = await createTrigger(
			{ watch: 'pools', poolEvents: ['codesIssued'] },
			{ baseUrl: BASE, apiKey },
		);
		await pools.poll();
		await control('DELETE', '/requests');
		await pools.poll();
		const poolRequests = (await requestLog()).length;
		const { ids } = (await control('POST', '/customers/bulk', { count: 500, withDeals: true })) as {
			ids: string[];
		};
		const deals = await createTrigger(
			{ watch: 'deals', dealEvents: ['dealMoved'], customerIds: ids.join('\n') },
			{ baseUrl: BASE, apiKey },
		);
		const seen = new Set<string>();
		const perPoll: number[] = [];
		let polls = 0;
		while (seen.size < ids.length && polls < 50) {
			await control('DELETE', '/requests');
			await deals.poll();
			polls++;
			const log = await requestLog();
			perPoll.push(log.length);
			for (const r of log) seen.add(r.path.split('/')[2]);
		}
		return {
			pool_requests_per_poll: poolRequests,
			deal_requests_per_poll: Math.max(...perPoll),
			polls_to_read_every_customer: polls,
			share_of_rate_limit: Math.max(...perPoll) / LIMIT,
		};
	});
	row(
		'Trigger: pools',
		'Messaging CRM Trigger',
		`${show(s.pool_requests_per_poll, 0)} request/poll`,
		'',
		'',
		'',
		'',
	);
	row(
		'Trigger: 500 watched customers',
		'Messaging CRM Trigger',
		`${show(s.deal_requests_per_poll, 0)} requests/poll`,
		`${show(s.polls_to_read_every_customer, 0)} polls to read all`,
		`${percent(s.share_of_rate_limit)} of limit per poll`,
		'',
		'',
	);
}

async function sendsUnderFaults(types: INodeTypes) {
	const run = async (
		label: string,
		go: (apiKey: string, input: INodeExecutionData[]) => ReturnType<typeof runNode>,
	) => {
		const s = await repeated('sendsUnderFaults', label, async () => {
			const apiKey = await fresh({ enabled: false, limit: LIMIT, windowMs: WINDOW_MS });
			const { ids } = (await control('POST', '/customers/bulk', { count: 500 })) as {
				ids: string[];
			};
			await control('DELETE', '/requests');
			await control('POST', '/chaos', {
				seed: 42,
				p502: 0.05,
				pReset: 0.05,
				p429: 0.05,
				pathPrefix: '/customers/',
			});
			const started = Date.now();
			const result = await go(
				apiKey,
				items(500, (i) => ({ id: ids[i] })),
			);
			const seconds = (Date.now() - started) / 1000;
			await control('POST', '/chaos', {});
			const st = await stats();
			return {
				seconds,
				delivered: st.messagesSent,
				customers_messaged_twice: st.customersWithMoreThanOneMessage,
				// Items that never got their message (with a node-level failure, every customer not messaged).
				failed_items: result.error
					? 500 - Number(st.customersMessaged)
					: result.items.filter((i) => i.json.error).length,
				extra_requests: st.requests - 500,
			};
		});
		row(
			'500 sends, 15 % faults',
			label,
			`${show(s.delivered, 0)} delivered`,
			`${show(s.customers_messaged_twice, 0)} twice`,
			`${show(s.failed_items, 0)} failed`,
			`+${show(s.extra_requests, 0)} requests`,
			`${show(s.seconds, 1, ' s')}`,
		);
	};
	const ours = {
		resource: 'message',
		operation: 'send',
		customerId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
		messengerType: 'telegram',
		content: 'text',
		text: 'Your order has shipped.',
	};
	await run('Messaging CRM node', (apiKey, input) =>
		runNode({
			parameters: ours,
			credentials: { baseUrl: BASE, apiKey },
			items: input,
			continueOnFail: true,
		}),
	);
	const body = {
		method: 'POST',
		url: `=${BASE}/customers/{{ $json.id }}/messages`,
		sendBody: true,
		specifyBody: 'json',
		jsonBody: '={"messenger_type": "telegram", "text": "Your order has shipped."}',
	};
	await run('HTTP Request, Retry On Fail max', (apiKey, input) =>
		runNode({
			...httpNode(body, { retryOnFail: true, maxTries: 5, waitBetweenTries: 5000 }),
			credentials: { baseUrl: BASE, apiKey },
			items: input,
			nodeTypes: types,
		}),
	);
}

async function main() {
	// Interrupted (Ctrl-C, a kill): the sandbox, the workers, the co-tenant and n8n end with it.
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
		process.on(signal, () => void endDescendants(5000).then(() => process.exit(130)));
	const only = process.argv.slice(2);
	const want = (name: string) => only.length === 0 || only.includes(name);
	const child = await startSandboxProcess();
	try {
		const types = await nodeTypesWithHttpRequest();
		if (want('overhead')) await perItemOverhead(types);
		if (want('restock')) await restock();
		if (want('trigger')) await trigger();
		if (want('sends')) await sendsUnderFaults(types);
		if (want('upsert')) await bulkUpsert(types);
		if (want('cotenant')) await coTenant();
		if (want('cotenant60')) await coTenant60();
		if (want('skew')) await skewedReset();
		if (want('tail')) await loneTail();
		if (want('eight')) await eightProcesses();
		if (want('limiters')) await limiters();
		if (want('queue')) await queueMode();
		if (want('families')) await familiesAt60();
	} finally {
		child.kill();
	}
	const machine = {
		cpu: os.cpus()[0]?.model,
		cores: os.cpus().length,
		memory_gb: Math.round(os.totalmem() / 1024 ** 3),
		node: process.version,
		n8n_core: require('n8n-core/package.json').version as string,
		when: new Date().toISOString(),
	};
	// Rows have different numbers of cells: each column as wide as its widest cell.
	const columns = Math.max(0, ...rows.map((r) => r.length));
	const widths = Array.from({ length: columns }, (_, i) =>
		Math.max(...rows.map((r) => r[i]?.length ?? 0)),
	);
	console.log(
		`\nMachine: ${machine.cores} × ${machine.cpu}, ${machine.memory_gb} GB, Node ${machine.node}. Rate limit ${LIMIT} per ${WINDOW_MS / 1000} s (the API's ratio, 10× faster) unless a row says otherwise. ${RUNS} runs per row: median (min–max).\n`,
	);
	for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
	const dir = path.join(ROOT, 'test', 'bench', 'results');
	mkdirSync(dir, { recursive: true });
	// A partial run (`npm run bench -- cotenant queue`) replaces only its own sections; with
	// BENCH_ROWS, only its own rows of them.
	const latest = path.join(dir, 'latest.json');
	const previous =
		(only.length || process.env.BENCH_ROWS) && existsSync(latest)
			? (JSON.parse(readFileSync(latest, 'utf8')) as { results: Json }).results
			: {};
	const merged: Json = { ...previous, ...results };
	if (process.env.BENCH_ROWS)
		for (const [section, ran] of Object.entries(results))
			merged[section] = { ...((previous[section] as Json | undefined) ?? {}), ...(ran as Json) };
	writeFileSync(
		latest,
		`${JSON.stringify({ machine, runs: RUNS, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS }, results: merged }, null, 2)}\n`,
	);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
