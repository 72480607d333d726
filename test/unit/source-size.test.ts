/**
 * No source file of the package is over 400 lines: a file that grows past it holds two concerns,
 * and the next reader should find each in a file of its own (docs/architecture.md).
 */
import { readdirSync, readFileSync } from 'fs';
import path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const LIMIT = 400;

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const file = path.join(dir, entry.name);
		if (entry.isDirectory()) return sources(file);
		return entry.name.endsWith('.ts') ? [file] : [];
	});
}

/** The files among `files` (path → text) over the limit, with their line counts. */
function oversized(files: Array<[string, string]>): string[] {
	return files
		.map(([file, text]) => [file, text.split('\n').length - (text.endsWith('\n') ? 1 : 0)] as const)
		.filter(([, lines]) => lines > LIMIT)
		.map(([file, lines]) => `${path.relative(ROOT, file)}: ${lines} lines`);
}

describe('source files', () => {
	it(`none under nodes/ or credentials/ is over ${LIMIT} lines`, () => {
		const files = ['nodes', 'credentials'].flatMap((d) => sources(path.join(ROOT, d)));
		expect(files.length).toBeGreaterThan(50);
		expect(oversized(files.map((f) => [f, readFileSync(f, 'utf8')]))).toEqual([]);
	});

	it('planted: a file of 401 lines is named', () => {
		const planted = path.join(ROOT, 'nodes/planted.ts');
		expect(oversized([[planted, 'x\n'.repeat(LIMIT + 1)]])).toEqual([
			'nodes/planted.ts: 401 lines',
		]);
		expect(oversized([[planted, 'x\n'.repeat(LIMIT)]])).toEqual([]);
	});
});
