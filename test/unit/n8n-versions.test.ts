/**
 * The n8n releases the package is run in are set in one place (test/e2e/n8n.ts) and the docs name
 * them from there: every "n8n 2.x.y" or "n8n 1.x.y" in the README and docs/ is one of the two,
 * but where a line says a figure was measured in another release (docs/benchmarks.md says which
 * n8n its figures come from). Planted once: a stale release in a line, caught.
 */
import { readdirSync, readFileSync } from 'fs';
import path from 'path';

import { N8N_V1_VERSION, N8N_VERSION } from '../e2e/n8n';

const ROOT = path.resolve(__dirname, '..', '..');
const DOCS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter(
	(f) => f.endsWith('.md'),
);

/** "file:line: n8n X" for every release of n8n a text names that is not one of `tested`. */
function staleReleases(file: string, text: string, tested: string[]): string[] {
	const stale: string[] = [];
	text.split('\n').forEach((line, index) => {
		if (/\bmeasured (?:in|with|on)\b/i.test(line)) return;
		for (const [, version] of line.matchAll(/\bn8n\*{0,2}\s+\*{0,2}([12]\.\d+\.\d+)\b/g))
			if (!tested.includes(version)) stale.push(`${file}:${index + 1}: n8n ${version}`);
	});
	return stale;
}

describe('the n8n releases the docs name', () => {
	it('are the ones test/e2e/n8n.ts runs', () => {
		const tested = [N8N_VERSION, N8N_V1_VERSION];
		const stale = DOCS.flatMap((file) =>
			staleReleases(file, readFileSync(path.join(ROOT, file), 'utf8'), tested),
		);
		expect(stale).toEqual([]);
	});

	it('a stale release is caught (planted)', () => {
		expect(staleReleases('README.md', 'a real n8n 2.40.7 on port 5678', ['2.41.1'])).toEqual([
			'README.md:1: n8n 2.40.7',
		]);
		expect(
			staleReleases('x.md', 'Versions tested: n8n **2.41.1** and **1.123.81**', ['2.41.1']),
		).toEqual([]);
	});
});
