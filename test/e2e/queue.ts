/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * n8n's queue mode on this machine, for `npm run dev:queue` and the queue-mode e2e tests:
 * PostgreSQL and Redis from Debian's packages (installed when missing), started on loopback ports
 * with their data in a folder under .cache/, then n8n main (editor, API, webhooks, the polling
 * trigger) and workers pulling executions from Redis, each with this package installed in its own
 * user folder. Everything it starts, `stop` ends.
 */
import type { ChildProcess } from 'child_process';
import { spawn, spawnSync } from 'child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'fs';
import path from 'path';

import type { N8nOptions } from './n8n';
import { N8N_VERSION, prepareUserFolder, startN8n } from './n8n';
import { workerPorts } from './ports';
import { until } from './rest';

export interface QueueOptions {
	/** A folder under .cache/ for the databases and the user folders. */
	root: string;
	mainPort: number;
	workers?: number;
	/** Ports: PostgreSQL, Redis; workers' health checks follow the main's port. */
	pgPort?: number;
	redisPort?: number;
	/** Start from empty databases (tests) or keep them (dev). */
	fresh?: boolean;
	/** Extra environment for every n8n process. */
	env?: Record<string, string>;
	output?: (who: string, chunk: string) => void;
}

type N8nProcess = Awaited<ReturnType<typeof startN8n>>;

export interface QueueStack {
	url: string;
	/** Options for n8n CLI commands (import, publish) against the same database. */
	cli: N8nOptions;
	main: N8nProcess;
	workers: N8nProcess[];
	restartMain(): Promise<void>;
	/** Kills a worker at once (SIGKILL), as a crash would. */
	killWorker(index: number): Promise<void>;
	/** Starts worker `index` again (after it died), with the same folder and ports. */
	restartWorker(index: number): Promise<void>;
	stop(): Promise<void>;
}

function run(
	command: string,
	args: string[],
	options: { as?: string; allowFail?: boolean } = {},
): string {
	const [cmd, argv] = options.as
		? ['runuser', ['-u', options.as, '--', command, ...args]]
		: [command, args];
	const result = spawnSync(cmd, argv, { encoding: 'utf8' });
	if (result.status !== 0 && !options.allowFail) {
		throw new Error(
			`${command} ${args.join(' ')} failed (${String(result.status)}): ${result.stderr}`,
		);
	}
	return result.stdout;
}

/** The PostgreSQL server binaries of Debian's package, installing PostgreSQL and Redis when missing. */
export function ensureQueueServices(log: (line: string) => void = console.log): string {
	const find = () => {
		const base = '/usr/lib/postgresql';
		const version = existsSync(base) ? readdirSync(base).sort().pop() : undefined;
		const bin = version ? path.join(base, version, 'bin') : undefined;
		return bin && existsSync(path.join(bin, 'initdb')) && existsSync('/usr/bin/redis-server')
			? bin
			: undefined;
	};
	let bin = find();
	if (!bin) {
		log("Installing Debian's postgresql and redis-server for queue mode (first run only)...");
		run('apt-get', ['update', '-qq']);
		const result = spawnSync('apt-get', ['install', '-y', '-qq', 'postgresql', 'redis-server'], {
			env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
			encoding: 'utf8',
		});
		if (result.status !== 0)
			throw new Error(`apt-get install postgresql redis-server failed: ${result.stderr}`);
		bin = find();
		if (!bin) throw new Error('PostgreSQL or Redis is still missing after apt-get install');
	}
	return bin;
}

function started(child: ChildProcess): Promise<void> {
	return new Promise((resolve) => {
		if (child.exitCode !== null || child.signalCode !== null) return resolve();
		child.once('exit', () => resolve());
	});
}

/** The first folder above `dir` that the postgres user may not pass through, if any. */
function blockingAncestor(dir: string): string | undefined {
	const folders: string[] = [];
	for (let d = path.dirname(dir); ; d = path.dirname(d)) {
		folders.unshift(d);
		if (d === path.dirname(d)) break;
	}
	return folders.find(
		(folder) => spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', folder]).status !== 0,
	);
}

