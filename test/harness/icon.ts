/**
 * What an icon must not draw: n8n marks a node's state with a small green check, a red cross or a
 * dot at the node's lower right corner, so an icon with a mark in a corner, or drawn in those
 * colours, looks as if the node had run (or failed) before it has. Reads the plain SVG the package
 * ships: rect, circle and path elements (a path's end points; an arc's bulge is not followed).
 */

/** The hue (0 to 360) and saturation (0 to 1) of a #rgb or #rrggbb colour. */
function hueOf(colour: string): { hue: number; saturation: number } | undefined {
	const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour);
	if (!m) return undefined;
	const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
	const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
	const max = Math.max(r, g, b);
	const d = max - Math.min(r, g, b);
	if (d === 0) return { hue: 0, saturation: 0 };
	const sector = max === r ? ((g - b) / d + 6) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
	return { hue: sector * 60, saturation: d / max };
}

type Box = [number, number, number, number];

/** The points a path visits (M, L, H, V, A and their relative forms, Z). */
function pathBox(d: string): Box | undefined {
	let x = 0;
	let y = 0;
	const xs: number[] = [];
	const ys: number[] = [];
	for (const [, command, args] of d.matchAll(/([MLHVAZmlhvaz])([^MLHVAZmlhvaz]*)/g)) {
		const n = (args.match(/-?\d*\.?\d+/g) ?? []).map(Number);
		const relative = command === command.toLowerCase();
		const step = { m: 2, l: 2, h: 1, v: 1, a: 7, z: 0 }[command.toLowerCase() as 'm'];
		for (let i = 0; step > 0 && i + step <= n.length; i += step) {
			const c = command.toLowerCase();
			if (c === 'h') x = (relative ? x : 0) + n[i];
			else if (c === 'v') y = (relative ? y : 0) + n[i];
			else {
				const [dx, dy] = c === 'a' ? [n[i + 5], n[i + 6]] : [n[i], n[i + 1]];
				x = (relative ? x : 0) + dx;
				y = (relative ? y : 0) + dy;
			}
			xs.push(x);
			ys.push(y);
		}
	}
	return xs.length
		? [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]
		: undefined;
}

function boxOf(name: string, a: Record<string, string>): Box | undefined {
	const n = (k: string) => Number(a[k] ?? 0);
	if (name === 'rect') return [n('x'), n('y'), n('x') + n('width'), n('y') + n('height')];
	if (name === 'circle')
		return [n('cx') - n('r'), n('cy') - n('r'), n('cx') + n('r'), n('cy') + n('r')];
	return name === 'path' ? pathBox(a.d ?? '') : undefined;
}

/** What in the icon could be taken for one of n8n's status marks; empty when nothing. */
export function statusMarkLookalikes(svg: string): string[] {
	const size = Number(/viewBox="0 0 ([\d.]+)/.exec(svg)?.[1] ?? 64);
	const corner = size * 0.3;
	const findings: string[] = [];
	for (const [tag, name] of svg.matchAll(/<(\w+)\b[^>]*>/g)) {
		if (name === 'svg') continue;
		const a = Object.fromEntries([...tag.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
		for (const colour of [a.fill, a.stroke].filter(Boolean)) {
			const h = hueOf(colour);
			if (h && h.saturation > 0.35 && (h.hue < 20 || h.hue > 340 || (h.hue > 80 && h.hue < 170)))
				findings.push(`${tag}: ${colour} is a colour of n8n's status marks (green, red)`);
		}
		const box = boxOf(name, a);
		if (!box) {
			findings.push(`${tag}: an element this check cannot place`);
			continue;
		}
		const [x1, y1, x2, y2] = box;
		if (x2 > size - corner && y2 > size - corner)
			findings.push(`${tag}: reaches into the lower right corner, where n8n draws its check`);
		const inside = (lowX: boolean, lowY: boolean) =>
			(lowX ? x2 <= corner : x1 >= size - corner) && (lowY ? y2 <= corner : y1 >= size - corner);
		if (inside(true, true) || inside(true, false) || inside(false, true))
			findings.push(`${tag}: a mark in a corner`);
	}
	return findings;
}
