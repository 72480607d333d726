/**
 * Jest runs two end-to-end files at a time (jest.e2e.config.js): no two may listen on one port,
 * n8n's task brokers and queue mode's workers included (test/e2e/ports.ts).
 */
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
