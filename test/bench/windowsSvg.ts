/**
 * A picture of one run's rate limit, window by window: the node's requests and the other client's,
 * accepted and refused, as stacked bars in plain SVG (no dependency). `npm run bench -- families`
 * writes it to docs/rate-limit-windows.svg from its first F1 member, for the user's page
 * (docs/retries-and-rate-limit.md).
 */
import type { ModelResult } from '../harness/rateModel';

/** Per server window: the node's accepted and refused requests, then the other client's. */
export function perWindowCounts(log: ModelResult['log']): number[][] {
	const last = Math.max(-1, ...log.map((e) => e.window));
	const counts = Array.from({ length: last + 1 }, () => [0, 0, 0, 0]);
	for (const e of log) {
		if (e.window < 0) continue;
		counts[e.window][(e.client < 0 ? 2 : 0) + (e.ok ? 0 : 1)]++;
	}
	return counts;
}

const PARTS = [
	{ name: 'the node, accepted', fill: '#2e7d32' },
	{ name: 'the node, refused (429)', fill: '#a5d6a7' },
	{ name: 'the other client, accepted', fill: '#1565c0' },
	{ name: 'the other client, refused (429)', fill: '#e53935' },
];

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** The SVG: one bar per window, its four parts stacked, the limit as a dashed line. */
export function windowsSvg(log: ModelResult['log'], limit: number, title: string): string {
	const counts = perWindowCounts(log);
	const most = Math.max(limit, ...counts.map((c) => c.reduce((a, b) => a + b, 0)));
	const [left, top, barW, gap, plotH] = [50, 40, 44, 16, 220];
	// Wide enough for the bars, the title and the legend (about 7 px a character at 12 to 14 px).
	const width = Math.max(left + counts.length * (barW + gap) + 20, left + title.length * 7.5, 320);
	const height = top + plotH + 40 + PARTS.length * 18;
	const y = (n: number) => top + plotH - (n / most) * plotH;
	const out = [
		`<svg xmlns="http://www.w3.org/2000/svg" width="${Math.ceil(width)}" height="${height}" font-family="sans-serif" font-size="12">`,
		`<text x="${left}" y="20" font-size="14">${escape(title)}</text>`,
		`<line x1="${left}" y1="${y(limit)}" x2="${width - 10}" y2="${y(limit)}" stroke="#555" stroke-dasharray="4 3"/>`,
		`<text x="4" y="${y(limit) + 4}">${limit}</text>`,
	];
	counts.forEach((c, w) => {
		const x = left + w * (barW + gap);
		let base = 0;
		c.forEach((n, i) => {
			if (n === 0) return;
			out.push(
				`<rect x="${x}" y="${y(base + n)}" width="${barW}" height="${y(base) - y(base + n)}" fill="${PARTS[i].fill}"><title>window ${w + 1}: ${n} ${PARTS[i].name}</title></rect>`,
			);
			base += n;
		});
		out.push(
			`<text x="${x + barW / 2}" y="${top + plotH + 16}" text-anchor="middle">${w + 1}</text>`,
		);
	});
	out.push(`<text x="${left}" y="${top + plotH + 32}">the server's windows</text>`);
	PARTS.forEach((p, i) => {
		const ly = top + plotH + 44 + i * 18;
		out.push(`<rect x="${left}" y="${ly}" width="12" height="12" fill="${p.fill}"/>`);
		out.push(`<text x="${left + 18}" y="${ly + 10}">${p.name}</text>`);
	});
	out.push('</svg>');
	return out.join('\n') + '\n';
}
