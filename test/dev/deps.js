/**
 * The first step of `npm run dev` and `npm test`: installs the dev dependencies with `npm ci` when
 * node_modules is missing or stale, so each command works on a fresh clone by itself. Plain
 * JavaScript with Node's own modules only: it runs before anything is installed.
 *
 * Stale means that npm's record of what it installed (node_modules/.package-lock.json) lacks a
 * package the lockfile names, or holds another version of one: a clone with nothing installed, or a
 * pull that changed package-lock.json. Otherwise it says nothing and costs about 20 ms.
 */
'use strict';
const { spawnSync } = require('child_process');
const { existsSync, readFileSync } = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '../..');

/**
 * Why node_modules does not match the lockfile, or undefined when it does. `lock` and `installed`
 * are the parsed package-lock.json and node_modules/.package-lock.json (undefined when missing).
 * Optional packages (another platform's binaries) may be absent.
 */
function staleReason(lock, installed) {
	if (!installed) return 'nothing is installed yet';
	const had = installed.packages ?? {};
	for (const [where, wanted] of Object.entries(lock.packages ?? {})) {
		if (where === '' || !where.startsWith('node_modules/')) continue;
		const got = had[where];
		if (!got) {
			if (wanted.optional) continue;
			return `${where.slice('node_modules/'.length)} is not installed`;
		}
		if (got.version !== wanted.version)
			return `${where.slice('node_modules/'.length)} is ${got.version}, the lockfile says ${wanted.version}`;
	}
	return undefined;
}

function readJson(file) {
	try {
		return JSON.parse(readFileSync(file, 'utf8'));
	} catch {
		return undefined;
	}
}

function main() {
	const lock = readJson(path.join(ROOT, 'package-lock.json'));
	if (!lock) throw new Error('package-lock.json is missing or unreadable');
	const why = staleReason(lock, readJson(path.join(ROOT, 'node_modules', '.package-lock.json')));
	if (!why) return;
	console.log(`Installing the dev dependencies (npm ci): ${why}...`);
	// Under npm, its own CLI with the Node that runs it; by hand, the first npm on PATH.
	const npm = process.env.npm_execpath;
	const [command, args] =
		npm && existsSync(npm) && npm.endsWith('.js')
			? [process.execPath, [npm, 'ci', '--no-audit', '--no-fund']]
			: ['npm', ['ci', '--no-audit', '--no-fund']];
	const started = Date.now();
	const run = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
	if (run.status !== 0) {
		console.error(`npm ci failed (${run.signal ?? `exit code ${String(run.status)}`})`);
		process.exit(run.status || 1);
	}
	console.log(`Installed in ${Math.round((Date.now() - started) / 1000)} s.`);
}

module.exports = { staleReason };
if (require.main === module) main();
