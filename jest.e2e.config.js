/** End-to-end tests against a real n8n (see test/e2e). Run by `npm run test:e2e`. */
/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	testTimeout: 600000,
	// Three files at a time on two cores (they mostly wait on n8n: docs/development.md), each on
	// its own ports (test/e2e/ports.ts), in the order the sequencer gives.
	maxWorkers: 3,
	testSequencer: '<rootDir>/test/harness/e2e-sequencer.js',
	// A private TMPDIR per run, checked empty at the end (test/harness/leftovers.js); Jest's own cache
	// in .cache/ rather than the system's temporary folder.
	globalSetup: '<rootDir>/test/harness/leftovers.setup.js',
	globalTeardown: '<rootDir>/test/harness/leftovers.teardown.js',
	cacheDirectory: '<rootDir>/.cache/jest',
	reporters: ['default', '<rootDir>/test/harness/summary-reporter.js'],
};
