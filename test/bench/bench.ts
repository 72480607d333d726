/**
 * `npm run bench`: the node against n8n's HTTP Request node doing the same calls, in one run,
 * through n8n's execution engine, against the sandbox in its own process (so memory figures are
 * the node's). Prints a table and writes test/bench/results/latest.json. Figures, not assertions.
 */
import { spawn } from 'child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import os from 'os';
import path from 'path';

import { PackageDirectoryLoader } from 'n8n-core';
import type {
	IDataObject,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';

import { UPSERTS } from '../e2e/listWorkflows';
import { ensureN8n, N8N_VERSION, ROOT } from '../e2e/n8n';
import { startQueueStack } from '../e2e/queue';
import { triggerWebhook } from '../e2e/rest';
import { importCredential, importWorkflows, publishWorkflow, setupOwner } from '../e2e/setup';
import { createTrigger, loadPackage, runNode } from '../harness/n8n';
import { perFullWindow } from '../harness/windows';

const PORT = 4090;
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

type Log = Array<{ at: number; status: number; method: string; path: string }>;
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
	ensureN8n(N8N_VERSION);
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

async function bulkUpsert(types: INodeTypes) {
	const input = items(1000, (i) => ({ phone: `+1555${String(1000000 + i)}`, name: `Bulk ${i}` }));
	const out: Json = {};
	const run = async (label: string, go: (apiKey: string) => ReturnType<typeof runNode>) => {
		const apiKey = await fresh({ enabled: true, limit: LIMIT, windowMs: WINDOW_MS });
		const started = Date.now();
		const result = await go(apiKey);
		const seconds = (Date.now() - started) / 1000;
		const log = await requestLog();
		const s = await stats();
		const errors = result.items.filter((i) => i.json.error);
		const nodeError = result.error as unknown as
			{ httpCode?: string; message?: string } | undefined;
		const tooMany =
			errors.filter((i) => /429|rate.?limit/i.test(JSON.stringify(i.json))).length +
			(nodeError &&
			(nodeError.httpCode === '429' || /429|too many requests/i.test(nodeError.message ?? ''))
				? 1
				: 0);
		const created = s.customers - 0;
		const figures = {
			seconds,
			requests: log.length,
			// Over full windows only; a run that stopped in its first window has none to show.
			share_of_limit: Number(windowShare(log).toFixed(3)),
			responses_429: s.byStatus['429'] ?? 0,
			errors_429_in_output: tooMany,
			failed_items: result.error ? 1000 - created : errors.length,
			customers_created: created,
			duplicate_customers: Math.max(0, created - (s.distinctPhones as number)),
		};
		out[label] = figures;
		row(
			'Bulk upsert 1,000',
			label,
			`${(figures.share_of_limit * 100).toFixed(1)} % of limit`,
			`${figures.errors_429_in_output} 429 in output`,
			`${figures.failed_items} failed`,
			`${figures.duplicate_customers} duplicates`,
			`${seconds.toFixed(1)} s`,
		);
	};
	const ourParams = {
		resource: 'customer',
		operation: 'upsert',
		phone: '={{ $json.phone }}',
		additionalFields: { fullName: '={{ $json.name }}' },
	};
	await run('Messaging CRM node', (apiKey) =>
		runNode({
			parameters: ourParams,
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
	const http = httpNode(body);
	await run('HTTP Request, defaults', (apiKey) =>
		runNode({ ...http, credentials: { baseUrl: BASE, apiKey }, items: input, nodeTypes: types }),
	);
	const retry = httpNode(body, { retryOnFail: true, maxTries: 5, waitBetweenTries: 5000 });
	await run('HTTP Request, Retry On Fail max', (apiKey) =>
		runNode({ ...retry, credentials: { baseUrl: BASE, apiKey }, items: input, nodeTypes: types }),
	);
	results.bulkUpsert = out;
}

/**
 * Another client of the same key (the company's backend, another workflow, another worker) spends
 * 40 requests per window, evenly, while the node upserts 300 customers: how many of the
 * co-tenant's requests are refused, and how much of what it leaves the node takes.
 */
async function coTenant() {
	const apiKey = await fresh({ enabled: true, limit: LIMIT, windowMs: WINDOW_MS });
	const perWindow = 40;
	const tenant = { sent: 0, refused: 0 };
	let stop = false;
	const loop = (async () => {
		while (!stop) {
			const response = await fetch(`${BASE}/agents`, {
				headers: { Authorization: `Bearer ${apiKey}` },
			});
			await response.arrayBuffer();
			tenant.sent++;
			if (response.status === 429) tenant.refused++;
			await new Promise((resolve) => setTimeout(resolve, WINDOW_MS / perWindow));
		}
	})();
	const input = items(300, (i) => ({ phone: `+1555${String(2000000 + i)}`, name: `Shared ${i}` }));
	const started = Date.now();
	const result = await runNode({
		parameters: {
			resource: 'customer',
			operation: 'upsert',
			phone: '={{ $json.phone }}',
			additionalFields: { fullName: '={{ $json.name }}' },
		},
		credentials: { baseUrl: BASE, apiKey },
		items: input,
		continueOnFail: true,
	});
	const seconds = (Date.now() - started) / 1000;
	stop = true;
	await loop;
	const all = await requestLog();
	const t0 = all[0]?.at ?? 0;
	const refusedAt = all
		.filter((r) => r.path === '/agents' && r.status === 429)
		.map((r) => ((r.at - t0) / 1000).toFixed(2));
	const log = all.filter((r) => r.method === 'POST' && r.path === '/customers');
	const nodeShare = windowShare(log) * LIMIT;
	const figures = {
		seconds,
		cotenant_requests: tenant.sent,
		cotenant_refused_429: tenant.refused,
		cotenant_refused_share: Number((tenant.refused / Math.max(1, tenant.sent)).toFixed(4)),
		node_per_full_window: Number(nodeShare.toFixed(1)),
		node_share_of_what_is_left: Number((nodeShare / (LIMIT - perWindow)).toFixed(3)),
		node_429_on_the_wire: log.filter((r) => r.status === 429).length,
		cotenant_refused_at_seconds: refusedAt,
		failed_items: result.error ? 300 : result.items.filter((i) => i.json.error).length,
	};
	results.coTenant = figures;
	row(
		'Co-tenant 40/window + 300 upserts',
		'Messaging CRM node',
		`co-tenant ${figures.cotenant_refused_429}/${figures.cotenant_requests} refused`,
		`node ${figures.node_per_full_window}/window (${(figures.node_share_of_what_is_left * 100).toFixed(1)} % of the rest)`,
		`${figures.failed_items} failed`,
		`${seconds.toFixed(1)} s`,
	);
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
		const out: Json = {};
		for (const [label, windowMs, perRun, base] of [
			['6 s window', WINDOW_MS, 150, 300000],
			['60 s window', 60_000, 75, 400000],
		] as const) {
			// The same key for both runs (the credential holds it): a new rate window and a clean log.
			await control('POST', '/config', { rateLimit: { enabled: true, limit: LIMIT, windowMs } });
			await control('DELETE', '/requests');
			const before = await stats();
			const started = Date.now();
			const ended = await triggerWebhook(
				session,
				'retry-upserts',
				UPSERTS.id,
				[1, 2, 3, 4].map((run) => ({
					people: Array.from({ length: perRun }, (_, i) => ({
						phone: `+1555${run}${String(base + i)}`,
						name: `Queue ${run}-${i}`,
					})),
				})),
				20 * 60_000,
			);
			const seconds = (Date.now() - started) / 1000;
			const log = (await requestLog()).filter(
				(r) => r.method === 'POST' && r.path === '/customers',
			);
			const s = await stats();
			const figures = {
				seconds,
				upserts: 4 * perRun,
				requests: log.length,
				responses_429: log.filter((r) => r.status === 429).length,
				share_of_limit: Number(
					windowShare(
						log.filter((r) => r.status < 400),
						windowMs,
					).toFixed(3),
				),
				failed_executions: ended.filter((e) => e.status !== 'success').length,
				customers: s.customers - before.customers,
				duplicates: Math.max(
					0,
					s.customers -
						(s.distinctPhones as number) -
						(before.customers - (before.distinctPhones as number)),
				),
			};
			out[label] = figures;
			row(
				`Queue mode, ${4 * perRun} upserts`,
				`2 workers, ${label}`,
				`${(figures.share_of_limit * 100).toFixed(1)} % of limit`,
				`${figures.responses_429} 429 on the wire`,
				`${figures.failed_executions} failed`,
				`${figures.duplicates} duplicates`,
				`${seconds.toFixed(1)} s`,
			);
		}
		results.queueMode = out;
	} finally {
		await stack.stop();
	}
}

async function perItemOverhead(types: INodeTypes) {
	await fresh({ enabled: false, limit: LIMIT, windowMs: WINDOW_MS });
	const apiKey = String((await control('POST', '/keys', {})).key);
	const { ids } = (await control('POST', '/customers/bulk', { count: 2000 })) as { ids: string[] };
	const input = items(2000, (i) => ({ id: ids[i] }));
	const time = async (go: () => ReturnType<typeof runNode>) => {
		let best = Infinity;
		for (let i = 0; i < 3; i++) {
			const started = process.hrtime.bigint();
			const result = await go();
			const ms = Number(process.hrtime.bigint() - started) / 1e6;
			if (result.error || result.items.length !== 2000)
				throw new Error(`overhead run failed: ${result.error?.message ?? result.items.length}`);
			best = Math.min(best, ms);
		}
		return best / 2000;
	};
	const ours = await time(() =>
		runNode({
			parameters: {
				resource: 'customer',
				operation: 'get',
				customerId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
			},
			credentials: { baseUrl: BASE, apiKey },
			items: input,
		}),
	);
	const http = httpNode({ method: 'GET', url: `=${BASE}/customers/{{ $json.id }}` });
	const theirs = await time(() =>
		runNode({ ...http, credentials: { baseUrl: BASE, apiKey }, items: input, nodeTypes: types }),
	);
	results.perItemOverhead = {
		node_ms_per_item: Number(ours.toFixed(3)),
		http_request_ms_per_item: Number(theirs.toFixed(3)),
		ratio: Number((ours / theirs).toFixed(3)),
	};
	row(
		'Get Customer × 2,000',
		'Messaging CRM node',
		`${ours.toFixed(3)} ms/item`,
		'',
		'',
		`ratio ${(ours / theirs).toFixed(2)}`,
		'',
	);
	row('Get Customer × 2,000', 'HTTP Request', `${theirs.toFixed(3)} ms/item`, '', '', '', '');
}

async function restock() {
	const apiKey = await fresh({ enabled: false, limit: LIMIT, windowMs: WINDOW_MS });
	const poolId = String((await control('POST', '/promo-pools', { title: 'Restock benchmark' })).id);
	global.gc?.();
	const baseline = process.memoryUsage().rss;
	let peak = baseline;
	const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
	const csv = `code,batch\n${Array.from({ length: 100_000 }, (_, i) => `RS-${String(i).padStart(7, '0')},b1`).join('\n')}\n`;
	const item: INodeExecutionData = {
		json: {},
		binary: {
			data: {
				data: Buffer.from(csv).toString('base64'),
				mimeType: 'text/csv',
				fileName: 'codes.csv',
			},
		},
	};
	const started = Date.now();
	const upload = await runNode({
		parameters: {
			resource: 'promoCode',
			operation: 'upload',
			poolId: { __rl: true, mode: 'id', value: poolId },
			codesFrom: 'binary',
			csvColumn: 'code',
		},
		credentials: { baseUrl: BASE, apiKey },
		items: [item],
	});
	const uploadSeconds = (Date.now() - started) / 1000;
	clearInterval(sampler);
	if (upload.error) throw upload.error;
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
	const listSeconds = (Date.now() - listStarted) / 1000;
	const codes = list.items.map((i) => i.json.code);
	const figures = {
		upload_requests: uploadRequests,
		upload_seconds: uploadSeconds,
		accepted: upload.items[0].json.accepted,
		peak_memory_above_baseline_mb: Number(((peak - baseline) / 1024 / 1024).toFixed(1)),
		return_all_requests: (await requestLog()).length,
		return_all_items: codes.length,
		return_all_distinct: new Set(codes).size,
		return_all_seconds: listSeconds,
	};
	results.restock = figures;
	row(
		'Restock 100,000 codes (CSV)',
		'Messaging CRM node',
		`${figures.upload_requests} requests`,
		`${uploadSeconds.toFixed(1)} s`,
		`+${figures.peak_memory_above_baseline_mb} MB peak`,
		'',
		'',
	);
	row(
		'Return All over 100,000 codes',
		'Messaging CRM node',
		`${figures.return_all_requests} requests`,
		`${figures.return_all_items} items`,
		`${figures.return_all_distinct} distinct`,
		'',
		`${listSeconds.toFixed(1)} s`,
	);
}

async function trigger() {
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
	const figures = {
		pool_requests_per_poll: poolRequests,
		watched_customers: 500,
		deal_requests_per_poll: Math.max(...perPoll),
		polls_to_read_every_customer: polls,
		share_of_rate_limit: Number((Math.max(...perPoll) / LIMIT).toFixed(3)),
	};
	results.trigger = figures;
	row('Trigger: pools', 'Messaging CRM Trigger', `${poolRequests} request/poll`, '', '', '', '');
	row(
		'Trigger: 500 watched customers',
		'Messaging CRM Trigger',
		`${figures.deal_requests_per_poll} requests/poll`,
		`${polls} polls to read all`,
		`${(figures.share_of_rate_limit * 100).toFixed(0)} % of limit per poll`,
		'',
		'',
	);
}

async function sendsUnderFaults(types: INodeTypes) {
	const out: Json = {};
	const run = async (
		label: string,
		go: (apiKey: string, input: INodeExecutionData[]) => ReturnType<typeof runNode>,
	) => {
		const apiKey = await fresh({ enabled: false, limit: LIMIT, windowMs: WINDOW_MS });
		const { ids } = (await control('POST', '/customers/bulk', { count: 500 })) as { ids: string[] };
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
		const s = await stats();
		// Items that never got their message (with a node-level failure, every customer not messaged).
		const failed = result.error
			? 500 - Number(s.customersMessaged)
			: result.items.filter((i) => i.json.error).length;
		const figures = {
			seconds,
			delivered: s.messagesSent,
			customers_messaged_twice: s.customersWithMoreThanOneMessage,
			failed_items: failed,
			requests: s.requests,
			extra_requests: s.requests - 500,
		};
		out[label] = figures;
		row(
			'500 sends, 15 % faults',
			label,
			`${figures.delivered} delivered`,
			`${figures.customers_messaged_twice} twice`,
			`${failed} failed`,
			`+${figures.extra_requests} requests`,
			`${seconds.toFixed(1)} s`,
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
	results.sendsUnderFaults = out;
}

async function main() {
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
		if (want('queue')) await queueMode();
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
		`\nMachine: ${machine.cores} × ${machine.cpu}, ${machine.memory_gb} GB, Node ${machine.node}. Rate limit ${LIMIT} per ${WINDOW_MS / 1000} s (the API's ratio, 10× faster).\n`,
	);
	for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
	const dir = path.join(ROOT, 'test', 'bench', 'results');
	mkdirSync(dir, { recursive: true });
	// A partial run (`npm run bench -- cotenant queue`) replaces only its own sections.
	const latest = path.join(dir, 'latest.json');
	const previous =
		only.length && existsSync(latest)
			? (JSON.parse(readFileSync(latest, 'utf8')) as { results: Json }).results
			: {};
	writeFileSync(
		latest,
		`${JSON.stringify({ machine, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS }, results: { ...previous, ...results } }, null, 2)}\n`,
	);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
