/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The guard of every test run (test/harness/leftovers.js, Jest's globalTeardown): what it reports
 * when a run leaves files behind. Planted here: a leftover credentials file holding a key, an empty
 * folder, a log; and a folder holding nothing. In a home folder: n8n's key and gulp's cache made
 * during the run, beside npm's cache, the project, a file older than the run and a path named
 * unwatched, which pass.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

// Plain JavaScript: Jest's global setup and teardown load it as it is.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const guard = require('../harness/leftovers') as {
	leftovers: (dir: string) => Found;
	describeLeftovers: (found: Found) => string;
	changedInHome: (home: string, sinceMs: number, skip?: string[]) => Found;
	unwatched: (home: string, env: Record<string, string | undefined>) => string[];
};
const { leftovers, describeLeftovers, changedInHome, unwatched } = guard;
type Found = Array<{ file: string; holdsKey: boolean }>;

describe('the guard against files left by a test run', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(path.join(tmpdir(), 'leftovers-test-'));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it('passes a folder holding nothing', () => {
		expect(leftovers(dir)).toEqual([]);
	});

	it('names every file and empty folder left, and which hold an API key or a Bearer header', () => {
		writeFileSync(
			path.join(dir, 'mcrm-credentials-1.json'),
			JSON.stringify([{ data: { apiKey: 'mcrm_test_Ab3-xyz' } }]),
		);
		mkdirSync(path.join(dir, 'tmp-123-abc'));
		mkdirSync(path.join(dir, 'n8n-e2e-logs-x'));
		writeFileSync(
			path.join(dir, 'n8n-e2e-logs-x', 'main.log'),
			'Authorization: Bearer sk-live-0123456789',
		);
		writeFileSync(path.join(dir, 'notes.txt'), 'nothing secret');
		const found = leftovers(dir).sort((a, b) => a.file.localeCompare(b.file));
		expect(found).toEqual([
			{ file: 'mcrm-credentials-1.json', holdsKey: true },
			{ file: path.join('n8n-e2e-logs-x', 'main.log'), holdsKey: true },
			{ file: 'notes.txt', holdsKey: false },
			{ file: 'tmp-123-abc/', holdsKey: false },
		]);
		expect(describeLeftovers(found)).toContain('mcrm-credentials-1.json  <- holds an API key');
	});
});

describe('the watch on the home folder', () => {
	let home: string;
	const write = (file: string, text = '') => {
		mkdirSync(path.dirname(path.join(home, file)), { recursive: true });
		writeFileSync(path.join(home, file), text);
	};
	beforeEach(() => {
		home = mkdtempSync(path.join(tmpdir(), 'home-watch-test-'));
	});
	afterEach(() => rmSync(home, { recursive: true, force: true }));

	it('names what a run made or changed there, and passes npm, the project and what is named unwatched', () => {
		write('.cache/js-v8flags/.old.json', '[]');
		write('.bashrc', 'export PATH');
		const old = new Date(Date.now() - 3_600_000);
		for (const file of ['.cache/js-v8flags/.old.json', '.bashrc', '.cache/js-v8flags', '.cache'])
			utimesSync(path.join(home, file), old, old);
		const since = Math.floor(Date.now() / 1000) * 1000 - 1000;
		expect(changedInHome(home, since, [])).toEqual([]);

		// Planted: what gulp and n8n's engine wrote into ~ before they were told where.
		write('.cache/js-v8flags/.v8flags-3-12.4.json', '["--harmony"]');
		write('.n8n/config', '{"encryptionKey":"x"}');
		write('.n8n/creds.json', '{"apiKey":"mcrm_test_Ab3-xyz"}');
		mkdirSync(path.join(home, '.config', 'chromium'), { recursive: true });
		// Passed by: npm's own files, the project inside the home folder, a named path.
		write('.npm/_cacache/index', 'x');
		write('code/project/dist/index.js', 'x');
		write('.bash_history', 'ls');
		const skip = [
			path.join(home, '.npm'),
			path.join(home, 'code', 'project'),
			path.join(home, '.bash_history'),
		];
		const found = changedInHome(home, since, skip).sort((a, b) => a.file.localeCompare(b.file));
		expect(found).toEqual([
			{ file: '.cache/js-v8flags/.v8flags-3-12.4.json', holdsKey: false },
			{ file: '.config/chromium/', holdsKey: false },
			{ file: '.n8n/config', holdsKey: false },
			{ file: '.n8n/creds.json', holdsKey: true },
		]);
	});

	it('passes by npm, the project when inside the home folder, and MCRM_HOME_UNWATCHED', () => {
		const skip = unwatched(home, { MCRM_HOME_UNWATCHED: '.bash_history, .claude' });
		expect(skip).toContain(path.join(home, '.npm'));
		expect(skip).toContain(path.join(home, '.bash_history'));
		expect(skip).toContain(path.join(home, '.claude'));
		// The project lies outside this home folder: not passed by.
		expect(skip.some((p) => p.startsWith(path.resolve(__dirname, '..', '..')))).toBe(false);
		expect(unwatched('/', {})).toContain(path.resolve(__dirname, '..', '..'));
	});
});
