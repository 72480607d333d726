/**
 * Nothing a test run writes may outlive it, and it writes nothing into the user's home folder.
 *
 * Jest's globalSetup gives the run a private temporary folder and points TMPDIR at it, so that
 * the tests, the sandbox, npm, n8n and every tool they start write their temporary files there,
 * and a private folder of its own for what tools would otherwise keep in the home folder (the
 * user folder of n8n's engine, N8N_USER_FOLDER). globalTeardown fails the run, naming each file
 * (and each one holding an API key or a Bearer header), when anything is left in the temporary
 * folder, or when a file in the home folder was made or changed during the run: npm's own cache
 * (~/.npm) aside, and the project itself where it lies inside the home folder. Both folders are
 * removed. Used by both Jest configurations.
 *
 * On a machine where another program writes into the home folder while the tests run (a shell's
 * history, an editor), MCRM_HOME_UNWATCHED names those paths, relative to the home folder and
 * separated by commas, and the watch passes them by.
 */
const { spawnSync } = require('child_process');
const { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');

/** What an API key of the sandbox, or an Authorization header, looks like. */
const SECRET = /mcrm_(test|demo)_[\w-]+|Bearer\s+[\w.~+/-]{8,}/;

/** Whether a file holds something that looks like a key (files of 64 MB and more are not read). */
function holdsKey(file, size) {
	try {
		return size < 64 * 1024 * 1024 && SECRET.test(readFileSync(file, 'latin1'));
	} catch {
		return false;
	}
}

/** The files and empty folders under `dir`, each with whether it holds something that looks like a key. */
function leftovers(dir) {
	const out = [];
	const walk = (folder) => {
		const entries = readdirSync(folder);
		if (entries.length === 0 && folder !== dir)
			out.push({ file: path.relative(dir, folder) + '/', holdsKey: false });
		for (const entry of entries) {
			const full = path.join(folder, entry);
			const stat = statSync(full, { throwIfNoEntry: false });
			if (!stat) continue;
			if (stat.isDirectory()) walk(full);
			else out.push({ file: path.relative(dir, full), holdsKey: holdsKey(full, stat.size) });
		}
	};
	walk(dir);
	return out;
}

/**
 * The paths under the home folder that the watch passes by: npm's own files, the project
 * itself (its .cache/, dist/ and node_modules/ are written by every run), the run's temporary
 * folder, and what MCRM_HOME_UNWATCHED names.
 */
function unwatched(home, env = process.env) {
	const inside = (p) => p !== home && !path.relative(home, p).startsWith('..');
	const named = (env.MCRM_HOME_UNWATCHED ?? '')
		.split(',')
		.map((p) => p.trim())
		.filter(Boolean)
		.map((p) => path.resolve(home, p));
	return [path.join(home, '.npm'), ROOT, env.MCRM_JEST_TMPDIR, ...named].filter(
		(p) => p && inside(path.resolve(p)),
	);
}

/**
 * The files under `home` made or changed at or after `sinceMs` (and the empty folders made
 * since), outside the paths `skip` names; each with whether it holds a key. One `find` over the
 * tree: on a home folder of 270,000 files, one to five seconds.
 */
function changedInHome(home, sinceMs, skip = unwatched(home)) {
	if (!home || home === path.parse(home).root) return [];
	if (!statSync(home, { throwIfNoEntry: false })?.isDirectory()) return [];
	const prune = skip.flatMap((p, i) => [...(i ? ['-o'] : []), '-path', path.resolve(p)]);
	const since = `@${(sinceMs / 1000).toFixed(3)}`;
	const args = [
		home,
		'-xdev',
		...(prune.length ? ['(', ...prune, ')', '-prune', '-o'] : []),
		'-newermt',
		since,
		'(',
		'-type',
		'f',
		'-o',
		'-type',
		'l',
		'-o',
		'-type',
		'd',
		'-empty',
		')',
		'-print0',
	];
	const found = spawnSync('find', args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
	return found.stdout
		.split('\0')
		.filter(Boolean)
		.map((full) => {
			const stat = statSync(full, { throwIfNoEntry: false });
			const isDir = stat?.isDirectory() ?? false;
			return {
				file: path.relative(home, full) + (isDir ? '/' : ''),
				holdsKey: !isDir && !!stat && holdsKey(full, stat.size),
			};
		});
}

function describeLeftovers(found) {
	return found.map((f) => `  ${f.file}${f.holdsKey ? '  <- holds an API key' : ''}`).join('\n');
}

async function setup() {
	// Whole seconds, a little before now: a file system may keep times in whole seconds.
	process.env.MCRM_JEST_STARTED = String(Math.floor(Date.now() / 1000) * 1000 - 1000);
	const dir = mkdtempSync(path.join(os.tmpdir(), 'mcrm-jest-'));
	// Others may pass through (PostgreSQL's user, to the data folder of dev.e2e.ts's private home)
	// but not list it; each folder a test makes in it is 0700 again.
	chmodSync(dir, 0o711);
	process.env.MCRM_JEST_TMPDIR = dir;
	process.env.TMPDIR = dir;
	// What tools keep in the home folder unless told where: in a private folder of the run. n8n's
	// engine (n8n-core, in the integration tests) makes its user folder, with an encryption key, in
	// ~/.n8n. (Real n8n, started by the e2e tests and npm run dev, is given a user folder each.)
	const own = mkdtempSync(path.join(os.tmpdir(), 'mcrm-jest-own-'));
	process.env.MCRM_JEST_OWN = own;
	process.env.N8N_USER_FOLDER = own;
	// npm and ESLint turn on Node's compile cache, and ts-node (npm run dev) its own, each kept in
	// the temporary folder unless told where; gulp keeps its list of V8's flags in
	// $XDG_CACHE_HOME, ~/.cache by default: in .cache/ instead.
	const cache = path.join(ROOT, '.cache');
	process.env.NODE_COMPILE_CACHE = path.join(cache, 'node-compile-cache');
	process.env.V8_COMPILE_CACHE_CACHE_DIR = path.join(cache, 'v8-compile-cache');
	process.env.XDG_CACHE_HOME = cache;
}

async function teardown() {
	const dir = process.env.MCRM_JEST_TMPDIR;
	if (!dir) return;
	if (process.env.MCRM_JEST_OWN)
		rmSync(process.env.MCRM_JEST_OWN, { recursive: true, force: true });
	const found = leftovers(dir);
	rmSync(dir, { recursive: true, force: true });
	const home = os.homedir();
	const inHome = changedInHome(home, Number(process.env.MCRM_JEST_STARTED));
	const problems = [];
	if (found.length)
		problems.push(
			`The test run left ${found.length} file(s) in its temporary folder (each test must remove what it writes):\n${describeLeftovers(found)}`,
		);
	if (inHome.length)
		problems.push(
			`The test run made or changed ${inHome.length} file(s) in the home folder ${home} (a test keeps its files in its own folder; npm's ~/.npm aside; MCRM_HOME_UNWATCHED names what another program writes there meanwhile):\n${describeLeftovers(inHome)}`,
		);
	if (problems.length) throw new Error(problems.join('\n\n'));
}

module.exports = {
	leftovers,
	changedInHome,
	unwatched,
	describeLeftovers,
	setup,
	teardown,
	SECRET,
};
