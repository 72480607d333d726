/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	testTimeout: 60000,
	maxWorkers: 2,
	setupFiles: ['<rootDir>/test/harness/jest.setup.js'],
	// A private TMPDIR per run, checked empty at the end (test/harness/leftovers.js); Jest's own cache
	// in .cache/ rather than the system's temporary folder.
	globalSetup: '<rootDir>/test/harness/leftovers.setup.js',
	globalTeardown: '<rootDir>/test/harness/leftovers.teardown.js',
	cacheDirectory: '<rootDir>/.cache/jest',
	reporters: ['default', '<rootDir>/test/harness/summary-reporter.js'],
};
