/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
import { spawnSync } from 'child_process';

/**
 * Runs a command in a private copy of the package, as from a terminal and at the lowest priority:
 * its exit code (or the signal that ended it) and all it printed.
 */
export function runInCopy(
	cwd: string,
	command: string,
	args: string[],
	timeoutMs = 120_000,
): { status: number | null; ended: string; out: string } {
	const env = { ...process.env };
	// As from a terminal: a Jest run inside is one of its own, not one of this run's workers, and
	// Jest's NODE_ENV=test turns eslint-plugin-n8n-nodes-base's rules to its own test fixtures.
	delete env.JEST_WORKER_ID;
	delete env.NODE_ENV;
	// At the lowest priority: Jest's other worker may be timing a pacer against the sandbox's
	// limiter (transport.test.ts), and a build beside it on two cores made that run late.
	const result = spawnSync('nice', ['-n', '19', command, ...args], {
		cwd,
		env,
		encoding: 'utf8',
		timeout: timeoutMs,
	});
	const out = `${result.stdout}${result.stderr}${result.error ?? ''}`;
	return { status: result.status, ended: String(result.status ?? result.signal), out };
}
