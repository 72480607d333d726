/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * docs/architecture.md's worked example ("adding an endpoint"), followed as a reader follows it:
 * its numbered steps are read from the doc (the file each names, its code block or the code at
 * its end, and the array it names), made in a private scratch copy of the tracked tree, and the
 * copy must then pass what `npm test` runs on it: the format check and lint of the files made or
 * changed, the build, the type check, and the docs test (the operations tables and the README's
 * length). The built node must offer the new operation, and a re-run of it against the sandbox
 * must find its key's stored answer. Nothing of the example is written here: a change to the doc
 * is a change to what is tested.
 *
 * More of the suite runs in the copy when asked: `DOCS_EXAMPLE_JEST='test/unit test/integration'`
 * (Jest's arguments; this file is always left out) checks the doc's claim that every unit and
 * integration test passes after the five edits.
 */
import { spawnSync } from 'child_process';
import {
	chmodSync,
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	realpathSync,
	rmSync,
	symlinkSync,
} from 'fs';
import os from 'os';
import path from 'path';

import type { INodeProperties, INodePropertyOptions, INodeType } from 'n8n-workflow';

import { runInCopy } from '../harness/inCopy';
import { apply, DOC, TITLE, workedExample } from '../harness/workedExample';

const ROOT = path.resolve(__dirname, '../..');
/** What Jest runs in the copy: the docs test, or what DOCS_EXAMPLE_JEST names (given more time). */
const SUITES = process.env.DOCS_EXAMPLE_JEST ?? 'test/integration/docs.test.ts';
const JEST_MS = process.env.DOCS_EXAMPLE_JEST ? 1_800_000 : 120_000;

/** Runs a command in the copy; one that fails fails the test with its whole output. */
function mustPass(cwd: string, command: string, args: string[], timeoutMs = 120_000): void {
	const { status, ended, out } = runInCopy(cwd, command, args, timeoutMs);
	if (status !== 0)
		throw new Error(
			`\`${[command, ...args].join(' ')}\` exited with ${ended} in the scratch copy:\n${out}`,
		);
}

describe("docs/architecture.md's worked example, followed in a scratch copy", () => {
	const edits = workedExample(readFileSync(path.join(ROOT, DOC), 'utf8'));
	let scratch = '';

	beforeAll(() => {
		scratch = mkdtempSync(path.join(os.tmpdir(), 'worked-example-'));
		chmodSync(scratch, 0o700);
		const tracked = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
		for (const file of tracked.stdout.split('\0').filter(Boolean)) {
			if (!existsSync(path.join(ROOT, file))) continue;
			mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true });
			copyFileSync(path.join(ROOT, file), path.join(scratch, file));
		}
		symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(scratch, 'node_modules'));
		for (const edit of edits) apply(scratch, edit);
	});

	afterAll(() => {
		if (scratch) rmSync(scratch, { recursive: true, force: true });
	});

	it('reads five steps, each naming its file and its code', () => {
		expect(edits.map((e) => e.step)).toEqual([1, 2, 3, 4, 5]);
		expect(edits.filter((e) => /^nodes\/.*\.ts$/.test(e.file))).toHaveLength(2);
		// Planted: a step with no file is refused rather than skipped.
		expect(() => workedExample(`${TITLE}\n\n1. Add a line: \`x();\`\n`)).toThrow(/names no file/);
	});

	it('then the format check, the lint, the build and the type check pass', () => {
		const changed = edits.map((e) => e.file).filter((f) => f.endsWith('.ts'));
		// `npm run lint` is n8n's ESLint configuration, run twice over the whole package (the second
		// pass with test/eslint.config.mjs, the stricter); the files the example does not touch are
		// this run's own, linted by `npm test` already.
		const linted = changed.filter((f) => /^(nodes|credentials)\//.test(f));
		for (const [command, args] of [
			['npx', ['prettier', '--check', ...changed]],
			['npx', ['eslint', '-c', 'test/eslint.config.mjs', '--max-warnings', '0', ...linted]],
			['npm', ['run', 'build']],
			['npm', ['run', 'typecheck']],
		] as const) {
			mustPass(scratch, command, [...args]);
		}
	}, 240_000);

	it('the built node offers the new operation', () => {
		const step1 = edits.find((e) => e.file.endsWith('.operation.ts'))!;
		const key = path.basename(step1.file, '.operation.ts');
		const resource = path.basename(path.dirname(step1.file));
		const nodeFile = path.join(scratch, 'dist/nodes/MessagingCrm/MessagingCrm.node.js');
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- the copy's build, by its path
		const { MessagingCrm } = require(nodeFile) as { MessagingCrm: new () => INodeType };
		const values = new MessagingCrm().description.properties
			.filter(
				(p: INodeProperties) =>
					p.name === 'operation' && p.displayOptions?.show?.resource?.[0] === resource,
			)
			.flatMap((p) => (p.options as INodePropertyOptions[]).map((o) => o.value));
		expect(values).toContain(key);
	});

	it('in its barest configuration it answers from the sandbox, and a re-run of the same input is the stored answer (its key)', async () => {
		// The copy's own harness and sandbox: its dist, its new route, its barest configurations.
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- the copy's files, by their paths
		const copy = <T>(file: string) => require(path.join(scratch, file)) as T;
		const { startSandbox } = copy<typeof import('../sandbox/server')>('test/sandbox/server');
		const { runNode } = copy<typeof import('../harness/engine')>('test/harness/engine');
		const { barestParameters, barestWorld } =
			copy<typeof import('../harness/barest')>('test/harness/barest');
		const step1 = edits.find((e) => e.file.endsWith('.operation.ts'))!;
		const resource = path.basename(path.dirname(step1.file));
		const operation = path.basename(step1.file, '.operation.ts');
		const sandbox = await startSandbox();
		try {
			const parameters = {
				resource,
				operation,
				...barestParameters(barestWorld(sandbox))[`${resource}.${operation}`],
			};
			const credentials = { baseUrl: sandbox.url, apiKey: sandbox.mintKey() };
			sandbox.clearRequests();
			const runs = [
				await runNode({ parameters, credentials }),
				await runNode({ parameters, credentials }),
			];
			expect(runs.map((r) => [r.error?.message, r.items.length])).toEqual([
				[undefined, 1],
				[undefined, 1],
			]);
			const requests = sandbox.requests();
			expect(requests.map((r) => [r.status < 300, r.replayed === true])).toEqual([
				[true, false],
				[true, true],
			]);
			expect(requests[1].idempotencyKey).toBe(requests[0].idempotencyKey);
		} finally {
			await sandbox.stop();
		}
	}, 60_000);

	it(
		'then the docs test passes in the copy (the tables hold the new row; the README its length)',
		() => {
			mustPass(
				scratch,
				'npx',
				['jest', ...SUITES.split(/\s+/), '--testPathIgnorePatterns', '/docs-example\\.test\\.ts$'],
				JEST_MS,
			);
		},
		JEST_MS,
	);
});
