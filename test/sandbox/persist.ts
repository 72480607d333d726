/**
 * The sandbox's state as text, so that `npm run dev` can keep its company across a restart: JSON
 * with Maps and Sets tagged. A pool's index by code is left out and rebuilt from its rows, which
 * it shares with them.
 */

export function encodeState(value: unknown): string {
	return JSON.stringify(value, (key, v: unknown) => {
		if (key === 'byCode') return undefined;
		if (v instanceof Map) return { $map: [...v] };
		if (v instanceof Set) return { $set: [...v] };
		return v;
	});
}

export function decodeState(text: string): unknown {
	return JSON.parse(text, (_key, v: unknown) => {
		if (v && typeof v === 'object' && '$map' in v) return new Map((v as { $map: [] }).$map);
		if (v && typeof v === 'object' && '$set' in v) return new Set((v as { $set: [] }).$set);
		return v;
	});
}
