/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * How dev.e2e.ts sees the ports of a process tree (test/dev/processes.ts, from /proc): a server on
 * every interface is told apart from one on loopback (planted here: the workers' health servers
 * listened on every interface before they were bound to 127.0.0.1).
 */
import { createServer } from 'net';
import type { Server } from 'net';

import { listening, portInUse, terminalLines } from '../dev/processes';

const listen = (host: string) =>
	new Promise<Server>((resolve) => {
		const server = createServer();
		server.listen(0, host, () => resolve(server));
	});
const portOf = (server: Server) => (server.address() as { port: number }).port;

it('names the address of each listening port of a process, loopback or every interface', async () => {
	const servers = await Promise.all(['127.0.0.1', '0.0.0.0', '::1', '::'].map(listen));
	const ports = servers.map(portOf);
	try {
		const mine = listening([process.pid]);
		expect(ports.map((port) => mine.find((l) => l.port === port)?.address)).toEqual([
			'127.0.0.1',
			'0.0.0.0',
			'[::1]',
			'[::]',
		]);
		expect(ports.every(portInUse)).toBe(true);
	} finally {
		await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
	}
	expect(ports.some(portInUse)).toBe(false);
});

describe("what npm run dev shows in the terminal of n8n's log", () => {
	it("a refused item with its code, an error line without its stack frames, a word after n8n's own terms, nothing else", () => {
		const refused =
			'Messaging CRM "Send welcome message", item 1 failed: no_peer (HTTP 409): The bot cannot write first';
		expect(terminalLines('n8n', refused)).toEqual([`[n8n] ${refused}`]);
		for (const line of [
			'Messaging CRM "Send", item 1 refused before any request: validation_error: Item 1: bad',
			'Messaging CRM "Send", item 1 refused before any message was sent: bizchat_window_closed: Item 1: closed',
			'Messaging CRM "Send", item 1 failed: Item 1: unforeseen',
		])
			expect(terminalLines('worker-1', line)).toEqual([`[worker-1] ${line}`]);
		expect(terminalLines('n8n', 'NodeApiError')).toEqual(['[n8n] NodeApiError']);
		expect(terminalLines('n8n', '    at toNodeApiError (/x/errors.js:199:19)')).toEqual([]);
		expect(terminalLines('main', 'Error: job stalled more than maxStalledCount')).toEqual([
			'[main] Error: job stalled more than maxStalledCount',
			expect.stringMatching(/^\[main\] \(n8n: the worker that ran this execution died/),
		]);
		expect(terminalLines('n8n', 'Editor is now accessible via:')).toEqual([]);
		expect(terminalLines('postgres', 'ERROR:  duplicate key')).toEqual([]);
		expect(terminalLines('postgres', 'FATAL:  the database system is shutting down')).toHaveLength(
			1,
		);
	});
});
