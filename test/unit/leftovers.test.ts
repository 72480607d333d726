/**
 * The guard of every test run (test/harness/leftovers.js, Jest's globalTeardown): what it reports
 * when a run leaves files behind. Planted here: a leftover credentials file holding a key, an empty
 * folder, a log; and a folder holding nothing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { leftovers, describeLeftovers } = require('../harness/leftovers') as {
	leftovers: (dir: string) => Array<{ file: string; holdsKey: boolean }>;
	describeLeftovers: (found: Array<{ file: string; holdsKey: boolean }>) => string;
};

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
