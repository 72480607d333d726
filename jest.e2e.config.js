/** End-to-end tests against a real n8n (see test/e2e). Run by `npm run test:e2e`. */
/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	testTimeout: 600000,
	maxWorkers: 1,
	reporters: ['default', '<rootDir>/test/harness/summary-reporter.js'],
};
