/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * What is published: the `npm pack` tarball, unpacked, passes n8n's own verification scanner
 * (`@n8n/scan-community-package`'s analyzePackage, run as n8n runs it), holds only what n8n needs,
 * and agrees with the README, the CHANGELOG and the workflows that publish it.
 */
import { execFileSync } from 'child_process';
import {
	existsSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'fs';
import { tmpdir } from 'os';
import path from 'path';

import { parse } from 'yaml';

import type { WorkflowJson } from '../e2e/setup';
import {
	AGENT_WORKFLOW_ID,
	exampleWorkflow,
	exampleWorkflows,
	MCP_WORKFLOW_ID,
} from '../e2e/setup';
import { statusMarkLookalikes } from '../harness/icon';
import { PACKAGE_ROOT } from '../harness/engine';

const pkg = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
	version: string;
	name: string;
	homepage: string;
	bugs: { url: string };
	repository: { url: string };
	author: { name: string; email: string };
	license: string;
	n8n: { nodes: string[]; credentials: string[] };
	dependencies?: Record<string, string>;
};
const readme = readFileSync(path.join(PACKAGE_ROOT, 'README.md'), 'utf8');

/**
 * Runs the scanner's analyzePackage over a folder, in a child process (the scanner is ESM). The
 * child gets a temporary folder of its own, removed afterwards: the scanner makes a folder there
 * at import that it never removes, and ESLint keeps a compile cache there.
 */
function scan(dir: string): { passed: boolean; message?: string; details?: string } {
	const scanner = require.resolve('@n8n/scan-community-package/scanner/scanner.mjs');
	const script = `import(${JSON.stringify(scanner)}).then((m) => m.analyzePackage(${JSON.stringify(dir)})).then((r) => process.stdout.write(JSON.stringify({ passed: r.passed, message: r.message, details: r.details })))`;
	const temp = mkdtempSync(path.join(tmpdir(), 'scanner-'));
	try {
		return JSON.parse(
			execFileSync(process.execPath, ['-e', script], {
				encoding: 'utf8',
				maxBuffer: 64 * 1024 * 1024,
				env: { ...process.env, TMPDIR: temp },
			}),
		) as { passed: boolean; message?: string; details?: string };
	} finally {
		rmSync(temp, { recursive: true, force: true });
	}
}

function files(dir: string, base = dir): string[] {
	return readdirSync(dir).flatMap((f) => {
		const p = path.join(dir, f);
		return statSync(p).isDirectory() ? files(p, base) : [path.relative(base, p)];
	});
}

/** Runs of letters outside A to Z (accented Latin, other scripts); symbols and punctuation pass. */
function otherLetters(text: string): string[] {
	return text.match(/(?:(?![A-Za-z])\p{L})+/gu) ?? [];
}

describe('the published package', () => {
	let unpacked: string;
	let tarballBytes: number;
	/** The folders this file makes, removed when it ends. */
	const folders: string[] = [];
	const folder = (prefix: string) => {
		const dir = mkdtempSync(path.join(tmpdir(), prefix));
		folders.push(dir);
		return dir;
	};
	afterAll(() => {
		for (const dir of folders) rmSync(dir, { recursive: true, force: true });
	});

	beforeAll(() => {
		const out = folder('mcrm-pack-');
		const [info] = JSON.parse(
			execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
				cwd: PACKAGE_ROOT,
				encoding: 'utf8',
			}),
		) as Array<{ filename: string; size: number }>;
		tarballBytes = info.size;
		execFileSync('tar', ['xzf', path.join(out, info.filename), '-C', out]);
		unpacked = path.join(out, 'package');
	}, 120_000);

	it("passes n8n's verification scanner with no finding", () => {
		const result = scan(unpacked);
		expect({ passed: result.passed, details: result.details ?? result.message ?? '' }).toEqual({
			passed: true,
			details: '',
		});
	}, 120_000);

	it('planted: the scanner finds a declaration file tsc would emit beside the credential', () => {
		const planted = folder('mcrm-planted-');
		execFileSync('cp', ['-r', `${unpacked}/.`, planted]);
		// What tsc emits beside the credential with declarations on (tsconfig.build.json has them off).
		writeFileSync(
			path.join(planted, 'dist/credentials/MessagingCrmApi.credentials.d.ts'),
			[
				"import type { ICredentialType, INodeProperties } from 'n8n-workflow';",
				'export declare class MessagingCrmApi implements ICredentialType {',
				'    name: string;',
				'    displayName: string;',
				'    properties: INodeProperties[];',
				'}',
				'',
			].join('\n'),
		);
		const result = scan(planted);
		expect(result.passed).toBe(false);
		expect(result.details).toMatch(/cred-filename-against-convention/);
	}, 120_000);

	it('holds only what n8n needs: compiled nodes and credentials, icons, codex files, README, LICENSE, CHANGELOG, package.json', () => {
		const list = files(unpacked).sort();
		const unexpected = list.filter(
			(f) =>
				!/^dist\/(nodes|credentials)\/.+\.js$/.test(f) &&
				!/^dist\/nodes\/MessagingCrm\/MessagingCrm(Trigger)?\.node\.json$/.test(f) &&
				!/^dist\/icons\/[\w.-]+\.svg$/.test(f) &&
				// index.js: package.json's main, which npm always packs.
				!['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'index.js'].includes(f),
		);
		expect(unexpected).toEqual([]);
		for (const needed of [
			'package.json',
			'README.md',
			'LICENSE',
			'dist/nodes/MessagingCrm/MessagingCrm.node.js',
			'dist/nodes/MessagingCrm/MessagingCrmTrigger.node.js',
			'dist/credentials/MessagingCrmApi.credentials.js',
			'dist/icons/messagingCrm.svg',
			'dist/icons/messagingCrm.dark.svg',
		]) {
			expect(list).toContain(needed);
		}
		expect(list.filter((f) => f.endsWith('.d.ts') || f.endsWith('.map'))).toEqual([]);
		// Compressed size: small enough for any n8n to install quickly.
		expect(tarballBytes).toBeLessThan(200_000);
		console.log(`package: ${list.length} files, ${tarballBytes} bytes packed`);
	});
});

