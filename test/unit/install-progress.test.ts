/* eslint-disable @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The first install of n8n prints a progress line every few seconds whatever its output is (npm's
 * own progress shows only on a terminal, and CI and `> file` are not one).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

import { runWithProgress } from '../e2e/n8n';

it('a long install step prints a progress line at each interval while it runs, with the time and how much fuller the disk is', async () => {
	const dir = mkdtempSync(path.join(tmpdir(), 'install-progress-'));
	// The step runs until the test has seen three progress lines (or 30 s, to end a broken ticker's
	// wait with a failure): how many lines a fixed time holds would follow this machine's load.
	const step = 'i=0; while [ ! -e done ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done';
	const lines: string[] = [];
	try {
		await runWithProgress(
			'sh',
			['-c', step],
			{ cwd: dir, stdio: 'ignore' },
			(l) => {
				lines.push(l);
				if (lines.length === 4) writeFileSync(path.join(dir, 'done'), '');
			},
			500,
		);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	expect(lines[0]).toBe(`$ sh -c ${step}`);
	const progress = lines.slice(1);
	expect(progress.length).toBeGreaterThanOrEqual(3);
	for (const line of progress)
		expect(line).toMatch(/^ {2}\.\.\. sh -c in .+: \d+ s, the disk \d+ MB fuller$/);
	const seconds = progress.map((line) => Number(/: (\d+) s,/.exec(line)?.[1]));
	expect(seconds).toEqual([...seconds].sort((a, b) => a - b));
});

it('a failing step rejects with its exit code', async () => {
	const dir = mkdtempSync(path.join(tmpdir(), 'install-progress-'));
	try {
		await expect(
			runWithProgress('sh', ['-c', 'exit 3'], { cwd: dir, stdio: 'ignore' }, () => undefined),
		).rejects.toThrow('sh -c exit 3 failed with exit code 3');
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
