/**
 * The throughput figure of the benchmarks and the queue-mode e2e test: accepted requests per full
 * rate window. The queue e2e printed 120.2 % of the limit once: its key's window had begun with a
 * poll of the trigger before the measured requests, so windows counted from the first measured
 * request straddled two of the server's.
 */
import { perFullWindow } from '../harness/windows';

const WINDOW = 6000;

/** 120 accepted requests per server window, evenly spread, windows beginning at `starts`. */
function serverLog(starts: number[], perWindow: number[]) {
	return starts.flatMap((start, w) =>
		Array.from({ length: perWindow[w] }, (_, i) => ({
			at: Math.max(0, start) + (i * (start < 0 ? WINDOW + start : WINDOW)) / perWindow[w],
			status: 200,
			windowStart: start,
		})),
	);
}

describe('perFullWindow', () => {
	it('by the server windows: per server window, leaving out one that began before the log and the last', () => {
		// The key's window began 3 s before the first measured request (a poll used it first).
		const log = serverLog([-3000, 3000, 9000, 15000], [120, 120, 120, 10]);
		expect(perFullWindow(log, WINDOW, 'server')).toBe(120);
		expect(() => perFullWindow([{ at: 0, status: 200 }], WINDOW, 'server')).toThrow(
			'no server windows',
		);
	});

	it('planted: the same requests counted from the first request (as the queue test did) read above the limit', () => {
		const log = serverLog([-3000, 3000, 9000, 15000], [120, 120, 120, 10]);
		expect(perFullWindow(log, WINDOW)).toBeGreaterThan(120);
	});

	it('from the first request, as the benchmarks count (their logs carry server windows too)', () => {
		const log = serverLog([0, 6000, 12000], [100, 110, 5]);
		expect(perFullWindow(log, WINDOW)).toBe(105);
	});
});
