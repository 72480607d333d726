/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The n8n releases the package is run in are set in one place (test/e2e/n8n.ts) and the docs name
 * them from there: every "n8n 2.x.y" or "n8n 1.x.y" in the README and docs/ is one of the two,
 * but where a line says a figure was measured in another release (docs/benchmarks.md says which
 * n8n its figures come from). Planted once: a stale release in a line, caught.
 *
 * Each of the two has its lockfile kept in test/e2e/n8n-locks/, which installs that release and
 * names no registry (npm adds the tarballs' addresses from its own setting at install time).
 * Planted: a lockfile of another release, and one that names a tarball's address, caught.
 */
import { readdirSync, readFileSync } from 'fs';
import path from 'path';

import { lockedVersion, N8N_V1_VERSION, N8N_VERSION, n8nLockFile, withTarballs } from '../e2e/n8n';

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

/** What is wrong with the kept lockfile `text` for n8n `version`: [] when nothing. */
function lockProblems(version: string, text: string): string[] {
	const lock = JSON.parse(text) as {
		packages: Record<string, { dependencies?: Record<string, string>; resolved?: string }>;
	};
	const problems: string[] = [];
	if (lock.packages['']?.dependencies?.n8n !== version)
		problems.push(`installs n8n ${String(lock.packages['']?.dependencies?.n8n)}`);
	if (lockedVersion(text, 'n8n') !== version)
		problems.push(`locks n8n ${String(lockedVersion(text, 'n8n'))}`);
	const named = Object.keys(lock.packages).filter((where) => lock.packages[where].resolved);
	if (named.length) problems.push(`names the tarballs of ${named.length} packages`);
	return problems;
}

describe('the kept lockfiles of the n8n releases', () => {
	const kept = (version: string) => readFileSync(n8nLockFile(version), 'utf8');

	it.each([N8N_VERSION, N8N_V1_VERSION])(
		'n8n %s has one that installs it and names no registry',
		(version) => {
			expect(lockProblems(version, kept(version))).toEqual([]);
		},
	);

	it('a lockfile of another release, or one that names its tarballs, is caught (planted)', () => {
		expect(lockProblems('2.41.2', kept(N8N_VERSION))).toEqual([
			'installs n8n 2.41.1',
			'locks n8n 2.41.1',
		]);
		expect(
			lockProblems(N8N_VERSION, withTarballs(kept(N8N_VERSION), 'https://registry.example/')),
		).toEqual([expect.stringMatching(/^names the tarballs of \d+ packages$/)]);
	});

	it('at install time, each package gets its tarball on the registry npm is set to use', () => {
		const lock = JSON.stringify({
			packages: {
				'': { dependencies: { n8n: '2.41.1' } },
				'node_modules/n8n': { version: '2.41.1' },
				'node_modules/@n8n/db': { version: '1.2.3' },
				'node_modules/a/node_modules/b': { version: '0.1.0' },
				'node_modules/string-width-cjs': { name: 'string-width', version: '4.2.3' },
				'node_modules/linked': { link: true },
				'node_modules/p/node_modules/bundled': { version: '2.0.0', inBundle: true },
			},
		});
		const packages = (
			JSON.parse(withTarballs(lock, 'https://registry.example')) as {
				packages: Record<string, { resolved?: string }>;
			}
		).packages;
		expect(Object.fromEntries(Object.entries(packages).map(([k, v]) => [k, v.resolved]))).toEqual({
			'': undefined,
			'node_modules/n8n': 'https://registry.example/n8n/-/n8n-2.41.1.tgz',
			'node_modules/@n8n/db': 'https://registry.example/@n8n/db/-/db-1.2.3.tgz',
			'node_modules/a/node_modules/b': 'https://registry.example/b/-/b-0.1.0.tgz',
			'node_modules/string-width-cjs':
				'https://registry.example/string-width/-/string-width-4.2.3.tgz',
			'node_modules/linked': undefined,
			'node_modules/p/node_modules/bundled': undefined,
		});
		expect(lockedVersion(lock, '@n8n/db')).toBe('1.2.3');
		expect(lockedVersion(lock, 'b')).toBeUndefined();
	});
});
