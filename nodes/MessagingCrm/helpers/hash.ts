import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

/** JSON with object keys sorted, so that the same data always hashes the same. */
export function canonical(value: unknown): string {
	// As JSON writes it (a Date as its ISO string), so that data hashes the same before and after
	// n8n stores it (a Retry, a queue-mode worker, the editor read run data back from JSON).
	const toJSON = (value as { toJSON?: unknown } | null)?.toJSON;
	if (typeof toJSON === 'function') return canonical(toJSON.call(value));
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (value && typeof value === 'object') {
		const entries = Object.entries(value as IDataObject)
			.filter(([, v]) => v !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
	}
	return JSON.stringify(value ?? null);
}

/** The SHA-256 of the canonical JSON, in hex. */
export function hashOf(value: unknown): string {
	return createHash('sha256').update(canonical(value)).digest('hex');
}