async function startPostgres(
	bin: string,
	dir: string,
	port: number,
	fresh: boolean,
	output: (chunk: string) => void,
): Promise<ChildProcess> {
	const data = path.join(dir, 'pg');
	if (fresh) rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	const { uid, gid } = {
		uid: Number(run('id', ['-u', 'postgres']).trim()),
		gid: Number(run('id', ['-g', 'postgres']).trim()),
	};
	// PostgreSQL runs as its own user, which must be able to pass through every folder above its data.
	const closed = blockingAncestor(dir);
	if (closed)
		throw new Error(
			`PostgreSQL runs as the user "postgres", which cannot pass through ${closed} (mode ${(statSync(closed).mode & 0o777).toString(8)}) to reach ${dir}. Let others pass through it (chmod o+x ${closed}) or clone the project where they can.`,
		);
	if (!existsSync(path.join(data, 'PG_VERSION'))) {
		mkdirSync(data, { recursive: true });
		chownSync(data, uid, gid);
		run(path.join(bin, 'initdb'), ['-D', data, '--auth=trust', '-U', 'postgres', '--no-sync'], {
			as: 'postgres',
		});
	}
	const socket = path.join(dir, 'socket');
	mkdirSync(socket, { recursive: true });
	chownSync(socket, uid, gid);
	const child = spawn(
		'runuser',
		[
			'-u',
			'postgres',
			'--',
			path.join(bin, 'postgres'),
			'-D',
			data,
			'-p',
			String(port),
			'-k',
			socket,
			'-c',
			'listen_addresses=127.0.0.1',
			'-c',
			'fsync=off',
			'-c',
			'max_connections=200',
		],
		// A process group of its own, as Redis's and each n8n's: a Ctrl-C in the terminal reaches only
		// the script, whose stop() ends n8n first and the databases under it after.
		{ stdio: ['ignore', 'pipe', 'pipe'], detached: true },
	);
	let said = '';
	const hear = (c: Buffer) => {
		said = (said + c.toString()).slice(-4096);
		output(c.toString());
	};
	child.stdout?.on('data', hear);
	child.stderr?.on('data', hear);
	// No client before PostgreSQL says it accepts them: one that comes while it is starting up (a
	// loaded machine makes that last) has it log a FATAL line. Then as the postgres role: the client
	// tools' default (this user's name) has it log one too.
	await until('PostgreSQL', () => said.includes('ready to accept connections'), 60_000);
	const as = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'];
	await until('PostgreSQL', () => spawnSync(path.join(bin, 'pg_isready'), as).status === 0, 30_000);
	const psql = (sql: string) => run(path.join(bin, 'psql'), [...as, '-tAc', sql]);
	if (psql("SELECT 1 FROM pg_database WHERE datname = 'n8n'").trim() !== '1')
		psql('CREATE DATABASE n8n');
	return child;
}

async function startRedis(port: number, output: (chunk: string) => void): Promise<ChildProcess> {
	const child = spawn(
		'redis-server',
		['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
		{ stdio: ['ignore', 'pipe', 'pipe'], detached: true },
	);
	child.stdout?.on('data', (c: Buffer) => output(c.toString()));
	child.stderr?.on('data', (c: Buffer) => output(c.toString()));
	await until(
		'Redis',
		() =>
			spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim() ===
			'PONG',
		30_000,
	);
	return child;
}

export async function startQueueStack(
	options: QueueOptions,
	setup?: (cli: N8nOptions) => Promise<void>,
): Promise<QueueStack> {
	const bin = ensureQueueServices();
	const pgPort = options.pgPort ?? 5439;
	const redisPort = options.redisPort ?? 6390;
	const fresh = options.fresh ?? true;
	const say = (who: string) => (chunk: string) => options.output?.(who, chunk);
	const postgres = await startPostgres(
		bin,
		path.join(options.root, 'services'),
		pgPort,
		fresh,
		say('postgres'),
	);
	const redis = await startRedis(redisPort, say('redis'));
	const env: Record<string, string> = {
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(pgPort),
		DB_POSTGRESDB_DATABASE: 'n8n',
		DB_POSTGRESDB_USER: 'postgres',
		DB_POSTGRESDB_PASSWORD: 'postgres',
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redisPort),
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		// The links a worker writes (a waiting message's resume URL) lead to main, which serves them.
		WEBHOOK_URL: `http://localhost:${options.mainPort}/`,
		...options.env,
	};
	const folder = (name: string) => {
		const dir = path.join(options.root, name);
		if (fresh || !existsSync(path.join(dir, '.n8n'))) prepareUserFolder(dir, fresh);
		else prepareUserFolder(dir, false);
		// n8n's settings file there holds the encryption key.
		chmodSync(dir, 0o700);
		return dir;
	};
	const mainOptions = {
		userFolder: folder('main'),
		port: options.mainPort,
		version: N8N_VERSION,
		env,
	};
	const startMain = () => startN8n({ ...mainOptions, output: say('main') });
	const workerCount = options.workers ?? 2;
	const startWorker = async (i: number) => {
		const { health, server, broker } = workerPorts(options.mainPort, i);
		return await startN8n({
			userFolder: folder(`worker-${i + 1}`),
			port: server,
			version: N8N_VERSION,
			env: {
				...env,
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(health),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				N8N_RUNNERS_BROKER_PORT: String(broker),
			},
			command: ['worker', '--concurrency=5'],
			health: `http://127.0.0.1:${health}/healthz`,
			output: say(`worker-${i + 1}`),
		});
	};
	const stopServices = async () => {
		redis.kill('SIGTERM');
		run(
			path.join(bin, 'pg_ctl'),
			['stop', '-D', path.join(options.root, 'services', 'pg'), '-m', 'fast'],
			{ as: 'postgres', allowFail: true },
		);
		await Promise.all([started(redis), started(postgres)]);
	};
	let main: N8nProcess;
	try {
		await setup?.(mainOptions);
		main = await startMain();
	} catch (error) {
		await stopServices();
		throw error;
	}
	const stack: QueueStack = {
		url: main.url,
		cli: mainOptions,
		main,
		workers: [],
		async restartMain() {
			await stack.main.stop();
			stack.main = await startMain();
		},
		async killWorker(index: number) {
			const worker = stack.workers[index];
			worker.process.kill('SIGKILL');
			await started(worker.process);
		},
		async restartWorker(index: number) {
			await stack.workers[index].stop();
			stack.workers[index] = await startWorker(index);
		},
		async stop() {
			await Promise.all([stack.main.stop(), ...stack.workers.map((w) => w.stop())]);
			await stopServices();
		},
	};
	try {
		for (let i = 0; i < workerCount; i++) stack.workers.push(await startWorker(i));
	} catch (error) {
		await stack.stop();
		throw error;
	}
	return stack;
}
