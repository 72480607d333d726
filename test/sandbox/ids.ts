import { createHash, randomUUID } from 'crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: unknown): value is string =>
	typeof value === 'string' && UUID.test(value);

/** A stable UUID (version 5 layout) for demo data, so that demo ids survive a restart. */
export function stableId(name: string): string {
	const h = createHash('sha1').update(`messaging-crm-sandbox:${name}`).digest('hex');
	const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const newId = (): string => randomUUID();
