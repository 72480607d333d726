/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * Jest runs two end-to-end files at a time (jest.e2e.config.js): no two may listen on one port,
 * n8n's task brokers and queue mode's workers included (test/e2e/ports.ts).
 */
import { readdirSync, readFileSync } from 'fs';
import path from 'path';

import { portsByFile, sharedPorts } from '../e2e/ports';

describe('the end-to-end files’ ports', () => {
	it('no port belongs to two files, the ports n8n derives included', () => {
		expect(sharedPorts()).toEqual([]);
		expect(Object.keys(portsByFile()).length).toBeGreaterThanOrEqual(9);
	});

	it('planted: queue mode back on its old main port (its workers on the AI Agent file’s) is found', () => {
		const files = portsByFile();
		const old = portsByFile();
		old.queue = old.queue.map((p) => p - 40);
		expect(sharedPorts({ ...files, queue: old.queue })).toEqual(
			expect.arrayContaining(['5740: agent, queue', '5741: agent, queue']),
		);
	});
});

/** Ports written into an end-to-end file's source instead of taken from the table. */
function portsInSource(source: string): string[] {
	const patterns = [/\bport\w*['"]?\s*[:=]\s*\d{4}\b/gi, /\[\s*N8N_(?:V1_)?VERSION\s*,\s*\d{4}\b/g];
	return patterns.flatMap((pattern) => source.match(pattern) ?? []);
}

describe('the end-to-end files take their ports from the table', () => {
	const folder = path.join(__dirname, '..', 'e2e');
	it.each(readdirSync(folder).filter((f) => f.endsWith('.e2e.ts')))('%s', (file) => {
		expect(portsInSource(readFileSync(path.join(folder, file), 'utf8'))).toEqual([]);
	});

	it('planted: a port written into a file, as retry.e2e.ts had builder’s, is found', () => {
		expect(portsInSource('const PORT = 5693;\nconst options = { port: 5694 };')).toHaveLength(2);
		expect(portsInSource("describe.each([\n\t[N8N_VERSION, 5740, '0'],")).toHaveLength(1);
	});
});
