/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * What every section of the benchmark (test/bench/*.bench.ts) shares: the sandbox in its own
 * process and its control routes, n8n's HTTP Request node to compare with, the rows and results
 * the run prints and writes, RUNS repeats with min, median and max, and worker processes
 * (test/bench/worker.ts) started when a job says.
 */
import type { ChildProcessByStdio } from 'child_process';
import { spawn } from 'child_process';
import { mkdirSync, writeFileSync } from 'fs';
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

import { ensureN8n, N8N_VERSION, ROOT } from '../e2e/n8n';
import { loadPackage, runNode } from '../harness/engine';
import { perFullWindow } from '../harness/windows';

/** The sandbox's port (BENCH_PORT: another, to run beside a running benchmark). */
export const PORT = Number(process.env.BENCH_PORT ?? 4090);
export const BASE = `http://127.0.0.1:${PORT}`;
export const TOKEN = 'bench-control-token';
/** The API's 120 requests per 60 s, ten times faster: the same requests-per-window ratio. */
export const LIMIT = 120;
export const WINDOW_MS = 6000;

export type Json = Record<string, unknown>;

export async function control(method: string, route: string, body?: unknown): Promise<Json> {
	const response = await fetch(`${BASE}/__sandbox${route}`, {
		method,
		headers: { 'X-Sandbox-Token': TOKEN, 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!response.ok)
		throw new Error(`control ${method} ${route}: ${response.status} ${await response.text()}`);
	return (await response.json()) as Json;
}

export async function startSandboxProcess() {
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

export async function fresh(rateLimit: Json): Promise<string> {
	await control('POST', '/reset', { seed: 'demo' });
	await control('POST', '/config', { rateLimit });
	return String((await control('POST', '/keys', {})).key);
}

export type Log = Array<{
	seq: number;
	at: number;
	status: number;
	method: string;
	path: string;
	keyId?: string;
	windowStart?: number;
}>;
export const requestLog = async () => (await control('GET', '/requests')).requests as Log;
export const stats = async () =>
	(await control('GET', '/stats')) as Json & {
		customers: number;
		requests: number;
		messagesSent: number;
		customersWithMoreThanOneMessage: number;
		byStatus: Record<string, number>;
	};

/** n8n's own HTTP Request node, from the n8n installed for the end-to-end tests. */
export async function nodeTypesWithHttpRequest(): Promise<INodeTypes> {
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

export function httpNode(parameters: INodeParameters, settings: Json = {}) {
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

export const items = (n: number, make: (i: number) => IDataObject): INodeExecutionData[] =>
	Array.from({ length: n }, (_, i) => ({ json: make(i) }));

/** Accepted requests per full rate window, as a share of the limit (the last, partial window left out). */
export function windowShare(log: Log, windowMs = WINDOW_MS): number {
	return perFullWindow(log, windowMs) / LIMIT;
}

export const results: Json = {};
export const rows: string[][] = [];
export function row(...cells: Array<string | number>) {
	rows.push(cells.map(String));
}

/** Every benchmark runs this many times (BENCH_RUNS, at least 3 for the figures of docs/benchmarks.md). */
export const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));

export interface Spread {
	min: number;
	median: number;
	max: number;
}

export function spread(values: number[]): Spread {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
	return { min: sorted[0], median, max: sorted[sorted.length - 1] };
}

/** A run's figures: numbers, and lists (one number per rate window) kept with the run only. */
export type Figures = Record<string, number | number[]>;
export type Spreads = Record<string, Spread>;

/**
 * BENCH_ROWS=<text>: in the sections cotenant, cotenant60, eight and limiters, only the rows whose
 * name (as latest.json keys them in their section) contains the text run; the others are skipped.
 */
export const wanted = (variant: string) =>
	!process.env.BENCH_ROWS || variant.includes(process.env.BENCH_ROWS);

/**
 * BENCH_LOG=<dir>: a run's request log as the sandbox kept it, to read a figure window by window
 * (key ids, not keys; the directory is the caller's, kept), as `<name>.json`.
 */
export function keepLog(name: string, log: Log): void {
	const logDir = process.env.BENCH_LOG;
	if (!logDir) return;
	mkdirSync(logDir, { recursive: true });
	writeFileSync(path.join(logDir, `${name.replace(/[^\w.-]+/g, '_')}.json`), JSON.stringify(log));
}

/**
 * Runs `once` RUNS times; each number figure as min, median and max over the runs (all runs kept
 * too, with their lists).
 */
export async function repeated(
	section: string,
	variant: string,
	once: (run: number) => Promise<Figures>,
): Promise<Spreads> {
	const runs: Figures[] = [];
	for (let run = 0; run < RUNS; run++) {
		runs.push(await once(run));
		if (process.env.BENCH_LOG) keepLog(`${section}-${variant}-${run}`, await requestLog());
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
export function show(s: Spread, digits = 1, unit = ''): string {
	const f = (n: number) => `${n.toFixed(digits)}${unit}`;
	return s.min === s.max ? f(s.median) : `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
}

export const percent = (s: Spread) =>
	show({ min: s.min * 100, median: s.median * 100, max: s.max * 100 }, 1, ' %');

export const UPSERT = {
	resource: 'customer',
	operation: 'upsert',
	phone: '={{ $json.phone }}',
	additionalFields: { fullName: '={{ $json.name }}' },
};

export const people = (n: number, prefix: string) =>
	items(n, (i) => ({ phone: `+1555${prefix}${String(100000 + i)}`, name: `Bench ${i}` }));

export const failedOf = (result: Awaited<ReturnType<typeof runNode>>, count: number) =>
	result.error ? count : result.items.filter((i) => i.json.error).length;

/** Create or Update of `count` people, one at a time, through n8n's engine, with `apiKey`. */
export const upsertPeople = (apiKey: string, count: number, prefix: string) =>
	runNode({
		parameters: UPSERT,
		credentials: { baseUrl: BASE, apiKey },
		items: people(count, prefix),
		continueOnFail: true,
	});

/** The node's upserts in the log: seconds from the first accepted to the last, and the 429 share. */
export async function upsertFigures() {
	const log = (await requestLog()).filter((r) => r.method === 'POST');
	const ok = log.filter((r) => r.status < 400);
	const seconds = ok.length ? (ok[ok.length - 1].at - ok[0].at) / 1000 : 0;
	const share_429 = log.filter((r) => r.status === 429).length / Math.max(1, log.length);
	return { log, seconds, share_429 };
}

/** A fresh key under 30 requests per 6 s and no Retry-After, as `variant` writes its headers. */
export const strictWindow = (variant: Json) =>
	fresh({ enabled: true, limit: 30, windowMs: WINDOW_MS, retryAfter: false, ...variant });

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The figures of the runs of a row, as `repeated` kept them. */
export const runsOf = (section: string, variant: string) =>
	((results[section] as Json)[variant] as Json).runs as Figures[];

/** A list figure of every run: "80 80 80 60", runs apart by " | ". */
export const lists = (section: string, variant: string, key: string) =>
	runsOf(section, variant)
		.map((r) => (r[key] as number[]).join(' '))
		.join(' | ');

/** A child's stdout line by line: `next()` waits for the next line, and throws if the child exits first. */
export function linesOf(child: ChildProcessByStdio<Writable, Readable, null>) {
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
export async function workers(jobs: Json[], onStart?: () => void): Promise<Json[]> {
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
export const eightUpserting = (apiKey: string, count: number, prefix: string) =>
	workers(
		Array.from({ length: 8 }, (_, w) => ({
			kind: 'upserts',
			baseUrl: BASE,
			apiKey,
			count,
			prefix: `${prefix}${w}`,
		})),
	);
