/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * n8n Cloud's verification as n8n's own tool checks it, in a private copy of what it reads
 * (package.json, eslint.config.mjs, tsconfig.json, nodes/, credentials/, icons/, and
 * test/eslint.config.mjs for `npm run lint`'s second pass): `n8n-node cloud-support` calls the
 * package eligible, and `n8n-node lint`, in strict mode, passes. Planted in the copy: a node file
 * that reads `process.env` fails `n8n-node lint` on n8n's rule; the same read behind an inline
 * disable, which n8n's default configuration honours, fails the second pass, as do a test file's
 * disable that disables nothing and an undefined name in JavaScript; an eslint.config.mjs with a
 * line added fails strict mode.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'fs';
import os from 'os';
import path from 'path';

import { runInCopy } from '../harness/inCopy';

const ROOT = path.resolve(__dirname, '../..');
const RULE = '@n8n/community-nodes/no-restricted-globals';
const PLANTED = 'nodes/MessagingCrm/Region.ts';
/** A colour's escape sequence: n8n-node lint has ESLint print in colour whatever the terminal. */
// eslint-disable-next-line no-control-regex -- the escape character is what is matched
const COLOUR = /\x1b\[[0-9;]*m/g;

/** Runs a command in the copy and returns its exit code and its output, colours removed. */
function run(cwd: string, command: string, args: string[]): { status: number | null; out: string } {
	const { status, out } = runInCopy(cwd, command, args);
	return { status, out: out.replace(COLOUR, '') };
}

describe("n8n's tool in a copy of the package: Cloud support, its lint, and what fails it", () => {
	let copy = '';
	const n8nNode = (...args: string[]) =>
		run(copy, path.join(copy, 'node_modules/.bin/n8n-node'), args);
	/** `npm run lint`'s second pass over some files of the copy. */
	const secondPass = (...files: string[]) =>
		run(copy, path.join(copy, 'node_modules/.bin/eslint'), [
			'-c',
			'test/eslint.config.mjs',
			'--max-warnings',
			'0',
			...files,
		]);

	beforeAll(() => {
		copy = mkdtempSync(path.join(os.tmpdir(), 'cloud-lint-'));
		for (const entry of [
			'package.json',
			'eslint.config.mjs',
			'tsconfig.json',
			'nodes',
			'credentials',
			'icons',
		])
			cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
		mkdirSync(path.join(copy, 'test'));
		cpSync(path.join(ROOT, 'test/eslint.config.mjs'), path.join(copy, 'test/eslint.config.mjs'));
		symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
	});

	afterAll(() => {
		if (copy) rmSync(copy, { recursive: true, force: true });
	});

	it('n8n-node cloud-support: strict mode, the default configuration file, eligible', () => {
		const { status, out } = n8nNode('cloud-support');
		expect(status).toBe(0);
		expect(out).toContain('Strict mode: enabled');
		expect(out).toContain('ESLint config: using default config');
		expect(out).toContain('Status: eligible for n8n Cloud verification');
	});

	it('n8n-node lint passes the package as it is', () => {
		const { status, out } = n8nNode('lint');
		expect({ status, out }).toMatchObject({ status: 0 });
	}, 120_000);

	it("planted: a node file that reads process.env fails n8n-node lint, on n8n's rule", () => {
		writeFileSync(
			path.join(copy, PLANTED),
			'export const region = process.env.MESSAGING_CRM_REGION;\n',
		);
		try {
			const { status, out } = n8nNode('lint');
			expect(status).not.toBe(0);
			expect(out).toContain(PLANTED);
			expect(out).toMatch(new RegExp(`restricted global 'process'.*${RULE}`));
			expect(out).toContain('n8n Cloud compatibility issues detected');
		} finally {
			unlinkSync(path.join(copy, PLANTED));
		}
	}, 120_000);

	it("planted: the same read behind an inline disable fails npm run lint's second pass", () => {
		writeFileSync(
			path.join(copy, PLANTED),
			`// eslint-disable-next-line ${RULE}\nexport const region = process.env.MESSAGING_CRM_REGION;\n`,
		);
		try {
			const { status, out } = secondPass(PLANTED);
			expect(status).not.toBe(0);
			expect(out).toContain("has no effect because you have 'noInlineConfig' setting");
			expect(out).toContain(RULE);
		} finally {
			unlinkSync(path.join(copy, PLANTED));
		}
	}, 120_000);

	it("planted: the tests' side of the second pass fails a disable that disables nothing and an undefined name in JavaScript", () => {
		const files = {
			'test/unit/stale.test.ts': `/* eslint-disable no-console -- a test's code, not the node's */\nexport const sum = 1 + 1;\n`,
			'test/dev/undefined.js': 'module.exports = () => notDefined;\n',
		};
		for (const [file, text] of Object.entries(files)) {
			mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
			writeFileSync(path.join(copy, file), text);
		}
		try {
			const { status, out } = secondPass(...Object.keys(files));
			expect(status).not.toBe(0);
			expect(out).toMatch(
				/Unused eslint-disable directive \(no problems were reported from 'no-console'\)/,
			);
			expect(out).toMatch(/'notDefined' is not defined\s+no-undef/);
		} finally {
			for (const file of Object.keys(files)) unlinkSync(path.join(copy, file));
		}
	}, 120_000);

	it('planted: an eslint.config.mjs with a line added fails strict mode before any lint', () => {
		const file = path.join(copy, 'eslint.config.mjs');
		cpSync(file, `${file}.kept`);
		writeFileSync(
			file,
			"import { config } from '@n8n/node-cli/eslint';\n\nexport default [{ ignores: ['test/**'] }, ...config];\n",
		);
		try {
			const { status, out } = n8nNode('lint');
			expect(status).not.toBe(0);
			expect(out).toContain('Strict mode violation');
		} finally {
			cpSync(`${file}.kept`, file);
			unlinkSync(`${file}.kept`);
		}
	});
});
