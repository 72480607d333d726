/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

import { assertNoSecret, PACKAGE_ROOT } from '../harness/engine';

/** Minted sandbox keys all start with mcrm_test_; none may be written down anywhere committed. */
const SANDBOX_KEY = /mcrm_test_[A-Za-z0-9_-]{8,}/;

/**
 * Scans each root (a folder or a file) for sandbox keys; returns the files scanned per root and
 * those that hold a key. A root that is missing or empty is an error, not a silent pass.
 */
function scan(roots: string[]): { counts: Record<string, number>; leaking: string[] } {
	const counts: Record<string, number> = {};
	const leaking: string[] = [];
	for (const root of roots) {
		const files: string[] = [];
		const walk = (p: string) => {
			if (statSync(p).isDirectory()) readdirSync(p).forEach((f) => walk(path.join(p, f)));
			else files.push(p);
		};
		walk(root);
		if (files.length === 0) throw new Error(`Nothing to scan in ${root}`);
		counts[path.relative(PACKAGE_ROOT, root) || root] = files.length;
		for (const file of files) if (SANDBOX_KEY.test(readFileSync(file, 'utf8'))) leaking.push(file);
	}
	return { counts, leaking };
}

describe('the API key never appears', () => {
	it('the check used on every node run fails when the key is planted once, in any form', () => {
		const key = 'mcrm_test_planted/secret+123456';
		expect(() => assertNoSecret(key, { json: { ok: true } }, new Error('clean'))).not.toThrow();
		expect(() => assertNoSecret(key, { json: { nested: [{ header: `Bearer ${key}` }] } })).toThrow(
			/leaked/,
		);
		expect(() =>
			assertNoSecret(key, { json: { url: `?token=${encodeURIComponent(key)}` } }),
		).toThrow(/leaked/);
		expect(() => assertNoSecret(`${key}"`, JSON.stringify({ k: `${key}"` }))).toThrow(/leaked/); // JSON-escaped
		const error = new Error('boom');
		error.stack = `Error: boom\n    at request (Authorization: Bearer ${key})`;
		expect(() => assertNoSecret(key, error)).toThrow(/leaked/);
		const described = Object.assign(new Error('boom'), { description: `see ${key}` });
		expect(() => assertNoSecret(key, described)).toThrow(/leaked/);
		const caused = Object.assign(new Error('outer'), { cause: new Error(`inner ${key}`) });
		expect(() => assertNoSecret(key, caused)).toThrow(/leaked/);
		const withContext = Object.assign(new Error('ctx'), {
			context: { apiError: { message: key } },
		});
		expect(() => assertNoSecret(key, withContext)).toThrow(/leaked/);
	});

	it('is in no committed artefact: benchmark results, workflows, docs; every root has files to scan', () => {
		const roots = [
			'test/bench/results',
			'test/e2e/workflows',
			'README.md',
			'test/sandbox/README.md',
			'docs',
		].map((p) => path.join(PACKAGE_ROOT, p));
		const { counts, leaking } = scan(roots);
		expect(leaking).toEqual([]);
		expect(Object.keys(counts)).toHaveLength(roots.length);
		for (const n of Object.values(counts)) expect(n).toBeGreaterThan(0);
	});

	it('planted: a moved folder fails the scan instead of passing it, and a written key is found', () => {
		expect(() => scan([path.join(PACKAGE_ROOT, 'test/no-such-folder')])).toThrow();
		const empty = mkdtempSync(path.join(tmpdir(), 'secrets-empty-'));
		expect(() => scan([empty])).toThrow(/Nothing to scan/);
		const dir = mkdtempSync(path.join(tmpdir(), 'secrets-planted-'));
		writeFileSync(
			path.join(dir, 'results.json'),
			JSON.stringify({ key: 'mcrm_test_AbCdEf123456' }),
		);
		try {
			expect(scan([dir]).leaking).toHaveLength(1);
		} finally {
			rmSync(empty, { recursive: true, force: true });
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
