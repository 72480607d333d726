/**
 * The README and docs/ cannot drift from the node: the operations tables hold exactly the built
 * node's resources and operations, the trigger's table every event it offers, and every relative
 * link (as GitHub and npm render it) reaches a file and a heading. Each check is also run once on
 * a planted mistake, to show it catches one.
 */
import { existsSync, readdirSync, readFileSync } from 'fs';
import path from 'path';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { exampleWorkflows } from '../e2e/setup';
import { anchorsOf } from '../harness/markdown';
import { loadPackage, NODE_TYPE, PACKAGE_ROOT, TRIGGER_TYPE } from '../harness/n8n';

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

/** The names the README's "Example workflows" list gives, in its order. */
const exampleNames = (markdown: string) =>
	[...markdown.matchAll(/^\d\. \*\*(Example \d: [^*]+)\*\*/gm)].map((m) => m[1]);

describe('the README and docs/ agree with the node', () => {
	it("the README numbers and names the example workflows as the editor lists them (n8n's names, 1 to 7)", () => {
		const names = exampleWorkflows().map((w) => w.name);
		expect(names).toHaveLength(7);
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
