/**
 * The loopback ports of the end-to-end files, in one table: Jest runs three files at a time
 * (jest.e2e.config.js), so no two files may listen on the same port.
 * test/unit/e2e-ports.test.ts checks that every port below, and every port n8n derives from them,
 * belongs to one file only.
 */

/** n8n's main process in each file (one per n8n version where a file runs 2.x and 1.x). */
export const N8N_PORTS = {
	cli: 5690,
	server: 5691,
	builder: 5693,
	sendAndWait: 5694,
	retry: 5695,
	agent: [5740, 5741],
	mcp: [5745, 5746],
} as const;

/** Queue mode: main, PostgreSQL and Redis (queue.ts derives the workers' ports from main's). */
export const QUEUE_PORTS = { main: 5760, pg: 5439, redis: 6390 } as const;

/** `npm run dev:queue` as dev.e2e.ts runs it: n8n's main, the sandbox, PostgreSQL, Redis. */
export const DEV_PORTS = { n8n: 5800, sandbox: 4080, pg: 5459, redis: 6409 } as const;

/** Each n8n also listens on its task broker: its own port plus 1000 (n8n.ts, n8nEnv). */
export const brokerOf = (port: number): number => port + 1000;

/** Queue mode's worker `i` beside a main on `main`: its health check, server and task broker (queue.ts). */
export function workerPorts(main: number, i: number) {
	return { health: main + 10 + i, server: main + 20 + i, broker: main + 1030 + i };
}

/** The ports a queue-mode stack with its main on `main` and `workers` workers listens on. */
export function queueStackPorts(main: number, workers = 2): number[] {
	const each = Array.from({ length: workers }, (_, i) => Object.values(workerPorts(main, i)));
	return [main, brokerOf(main), ...each.flat()];
}

/** Every port each end-to-end file listens on, by file. */
export function portsByFile(): Record<string, number[]> {
	const single = (ports: number | readonly number[]) =>
		[ports].flat().flatMap((p) => [p, brokerOf(p)]);
	const files: Record<string, number[]> = {};
	for (const [file, ports] of Object.entries(N8N_PORTS)) files[file] = single(ports);
	files.queue = [...queueStackPorts(QUEUE_PORTS.main), QUEUE_PORTS.pg, QUEUE_PORTS.redis];
	files.dev = [...queueStackPorts(DEV_PORTS.n8n), DEV_PORTS.sandbox, DEV_PORTS.pg, DEV_PORTS.redis];
	return files;
}

/** The ports that more than one file listens on, each with the files (none: files may run at once). */
export function sharedPorts(byFile = portsByFile()): string[] {
	const owners = new Map<number, string[]>();
	for (const [file, ports] of Object.entries(byFile)) {
		for (const port of new Set(ports)) owners.set(port, [...(owners.get(port) ?? []), file]);
	}
	return [...owners]
		.filter(([, files]) => files.length > 1)
		.map(([port, files]) => `${port}: ${files.join(', ')}`);
}
