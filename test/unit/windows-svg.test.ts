/**
 * The rate limit's picture (test/bench/windowsSvg.ts): each window's bar holds what the log says,
 * by whom and how answered.
 */
import { perWindowCounts, windowsSvg } from '../bench/windowsSvg';

const log = [
	...[true, true, true, false].map((ok) => ({ at: 0, client: 0, ok, window: 0 })),
	...[true, false, false].map((ok) => ({ at: 0, client: -1, ok, window: 0 })),
	{ at: 60_000, client: 1, ok: true, window: 1 },
	{ at: 60_001, client: -1, ok: true, window: 1 },
	// Refused before any window (a limiter stuck): not drawn.
	{ at: 0, client: 0, ok: false, window: -1 },
];

describe('the picture of a run’s rate limit, window by window', () => {
	it('counts each window’s requests as the node’s and the other client’s, accepted and refused', () => {
		expect(perWindowCounts(log)).toEqual([
			[3, 1, 1, 2],
			[1, 0, 1, 0],
		]);
	});

	it('draws a bar part for each count, named in its tooltip, and the limit', () => {
		const svg = windowsSvg(log, 120, 'A run & its windows');
		for (const part of [
			'window 1: 3 the node, accepted',
			'window 1: 1 the node, refused (429)',
			'window 1: 1 the other client, accepted',
			'window 1: 2 the other client, refused (429)',
			'window 2: 1 the node, accepted',
			'window 2: 1 the other client, accepted',
		])
			expect(svg).toContain(`<title>${part}</title>`);
		expect(svg.match(/<title>/g)).toHaveLength(6);
		expect(svg).toContain('A run &amp; its windows');
		expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
	});
});
