/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * `npm run bench`, interrupted, leaves nothing running: the sandbox it started (and with it the
 * workers, the co-tenant and n8n of the sections that start them) ends with it on SIGINT and
 * SIGTERM. Without its signal handler the sandbox is left listening, its parent gone.
 */
import { spawn } from 'child_process';
import path from 'path';
import { alive, descendants, portInUse } from '../dev/processes';
import { until } from '../e2e/rest';

const ROOT = path.resolve(__dirname, '../..');
/** Not the benchmark's own port, so that this runs beside a benchmark. */
const PORT = 4391;

describe('npm run bench, interrupted', () => {
	it.each(['SIGINT', 'SIGTERM'] as const)(
		'%s: every process it started has ended, the sandbox no longer listens',
		async (signal) => {
			const bench = spawn(
				process.execPath,
				[
					require.resolve('ts-node/dist/bin.js'),
					'--transpile-only',
					path.join(ROOT, 'test/bench/bench.ts'),
					'overhead',
				],
				{ env: { ...process.env, BENCH_PORT: String(PORT), BENCH_RUNS: '1' }, stdio: 'ignore' },
			);
			const exited = new Promise((resolve) => bench.once('exit', resolve));
			let started: number[] = [];
			try {
				await until('the sandbox to listen', () => portInUse(PORT), 60_000);
				started = descendants(bench.pid as number);
				expect(started.length).toBeGreaterThan(0);
				bench.kill(signal);
				await exited;
				await until('every process it started to end', () => !started.some(alive), 10_000);
				expect(portInUse(PORT)).toBe(false);
			} finally {
				for (const pid of [bench.pid as number, ...started].filter(alive))
					process.kill(pid, 'SIGKILL');
			}
		},
		120_000,
	);
});
