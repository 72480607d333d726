/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * Another client of the benchmark's key (the company's own backend) in a process of its own, with
 * its own clock and timers: it reads `GET /agents` on a schedule, each request sent without waiting
 * for the answer to the one before. Started by bench.ts with a JSON job in BENCH_JOB; prints
 * `ready`, starts on a `go` line on stdin. On a `stop` line (or SIGTERM, SIGINT, or stdin closing)
 * it stops sending, waits for the requests in flight, prints one JSON line `{sent, refused,
 * requests}`, each request as `{at, status}` (this process's Date.now() when the answer came,
 * status 0 when none came) and exits.
 *
 * - `spread`: `perWindow` requests per `windowMs`, one every windowMs / perWindow from the start,
 *   on an absolute schedule (start + k · step, whatever the answers take).
 * - `burst`: `perWindow` requests at once at `phaseMs` + k · windowMs after the start (a cron job).
 * - `random`: `perWindow` requests at moments drawn at random (from `seed`) in each window-long
 *   cycle from the start.
 * - `startup`: one request right at the start, before the schedule.
 * - `stopAfterMs`: nothing scheduled that long after the start or later is sent.
 */
import { createInterface } from 'readline';

import { prng } from '../harness/prng';

export interface Job {
	baseUrl: string;
	apiKey: string;
	mode: 'spread' | 'burst' | 'random';
	perWindow: number;
	windowMs: number;
	phaseMs?: number;
	startup?: boolean;
	stopAfterMs?: number;
	seed?: number;
}

const job = JSON.parse(process.env.BENCH_JOB ?? '{}') as Job;

const answers: Array<{ at: number; status: number }> = [];
const inFlight = new Set<Promise<void>>();
let sent = 0;
let started = false;
let stopped = false;
let timer: NodeJS.Timeout | undefined;

function send() {
	sent++;
	const request = (async () => {
		let status = 0;
		try {
			const response = await fetch(`${job.baseUrl}/agents`, {
				headers: { Authorization: `Bearer ${job.apiKey}` },
			});
			await response.arrayBuffer();
			status = response.status;
		} catch {
			// No answer (the connection failed): status 0.
		}
		answers.push({ at: Date.now(), status });
	})();
	inFlight.add(request);
	void request.then(() => inFlight.delete(request));
}

/** The moments of a `random` job: each cycle's drawn when it begins, in order. */
function randomMoments(start: number): () => number {
	const draw = prng(job.seed ?? 1);
	let moments: number[] = [];
	let cycle = 0;
	return () => {
		while (moments.length === 0) {
			const base = start + cycle++ * job.windowMs;
			moments = Array.from({ length: job.perWindow }, () => base + draw() * job.windowMs);
			moments.sort((a, b) => b - a);
		}
		return moments.pop() as number;
	};
}

/** Sends on the job's schedule from `start` (this process's clock), each time set from `start`. */
function run(start: number) {
	if (job.mode === 'random') return runRandom(start);
	const spread = job.mode === 'spread';
	const step = spread ? job.windowMs / job.perWindow : job.windowMs;
	const offset = spread ? 0 : (job.phaseMs ?? 0);
	const batch = spread ? 1 : job.perWindow;
	const end = start + (job.stopAfterMs ?? Infinity);
	let k = 0;
	const next = () => {
		const at = start + offset + k * step;
		if (stopped || at >= end) return;
		timer = setTimeout(
			() => {
				for (let i = 0; i < batch; i++) send();
				k++;
				next();
			},
			Math.max(0, at - Date.now()),
		);
	};
	if (job.startup) send();
	next();
}

function runRandom(start: number) {
	const nextMoment = randomMoments(start);
	const end = start + (job.stopAfterMs ?? Infinity);
	const next = () => {
		const at = nextMoment();
		if (stopped || at >= end) return;
		timer = setTimeout(
			() => {
				send();
				next();
			},
			Math.max(0, at - Date.now()),
		);
	};
	if (job.startup) send();
	next();
}

let finishing: Promise<void> | undefined;
function finish() {
	finishing ??= (async () => {
		stopped = true;
		clearTimeout(timer);
		await Promise.all([...inFlight]);
		const refused = answers.filter((a) => a.status === 429).length;
		const report = JSON.stringify({ sent, refused, requests: answers });
		process.stdout.write(`${report}\n`, () => process.exit(0));
	})();
}

async function main() {
	// fetch loads its HTTP client on first use: load it now (a data: URL sends nothing), so that
	// the first request leaves on time.
	await (await fetch('data:,')).arrayBuffer();
	process.on('SIGTERM', finish);
	process.on('SIGINT', finish);
	const lines = createInterface({ input: process.stdin });
	lines.on('line', (line) => {
		const command = line.trim();
		if (command === 'go' && !started && !stopped) {
			started = true;
			run(Date.now());
		} else if (command === 'stop') finish();
	});
	lines.on('close', finish);
	process.stdout.write('ready\n');
}

main().catch((error: unknown) => {
	process.stderr.write(`${String(error)}\n`);
	process.exit(1);
});
