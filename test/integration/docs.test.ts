/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The README and docs/ cannot drift from the node: the operations tables hold exactly the built
 * node's resources and operations, the trigger's table every event it offers, and every relative
 * link (as GitHub and npm render it) reaches a file and a heading. Docs, code and tests describe
 * the product as it is, for a reader who never saw it being made: no issue numbers, no work
 * sessions, no first cuts (history belongs in CHANGELOG.md, in release terms). Each check is also
 * run once on a planted mistake, to show it catches one.
 */
import { spawnSync } from 'child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'fs';
import path from 'path';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { exampleWorkflows } from '../e2e/setup';
import { anchorsOf } from '../harness/headingAnchors';
import { loadPackage, NODE_TYPE, PACKAGE_ROOT } from '../harness/engine';
import { TRIGGER_TYPE } from '../harness/triggerRuns';

const read = (file: string) => readFileSync(path.join(PACKAGE_ROOT, file), 'utf8');
const DOCS = ['README.md', ...readdirSync(path.join(PACKAGE_ROOT, 'docs')).map((f) => `docs/${f}`)];

/** "Resource / Operation" of every row of the first table under a heading. */
function tableRows(markdown: string, heading: string): string[] {
	const start = markdown.indexOf(`\n${heading}\n`);
	if (start < 0) return [];
	const section = markdown.slice(start + heading.length + 2).split(/\n#{1,2} /)[0];
	return section
		.split('\n')
		.filter((line) => line.startsWith('| ') && !/^\| (Resource|---)/.test(line))
		.map((line) => line.split(' | ').slice(0, 2).join(' / ').slice(2));
}

/** The built node's "Resource / Operation" pairs, as its dropdowns show them. */
async function nodeOperations(): Promise<string[]> {
	const type = (await loadPackage()).nodeTypes.getByNameAndVersion(NODE_TYPE, 1);
	const properties = type.description.properties;
	const resources = (properties.find((p) => p.name === 'resource')!.options ??
		[]) as INodePropertyOptions[];
	return properties
		.filter((p) => p.name === 'operation')
		.flatMap((selector) => {
			const resource = resources.find(
				(r) => r.value === selector.displayOptions?.show?.resource?.[0],
			)!.name;
			return ((selector.options ?? []) as INodePropertyOptions[]).map(
				(o) => `${resource} / ${o.name}`,
			);
		})
		.sort();
}

/** Every relative link of a Markdown file that does not reach a file, or a heading in it. */
function brokenLinks(file: string, markdown: string): string[] {
	const broken: string[] = [];
	for (const [, target] of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
		if (/^[a-z]+:/.test(target)) continue;
		const [where, anchor] = target.split('#');
		const resolved = where ? path.join(path.dirname(file), where) : file;
		const full = path.join(PACKAGE_ROOT, resolved);
		if (!existsSync(full)) {
			broken.push(`${file}: ${target} (no file)`);
			continue;
		}
		if (anchor === undefined) continue;
		const text = resolved === file ? markdown : readFileSync(full, 'utf8');
		if (!anchorsOf(text).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
	}
	return broken;
}

/**
 * Phrases that tell how the project was made rather than what the product is. Each is narrow
 * enough that the product's honest text does not meet it; the planted test below shows both.
 * Nothing is allowed by file or line: a phrase that must stay is reworded.
 */
const HISTORY: [string, RegExp][] = [
	// An issue or pull request by its number; not a verb with a count ("the pool will issue 3 codes").
	[
		'an issue or pull request number',
		/\b(?:issues?|pull requests?|PRs?) #?\d+\b(?!\s+(?:codes?|more|times?)\b)/i,
	],
	// A work session of the project: a stop (or session) named as this one, the last, the next, or
	// the one before.
	[
		'a work session',
		/\b(?:this|last|previous|next|earlier) stop(?:'s)?\b|\bthe stop before\b|\bearlier stops\b|\b(?:last|previous|earlier) session\b/i,
	],
	['a draft of a change', /\bfirst cut\b/i],
	// This package's releases by their place; a fact about another package's is worded "the last
	// release that installs" or "the last release of <package>".
	[
		'an earlier release of this package',
		/\b(?:last|previous) release\b(?! (?:that|of)\b)|\blast (?:two|three|\d+) releases\b/i,
	],
	['a build named by its age', /\b(?:earlier|previous|older|old) builds?\b/i],
	// "last time" for a work session before this one (after "as", "than" or "unlike", or closing
	// a clause); not "the last time the customer wrote".
	['"last time" for a work session', /\b(?:as|than|unlike) last time\b|\blast time[.,;:)]/i],
	['a pacer named by its age', /\b(?:previous|earlier|old|former) pacers?\b|\bpacer of then\b/i],
	// What the product did once, told of the product itself; not "a key used to sign".
	['a habit of the past', /\b(?:it|they|we) used to\b/i],
];

/** Every history phrase of a file, as "file:line: what it is: the phrase". */
function historyTalk(file: string, text: string): string[] {
	const found: string[] = [];
	text.split('\n').forEach((line, index) => {
		for (const [what, pattern] of HISTORY) {
			for (const [phrase] of line.matchAll(new RegExp(pattern.source, `${pattern.flags}g`)))
				found.push(`${file}:${index + 1}: ${what}: "${phrase}"`);
		}
	});
	return found;
}

/** Where history belongs, and what is not text of the project. */
const NOT_SCANNED = new Set(['CHANGELOG.md', 'package-lock.json']);
/** What .gitignore leaves out, for a copy of the tree without git. */
const UNTRACKED = new Set(['.git', 'node_modules', 'dist', '.cache', 'coverage']);

/**
 * Every file git tracks; in a copy of the tree without git (the worked example's scratch copy,
 * test/integration/docs-example.test.ts), every file but what .gitignore leaves out.
 */
function trackedFiles(): string[] {
	const top = spawnSync('git', ['rev-parse', '--show-toplevel'], {
		cwd: PACKAGE_ROOT,
		encoding: 'utf8',
	});
	if (top.status === 0 && realpathSync(top.stdout.trim()) === realpathSync(PACKAGE_ROOT)) {
		const git = spawnSync('git', ['ls-files', '-z'], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
		return git.stdout.split('\0').filter(Boolean);
	}
	const walk = (dir: string): string[] =>
		readdirSync(path.join(PACKAGE_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
			const file = dir ? `${dir}/${entry.name}` : entry.name;
			if (entry.isDirectory()) return UNTRACKED.has(entry.name) ? [] : walk(file);
			return entry.isFile() && !entry.name.endsWith('.log') ? [file] : [];
		});
	return walk('');
}

/** The text of every tracked file history is not kept in; binary files (a NUL byte) left out. */
function trackedTexts(): [string, string][] {
	return trackedFiles()
		.filter((file) => !NOT_SCANNED.has(file) && existsSync(path.join(PACKAGE_ROOT, file)))
		.map((file) => [file, readFileSync(path.join(PACKAGE_ROOT, file))] as const)
		.filter(([, bytes]) => !bytes.includes(0))
		.map(([file, bytes]) => [file, bytes.toString('utf8')]);
}

/** The names the README's "Example workflows" list gives, in its order. */
const exampleNames = (markdown: string) =>
	[...markdown.matchAll(/^\d\. \*\*(Example \d: [^*]+)\*\*/gm)].map((m) => m[1]);

describe('the README and docs/ agree with the node', () => {
	it("the README numbers and names the example workflows as the editor lists them (n8n's names, 1 to 8)", () => {
		const names = exampleWorkflows().map((w) => w.name);
		expect(names).toHaveLength(8);
		expect(exampleNames(read('README.md'))).toEqual(names);
		// Planted: a name the editor does not show is caught.
		const planted = read('README.md').replace(
			'Example 2: Restock a low pool',
			'Example 2: Restock',
		);
		expect(exampleNames(planted)).not.toEqual(names);
	});

	it("the README's and docs/operations.md's tables list exactly the node's operations", async () => {
		const operations = await nodeOperations();
		expect(operations.length).toBeGreaterThan(20);
		expect(tableRows(read('README.md'), '## Operations').sort()).toEqual(operations);
		expect(tableRows(read('docs/operations.md'), '## Operations').sort()).toEqual(operations);
		// Planted: a row dropped from the table is caught.
		const planted = read('README.md').replace(/\n\| Deal \| Close \|[^\n]*/, '');
		expect(tableRows(planted, '## Operations').sort()).not.toEqual(operations);
	});

	it("the README's trigger table names every event the trigger offers", async () => {
		const type = (await loadPackage()).nodeTypes.getByNameAndVersion(TRIGGER_TYPE, 1);
		const events = (type.description.properties as INodeProperties[])
			.filter((p) => /Events$/.test(p.name))
			.flatMap((p) => ((p.options ?? []) as INodePropertyOptions[]).map((o) => o.name));
		expect(events.length).toBeGreaterThanOrEqual(12);
		const missing = (readme: string) => {
			const table = readme.split('## Messaging CRM Trigger')[1].split('\n## ')[0];
			return events.filter((e) => !table.includes(e));
		};
		expect(missing(read('README.md'))).toEqual([]);
		// Planted: an event dropped from the table is named.
		expect(missing(read('README.md').replace('Deal Won, ', ''))).toEqual(['Deal Won']);
	});

	it.each(DOCS)('every relative link of %s reaches a file and a heading', (file) => {
		expect(brokenLinks(file, read(file))).toEqual([]);
	});

	it('the link check catches a missing file and a missing heading (planted)', () => {
		const planted = '[a](docs/nowhere.md) [b](docs/trigger.md#no-such-heading) [c](#credentials)';
		expect(brokenLinks('README.md', `${planted}\n## Credentials\n`)).toEqual([
			'README.md: docs/nowhere.md (no file)',
			'README.md: docs/trigger.md#no-such-heading (no such heading)',
		]);
	});

	it('the README stays a five-minute read', () => {
		expect(read('README.md').split('\n').length).toBeLessThanOrEqual(200);
	});
});

describe('docs, code and tests describe the product, not how it was made', () => {
	it('no tracked text file but CHANGELOG.md tells the history (issue numbers, work sessions, first cuts)', () => {
		const texts = trackedTexts();
		expect(texts.map(([file]) => file)).toEqual(
			expect.arrayContaining(['README.md', 'docs/queue-mode.md', 'test/integration/docs.test.ts']),
		);
		expect(texts.length).toBeGreaterThan(200);
		expect(texts.flatMap(([file, text]) => historyTalk(file, text))).toEqual([]);
	});

	it('the history check names the file and line of each phrase, and leaves product text alone (planted)', () => {
		// Built from pieces, so that this file does not hold the phrases it plants.
		const planted = [
			'// Paced as the pacer of the first' + ' cut was.',
			'// Waits for the reset, as issue' + ' 12 asked.',
			'// With this and the last' + " stop's pacer alike.",
			'// Beyond what they spent by this point last' + ' time, at their rate.',
			'// A state stored by an earlier' + ' build keeps its rotation.',
			'// (Last' + ' release: 7 answered 429.)',
			'// As the previous' + ' pacer did.',
			'// A stop (it used' + ' to print errors).',
		].join('\n');
		const found = historyTalk('nodes/x.ts', planted);
		expect(found.map((line) => line.replace(/: "[^"]*"$/, ''))).toEqual([
			'nodes/x.ts:1: a draft of a change',
			'nodes/x.ts:2: an issue or pull request number',
			'nodes/x.ts:3: a work session',
			'nodes/x.ts:4: "last time" for a work session',
			'nodes/x.ts:5: a build named by its age',
			'nodes/x.ts:6: an earlier release of this package',
			'nodes/x.ts:7: a pacer named by its age',
			'nodes/x.ts:8: a habit of the past',
		]);
		expect(found[1]).toBe(`nodes/x.ts:2: an issue or pull request number: "${'issue'} 12"`);
		const product = [
			'// The registry does not have it: the last release that installs is pinned.',
			'// Pinned to the last release of @aws-sdk/client-s3 the registry can install.',
			'// The pool will issue 3 codes; a disabled pool issues nothing.',
			'// Window Closing Soon counts from the last time the customer wrote.',
			'// Ctrl-C: this stops every process, and the stop frees every port.',
			'// A pacer that spreads every request; the other pacers of the key.',
			'// Issues of the API are reported to its owner; the chat session of a customer.',
			'// The key used to sign the request is never logged.',
		].join('\n');
		expect(historyTalk('nodes/x.ts', product)).toEqual([]);
	});
});
