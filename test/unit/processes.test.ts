/**
 * How dev.e2e.ts sees the ports of a process tree (test/dev/processes.ts, from /proc): a server on
 * every interface is told apart from one on loopback (planted here: the workers' health servers
 * listened on every interface before they were bound to 127.0.0.1).
 */
import { createServer } from 'net';
import type { Server } from 'net';

import { listening, portInUse } from '../dev/processes';

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
