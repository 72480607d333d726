/**
 * Accepted requests per full rate window. With the server's own windows in the log (the sandbox
 * records when each request's window began): per server window, leaving out one that began before
 * the log (another client, a poll, may have used it first) and the last one (partial). Without:
 * windows counted from the first request of the log, the last (partial) one left out. All of them
 * when none is full. Benchmarks and the queue-mode e2e test read throughput with it.
 */
export function perFullWindow(
	log: Array<{ at: number; status: number; windowStart?: number }>,
	windowMs: number,
): number {
	const ok = log.filter((r) => r.status > 0 && r.status < 400);
	if (ok.length === 0) return 0;
	const t0 = log[0].at;
	const serverWindows = ok.every((r) => r.windowStart !== undefined);
	const buckets = new Map<number, number>();
	for (const r of ok) {
		const index = serverWindows ? r.windowStart! : Math.floor((r.at - t0) / windowMs);
		buckets.set(index, (buckets.get(index) ?? 0) + 1);
	}
	const last = Math.max(...buckets.keys());
	const full = [...buckets.entries()]
		.filter(([k]) => k < last && (!serverWindows || k >= t0))
		.map(([, v]) => v);
	const counts = full.length ? full : [...buckets.values()];
	return counts.reduce((a, b) => a + b, 0) / counts.length;
}
