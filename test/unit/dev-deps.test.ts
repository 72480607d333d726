/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
import { readFileSync } from 'fs';
import path from 'path';

// Plain JavaScript: it runs before anything is installed (test/dev/deps.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { staleReason } = require('../dev/deps') as {
	staleReason: (lock: object, installed: object | undefined) => string | undefined;
};

const ROOT = path.resolve(__dirname, '../..');
const json = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as object;

describe('npm run dev and npm test install what they need themselves', () => {
	const lock = {
		packages: {
			'': { name: 'x' },
			'node_modules/jest': { version: '30.0.0' },
			'node_modules/@esbuild/darwin-arm64': { version: '0.25.0', optional: true },
		},
	};

	it('installs on a fresh clone, after a pull that changed a version, or when a package is gone', () => {
		expect(staleReason(lock, undefined)).toBe('nothing is installed yet');
		expect(staleReason(lock, { packages: { 'node_modules/jest': { version: '29.7.0' } } })).toBe(
			'jest is 29.7.0, the lockfile says 30.0.0',
		);
		expect(staleReason(lock, { packages: {} })).toBe('jest is not installed');
	});

	it("does nothing when node_modules matches the lockfile (another platform's optional binaries may be absent)", () => {
		expect(staleReason(lock, { packages: { 'node_modules/jest': { version: '30.0.0' } } })).toBe(
			undefined,
		);
		// This checkout, as npm ci left it.
		expect(staleReason(json('package-lock.json'), json('node_modules/.package-lock.json'))).toBe(
			undefined,
		);
	});

	it('is the first step of both commands', () => {
		const { scripts } = json('package.json') as { scripts: Record<string, string> };
		for (const name of ['dev', 'dev:queue', 'test'])
			expect(scripts[name]).toMatch(/(^|&& )node test\/dev\/deps\.js && /);
	});
});
