/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The worked example of docs/architecture.md ("adding an endpoint") as steps a program can make:
 * read from the doc's text, each the file it names and what goes into it. Used by
 * test/integration/docs-example.test.ts; `npx ts-node --transpile-only test/harness/workedExample.ts
 * <dir>` makes the steps in a copy of the tree at <dir> by hand.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import path from 'path';

export const DOC = 'docs/architecture.md';
export const TITLE = '**Worked example: adding an endpoint.**';

/** One step of the example: the file it names and what goes into it. */
export interface Edit {
	step: number;
	file: string;
	content: string;
	/** The array the content is one more element of (`customerRoutes`), when the step names one. */
	into?: string;
}

const PATH = /^[\w.-]+(\/[\w.-]+)*\.(ts|md)$/;

/**
 * The example's steps, from the doc's text: each numbered item names its file (the first code
 * span that is a path) and holds its content (its code block, or else its last code span).
 */
export function workedExample(markdown: string): Edit[] {
	const start = markdown.indexOf(TITLE);
	if (start < 0) throw new Error(`${DOC} has no "${TITLE}" paragraph`);
	const section = markdown.slice(start).split(/\n#{1,6} /)[0];
	const items: string[][] = [];
	let inList = false;
	for (const line of section.split('\n')) {
		if (/^\d+\. /.test(line)) {
			items.push([line]);
			inList = true;
		} else if (inList && (line === '' || line.startsWith('   ')))
			items[items.length - 1].push(line);
		else if (inList) inList = false;
	}
	return items.map((lines, index) => {
		const text = lines.join('\n');
		const step = Number(/^(\d+)\./.exec(text)![1]);
		const fence = /^ {3}```\w*\n([\s\S]*?)^ {3}```$/m.exec(text);
		const prose = fence ? text.replace(fence[0], '') : text;
		const spans = [...prose.matchAll(/``(.+?)``|`([^`\n]+)`/g)].map((m) => m[1] ?? m[2]);
		const file = spans.find((s) => PATH.test(s));
		if (step !== index + 1 || !file)
			throw new Error(`${DOC}, worked example, step ${index + 1} names no file: ${text}`);
		const content = fence
			? fence[1]
					.split('\n')
					.map((l) => l.replace(/^ {3}/, ''))
					.join('\n')
			: spans.filter((s) => s !== file).pop();
		if (!content) throw new Error(`${DOC}, worked example, step ${step} gives no code: ${text}`);
		const into = /\bin `([A-Za-z_$][\w$]*)`/.exec(prose)?.[1];
		return { step, file, content, ...(into ? { into } : {}) };
	});
}

/** A row added to the first table under "## Operations", in alphabetical order. */
function withRow(markdown: string, row: string): string {
	const lines = markdown.split('\n');
	const heading = lines.indexOf('## Operations');
	const header = lines.findIndex((l, i) => i > heading && l.startsWith('| '));
	if (heading < 0 || header < 0) throw new Error('no table under "## Operations"');
	let at = header + 2;
	while (lines[at]?.startsWith('| ') && lines[at].localeCompare(row) < 0) at++;
	lines.splice(at, 0, row);
	return lines.join('\n');
}

/** A step made in the tree at `root`, as the doc says: a new file, a row, an element or a line. */
export function apply(root: string, edit: Edit): void {
	const file = path.join(root, edit.file);
	if (!existsSync(file)) {
		mkdirSync(path.dirname(file), { recursive: true });
		writeFileSync(file, edit.content.endsWith('\n') ? edit.content : `${edit.content}\n`);
		return;
	}
	const before = readFileSync(file, 'utf8');
	let after: string;
	if (edit.file.endsWith('.md')) {
		after = withRow(before, edit.content);
	} else if (edit.into) {
		const opening = new RegExp(`^.*\\b${edit.into}\\b.*= \\[\\n`, 'm').exec(before);
		if (!opening) throw new Error(`step ${edit.step}: no "${edit.into} = [" in ${edit.file}`);
		const at = opening.index + opening[0].length;
		after = before.slice(0, at) + edit.content.replace(/\n*$/, '\n') + before.slice(at);
	} else {
		after = `${before.replace(/\n*$/, '\n')}${edit.content}\n`;
	}
	writeFileSync(file, after);
}

if (require.main === module) {
	const root = path.resolve(__dirname, '../..');
	const target = process.argv[2];
	if (!target) throw new Error('usage: workedExample.ts <copy of the tree>');
	for (const edit of workedExample(readFileSync(path.join(root, DOC), 'utf8'))) {
		apply(target, edit);
		console.log(`step ${edit.step}: ${edit.file}`);
	}
}
