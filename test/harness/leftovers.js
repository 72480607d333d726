/**
 * Nothing a test run writes may outlive it. Jest's globalSetup gives the run a private temporary
 * folder and points TMPDIR at it, so that the tests, the sandbox, npm, n8n and every tool
 * they start write their temporary files there; globalTeardown fails the run, naming each file
 * (and each one holding an API key or a Bearer header), when anything is left in it, then
 * removes it. Used by both Jest configurations.
 */
const { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } = require('fs');
const os = require('os');
const path = require('path');

/** What an API key of the sandbox, or an Authorization header, looks like. */
const SECRET = /mcrm_(test|demo)_[\w-]+|Bearer\s+[\w.~+/-]{8,}/;

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
			else
				out.push({
					file: path.relative(dir, full),
					holdsKey: stat.size < 64 * 1024 * 1024 && SECRET.test(readFileSync(full, 'latin1')),
				});
		}
	};
	walk(dir);
	return out;
}

function describeLeftovers(found) {
	return found.map((f) => `  ${f.file}${f.holdsKey ? '  <- holds an API key' : ''}`).join('\n');
}

async function setup() {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'mcrm-jest-'));
	// Others may pass through (PostgreSQL's user, to the data folder of dev.e2e.ts's private home)
	// but not list it; each folder a test makes in it is 0700 again.
	chmodSync(dir, 0o711);
	process.env.MCRM_JEST_TMPDIR = dir;
	process.env.TMPDIR = dir;
	// npm and ESLint turn on Node's compile cache, and ts-node (npm run dev) its own, each kept in
	// the temporary folder unless told where: in .cache/ instead.
	const cache = path.join(__dirname, '..', '..', '.cache');
	process.env.NODE_COMPILE_CACHE = path.join(cache, 'node-compile-cache');
	process.env.V8_COMPILE_CACHE_CACHE_DIR = path.join(cache, 'v8-compile-cache');
}

async function teardown() {
	const dir = process.env.MCRM_JEST_TMPDIR;
	if (!dir) return;
	const found = leftovers(dir);
	rmSync(dir, { recursive: true, force: true });
	if (found.length)
		throw new Error(
			`The test run left ${found.length} file(s) in its temporary folder (each test must remove what it writes):\n${describeLeftovers(found)}`,
		);
}

module.exports = { leftovers, describeLeftovers, setup, teardown, SECRET };
