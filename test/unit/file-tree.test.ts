/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The tree stays easy to find one's way in: no source file of the package over 400 lines and no
 * file under test/ over 600 (a file past it holds two concerns, and the next reader should find
 * each in a file of its own), and no two files under test/ with the same name (a reader should tell
 * from a name which is which). docs/architecture.md and docs/development.md map them.
 */
import { readdirSync, readFileSync } from 'fs';
import path from 'path';

const ROOT = path.resolve(__dirname, '../..');

/** Files under `dir` whose names end with one of `endings`, outside folders of data. */
function files(dir: string, endings: string[]): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const file = path.join(dir, entry.name);
		if (entry.isDirectory())
			return ['results', 'screenshots', 'workflows'].includes(entry.name)
				? []
				: files(file, endings);
		return endings.some((e) => entry.name.endsWith(e)) ? [file] : [];
	});
}

/** The files among `texts` (path → text) over `limit` lines, with their line counts. */
function oversized(texts: Array<[string, string]>, limit: number): string[] {
	return texts
		.map(([file, text]) => [file, text.split('\n').length - (text.endsWith('\n') ? 1 : 0)] as const)
		.filter(([, lines]) => lines > limit)
		.map(([file, lines]) => `${path.relative(ROOT, file)}: ${lines} lines`);
}

/** Names that stand more than once among `paths`, with where. */
function sameNames(paths: string[]): string[] {
	const byName = new Map<string, string[]>();
	for (const p of paths) byName.set(path.basename(p), [...(byName.get(path.basename(p)) ?? []), p]);
	return [...byName.values()]
		.filter((where) => where.length > 1)
		.map((where) => where.map((p) => path.relative(ROOT, p)).join(' and '));
}

const read = (list: string[]) => list.map((f): [string, string] => [f, readFileSync(f, 'utf8')]);

describe('the file tree', () => {
	const sources = ['nodes', 'credentials'].flatMap((d) => files(path.join(ROOT, d), ['.ts']));
	const tests = files(path.join(ROOT, 'test'), ['.ts', '.js', '.json', '.md']);

	it('no source file under nodes/ or credentials/ is over 400 lines', () => {
		expect(sources.length).toBeGreaterThan(50);
		expect(oversized(read(sources), 400)).toEqual([]);
	});

	it('no file under test/ is over 600 lines', () => {
		expect(tests.length).toBeGreaterThan(100);
		expect(oversized(read(tests.filter((f) => f.endsWith('.ts'))), 600)).toEqual([]);
	});

	it('no two files under test/ have the same name', () => {
		expect(sameNames(tests.filter((f) => !f.endsWith('README.md')))).toEqual([]);
	});

	it('planted: a file one line over its limit is named, and two files of one name are', () => {
		const planted = path.join(ROOT, 'nodes/planted.ts');
		expect(oversized([[planted, 'x\n'.repeat(401)]], 400)).toEqual(['nodes/planted.ts: 401 lines']);
		expect(oversized([[planted, 'x\n'.repeat(400)]], 400)).toEqual([]);
		const twice = path.join(ROOT, 'test/harness/worker.ts');
		expect(sameNames([...tests, twice])).toEqual([
			'test/bench/worker.ts and test/harness/worker.ts',
		]);
	});
});