describe('the icons', () => {
	it.each(['messagingCrm.svg', 'messagingCrm.dark.svg'])(
		"%s draws nothing n8n's status marks could be taken for (no check, cross or dot in a corner, no green or red)",
		(file) => {
			expect(
				statusMarkLookalikes(readFileSync(path.join(PACKAGE_ROOT, 'icons', file), 'utf8')),
			).toEqual([]);
		},
	);

	it('planted: an icon with a green check at its lower right is caught', () => {
		const checked = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">
			<rect x="4" y="8" width="46" height="34" rx="8" fill="#2563eb"/>
			<circle cx="50" cy="46" r="11" fill="#16a34a"/>
			<path d="M45 46 l4 4 l7 -8" stroke="#ffffff" stroke-width="3" fill="none"/>
		</svg>`;
		const found = statusMarkLookalikes(checked);
		expect(found.filter((f) => f.startsWith('<circle'))).toHaveLength(2);
		expect(found.filter((f) => f.startsWith('<path'))).toEqual([
			expect.stringContaining('lower right corner'),
		]);
		expect(found.filter((f) => f.startsWith('<rect'))).toEqual([]);
		// A dot in the upper left corner, drawn in the icon's own blue.
		expect(
			statusMarkLookalikes(
				'<svg viewBox="0 0 64 64"><circle cx="6" cy="6" r="4" fill="#2563eb"/></svg>',
			),
		).toEqual([expect.stringContaining('a mark in a corner')]);
	});
});

/** The node ids of a workflow that are not UUIDs (n8n's PostgreSQL schema keeps 36 characters). */
function nonUuidNodeIds(workflow: { nodes: Array<{ id?: string; name: string }> }): string[] {
	const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
	return workflow.nodes.filter((n) => !uuid.test(n.id ?? '')).map((n) => `${n.name}: ${n.id}`);
}

describe('the example workflows', () => {
	const examples = exampleWorkflows();

	it.each(examples.map((w) => [w.name, w]))(
		"%s: every node id is a UUID (n8n's PostgreSQL schema keeps 36 characters)",
		(_name, workflow) => {
			expect(nonUuidNodeIds(workflow as WorkflowJson)).toEqual([]);
		},
	);

	it("the MCP server example's tools are the AI agent example's, node for node", () => {
		/** A workflow's Messaging CRM tools: name, parameters and credentials (ids and places differ). */
		const tools = (workflow: WorkflowJson) =>
			workflow.nodes
				.filter((n) => n.type.endsWith('messagingCrmTool'))
				.map(({ name, type, typeVersion, parameters, credentials }) =>
					JSON.stringify({ name, type, typeVersion, parameters, credentials }),
				);
		const agent = exampleWorkflow(AGENT_WORKFLOW_ID);
		expect(tools(exampleWorkflow(MCP_WORKFLOW_ID))).toEqual(tools(agent));
		expect(tools(agent)).toHaveLength(5);
		// Planted: a description changed in one of them is caught.
		const changed = exampleWorkflow(MCP_WORKFLOW_ID);
		changed.nodes[1].parameters.toolDescription = 'Finds someone.';
		expect(tools(changed)).not.toEqual(tools(agent));
	});

	it('planted: a 40-character node id is caught', () => {
		expect(
			nonUuidNodeIds({
				nodes: [{ name: 'Pool became low', id: '778690398923-0000-4000-8000-000000000000' }],
			}),
		).toEqual(['Pool became low: 778690398923-0000-4000-8000-000000000000']);
	});
});

describe('release hygiene', () => {
	it('package.json, CHANGELOG and README name one version', () => {
		const changelog = readFileSync(path.join(PACKAGE_ROOT, 'CHANGELOG.md'), 'utf8');
		expect(/^## (\d+\.\d+\.\d+)/m.exec(changelog)?.[1]).toBe(pkg.version);
		expect(readme).toContain(`The package is version **${pkg.version}**`);
	});

	it('repository, homepage and bugs point at one repository; author and license are set', () => {
		const repo = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
		expect(pkg.homepage).toBe(`${repo}#readme`);
		expect(pkg.bugs.url).toBe(`${repo}/issues`);
		expect(pkg.author.name).not.toBe('');
		expect(pkg.author.email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/);
		expect(pkg.license).toBe('MIT');
		expect(readFileSync(path.join(PACKAGE_ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
	});

	it("one service per package, as n8n's verification asks: one node and its trigger, one credential, no runtime dependency", () => {
		expect(pkg.n8n.nodes).toEqual([
			'dist/nodes/MessagingCrm/MessagingCrm.node.js',
			'dist/nodes/MessagingCrm/MessagingCrmTrigger.node.js',
		]);
		expect(pkg.n8n.credentials).toEqual(['dist/credentials/MessagingCrmApi.credentials.js']);
		expect(pkg.dependencies ?? {}).toEqual({});
	});

	it("the node's interface is written in the English alphabet: no letter outside A to Z in nodes/ or credentials/", () => {
		const sources = ['nodes', 'credentials'].flatMap((dir) =>
			files(path.join(PACKAGE_ROOT, dir))
				.filter((f) => /\.(ts|json)$/.test(f))
				.map((f) => `${dir}/${f}`),
		);
		expect(sources.length).toBeGreaterThan(50);
		const found = sources.flatMap((f) =>
			otherLetters(readFileSync(path.join(PACKAGE_ROOT, f), 'utf8')).map((l) => `${f}: ${l}`),
		);
		expect(found).toEqual([]);
		// Planted: a French label, and a word in another script, are caught; arrows and dashes pass.
		expect(otherLetters("displayName: 'Prénom du client' → 'Имя' – …")).toEqual(['é', 'Имя']);
	});

	it('every documentation link of the codex files and the credential points at a page of docs/ in the repository, without an anchor', () => {
		// n8n appends "?utm_source=…" to a node's docs link as text, after any anchor, which then
		// opens the top of the page instead: the links name whole pages.
		const repo = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
		const urls: string[] = [];
		for (const codex of ['MessagingCrm.node.json', 'MessagingCrmTrigger.node.json']) {
			const json = JSON.parse(
				readFileSync(path.join(PACKAGE_ROOT, 'nodes/MessagingCrm', codex), 'utf8'),
			) as { resources: Record<string, Array<{ url: string }>> };
			for (const list of Object.values(json.resources)) urls.push(...list.map((l) => l.url));
		}
		urls.push(
			/documentationUrl =\s*'([^']+)'/.exec(
				readFileSync(path.join(PACKAGE_ROOT, 'credentials/MessagingCrmApi.credentials.ts'), 'utf8'),
			)?.[1] ?? '',
		);
		expect(urls.length).toBeGreaterThanOrEqual(5);
		const page = (url: string) => {
			const match = new RegExp(`^${repo}/blob/main/(docs/[a-z-]+\\.md)$`).exec(url);
			return match !== null && existsSync(path.join(PACKAGE_ROOT, match[1]));
		};
		for (const url of urls) expect({ url, page: page(url) }).toEqual({ url, page: true });
		// Planted: an anchor, and a page that does not exist, are caught.
		expect(page(`${repo}/blob/main/docs/trigger.md#events`)).toBe(false);
		expect(page(`${repo}/blob/main/docs/nowhere.md`)).toBe(false);
	});

	it("the scripts that run Node's tools keep the tools' compile caches in .cache/, not the system's temporary folder", () => {
		const { scripts } = JSON.parse(
			readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8'),
		) as {
			scripts: Record<string, string>;
		};
		const prefix =
			'export NODE_COMPILE_CACHE=$PWD/.cache/node-compile-cache V8_COMPILE_CACHE_CACHE_DIR=$PWD/.cache/v8-compile-cache && ';
		const without = ['test', 'dev', 'dev:queue', 'test:e2e', 'bench'].filter(
			(name) => !scripts[name].startsWith(prefix),
		);
		expect(without).toEqual([]);
	});

	it("the GitHub workflows parse, run the README's commands, and publish with provenance and least privilege", () => {
		const ci = parse(readFileSync(path.join(PACKAGE_ROOT, '.github/workflows/ci.yml'), 'utf8')) as {
			on: Record<string, unknown>;
			jobs: Record<string, { steps: Array<{ run?: string }> }>;
		};
		const publish = parse(
			readFileSync(path.join(PACKAGE_ROOT, '.github/workflows/publish.yml'), 'utf8'),
		) as {
			on: { push: { tags: string[] } };
			permissions: Record<string, string>;
			jobs: Record<
				string,
				{
					permissions: Record<string, string>;
					steps: Array<{ run?: string; env?: Record<string, string> }>;
				}
			>;
		};
		expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
		const ciRuns = Object.values(ci.jobs).flatMap((j) => j.steps.map((s) => s.run ?? ''));
		for (const command of ['npm ci', 'npm test', 'npm run test:e2e']) {
			expect(ciRuns).toContain(command);
			expect(readme).toContain(command);
		}
		expect(publish.on.push.tags).toEqual(['*.*.*']);
		expect(publish.permissions).toEqual({ contents: 'read' });
		const [job] = Object.values(publish.jobs);
		expect(job.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
		const release = job.steps.find((s) => s.run === 'npm run release');
		expect(release?.env?.NPM_CONFIG_PROVENANCE).toBe('true');
		expect(readFileSync(path.join(PACKAGE_ROOT, 'docs/development.md'), 'utf8')).toContain(
			'npm run release',
		);
	});
});
