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
	reporters: ['default', '<rootDir>/test/harness/summary-reporter.js'],
};
