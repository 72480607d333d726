/**
 * Accepted requests per full rate window, the last (partial) one left out, or all of them when
 * none is full. `fromFirstRequest` (the benchmarks' figures): windows counted from the first
 * request of the log. `server`: the server's own windows, as the sandbox logs them (`windowStart`),
 * leaving out one that began before the log, since another client (a trigger's poll) may have
 * used it first; the queue-mode e2e test, whose key a polling trigger shares, reads it so.
 */
export function perFullWindow(
	log: Array<{ at: number; status: number; windowStart?: number }>,
	windowMs: number,
	windows: 'fromFirstRequest' | 'server' = 'fromFirstRequest',
): number {
	const ok = log.filter((r) => r.status > 0 && r.status < 400);
	if (ok.length === 0) return 0;
	const t0 = log[0].at;
	const buckets = new Map<number, number>();
	for (const r of ok) {
		if (windows === 'server' && r.windowStart === undefined)
			throw new Error('The log has no server windows (windowStart)');
		const index = windows === 'server' ? r.windowStart! : Math.floor((r.at - t0) / windowMs);
		buckets.set(index, (buckets.get(index) ?? 0) + 1);
	}
	const last = Math.max(...buckets.keys());
	const full = [...buckets.entries()]
		.filter(([k]) => k < last && (windows === 'fromFirstRequest' || k >= t0))
		.map(([, v]) => v);
	const counts = full.length ? full : [...buckets.values()];
	return counts.reduce((a, b) => a + b, 0) / counts.length;
}
