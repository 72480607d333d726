import { readdirSync, readFileSync, statSync } from 'fs';
import path from 'path';

import { assertNoSecret, PACKAGE_ROOT } from '../harness/n8n';

describe('the API key never appears', () => {
	it('the check used on every node run fails when the key is planted once', () => {
		const key = 'mcrm_test_planted_secret_123456';
		expect(() => assertNoSecret(key, { json: { ok: true } }, new Error('clean'))).not.toThrow();
		expect(() => assertNoSecret(key, { json: { nested: [{ header: `Bearer ${key}` }] } })).toThrow(/leaked/);
		const error = new Error('boom');
		error.stack = `Error: boom\n    at request (Authorization: Bearer ${key})`;
		expect(() => assertNoSecret(key, error)).toThrow(/leaked/);
	});

	it('is in no committed artefact: benchmark results, workflows, screenshots metadata, docs', () => {
		const roots = ['test/bench/results', 'test/e2e/workflows', 'README.md', 'test/sandbox/README.md'].map((p) => path.join(PACKAGE_ROOT, p));
		const files: string[] = [];
		const walk = (p: string) => {
			try {
				if (statSync(p).isDirectory()) readdirSync(p).forEach((f) => walk(path.join(p, f)));
				else files.push(p);
			} catch {
				// not there yet (e.g. no benchmark run): nothing to scan
			}
		};
		roots.forEach(walk);
		for (const file of files) {
			const text = readFileSync(file, 'utf8');
			// Minted sandbox keys all start with mcrm_test_; none may be written down anywhere.
			expect({ file, leaked: /mcrm_test_[A-Za-z0-9_-]{8,}/.test(text) }).toEqual({ file, leaked: false });
		}
	});
});
