/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * `npm run bench`: the node against n8n's HTTP Request node doing the same calls, in one run,
 * through n8n's execution engine, against the sandbox in its own process (so memory figures are
 * the node's). Prints a table and writes test/bench/results/latest.json. Figures, not assertions.
 * The sections live in test/bench/*.bench.ts, one file per subject (cotenant.bench.ts also holds
 * `cotenant60`; limiters.bench.ts also `skew` and `tail`); what they share is runner.ts (and
 * beside.ts for a co-tenant).
 */
// First: the home folder n8n's packages write in is the run's own (see privateHome.ts).
import './privateHome';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import os from 'os';
import path from 'path';

import { endDescendants } from '../dev/processes';
import { ROOT } from '../e2e/n8n';
import { coTenant, coTenant60 } from './cotenant.bench';
import { eightProcesses } from './eight.bench';
import { familiesAt60 } from './families.bench';
import { limiters, loneTail, skewedReset } from './limiters.bench';
import { perItemOverhead } from './overhead.bench';
import { queueMode } from './queue.bench';
import { restock } from './restock.bench';
import type { Json } from './runner';
import {
	LIMIT,
	nodeTypesWithHttpRequest,
	results,
	rows,
	RUNS,
	startSandboxProcess,
	WINDOW_MS,
} from './runner';
import { sendsUnderFaults } from './sends.bench';
import { trigger } from './trigger.bench';
import { bulkUpsert } from './upsert.bench';

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
		n8n_core: (
			JSON.parse(readFileSync(require.resolve('n8n-core/package.json'), 'utf8')) as {
				version: string;
			}
		).version,
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
	const kept =
		(only.length || process.env.BENCH_ROWS) && existsSync(latest)
			? (JSON.parse(readFileSync(latest, 'utf8')) as { runs: number; results: Json })
			: undefined;
	const previous = kept?.results ?? {};
	const merged: Json = { ...previous, ...results };
	if (process.env.BENCH_ROWS)
		for (const [section, ran] of Object.entries(results))
			merged[section] = { ...((previous[section] as Json | undefined) ?? {}), ...(ran as Json) };
	writeFileSync(
		latest,
		// `runs`: per row in a whole run; a row run on its own (BENCH_RUNS) lists its own runs.
		`${JSON.stringify({ machine, runs: kept?.runs ?? RUNS, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS }, results: merged }, null, 2)}\n`,
	);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
