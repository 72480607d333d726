/**
 * The trigger's state between polls, free of n8n and HTTP: what is stored, the request budget
 * of one poll, and the watched customers read in turn within it (deal and messenger events). Each family's own snapshots and events are in its folder's `state.ts` (pure too).
 * The poll reads, calls these, and only then stores the new state, so a failed poll changes
 * nothing.
 */
/**
 * What is stored between polls. Each family adds its own part in its `state.ts`
 * (`declare module '../state'`), under names saved states hold.
 */
export interface TriggerState {
	/** The configuration the state belongs to; another one starts from a new baseline. */
	config: string;
	/** The key's rate limit as last read from the headers. */
	rateLimit?: number;
}

/**
 * The state as stored. A state saved before `rotationStart` was named so holds it as `cursor`,
 * which is read as `rotationStart`.
 */
export function loadState(stored: unknown, config: string): TriggerState {
	if (!stored || typeof stored !== 'object') return { config };
	const { cursor, ...state } = stored as TriggerState & { cursor?: number };
	if (state.config !== config) return { config };
	return cursor !== undefined && state.rotationStart === undefined
		? { ...state, rotationStart: cursor }
		: state;
}

/** One event found by a poll, before the poll adds when it noticed it. */
export interface Emitted {
	event: string;
	[key: string]: unknown;
}

/** Requests a poll may spend: a share of the key's limit per window (at least 1). */
export function requestBudget(rateLimit: number | undefined, sharePercent: number): number {
	const limit = rateLimit && rateLimit > 0 ? rateLimit : 120;
	const share = Math.min(100, Math.max(1, sharePercent));
	return Math.max(1, Math.floor((limit * share) / 100));
}

/** Customers to read this poll: all when they fit the budget, otherwise a rotating window. */
export function planReads(
	customerIds: string[],
	from: number,
	budget: number,
): { read: string[]; nextStart: number; rotating: boolean } {
	const n = customerIds.length;
	const size = Math.max(1, Math.floor(budget));
	if (n <= size) return { read: [...customerIds], nextStart: 0, rotating: false };
	const start = ((from % n) + n) % n;
	const read: string[] = [];
	for (let i = 0; i < size; i++) read.push(customerIds[(start + i) % n]);
	return { read, nextStart: (start + size) % n, rotating: true };
}

/** Watched customer IDs from a list, a comma/line separated text or an array expression. */
export function parseCustomerIds(value: unknown): string[] {
	const raw = Array.isArray(value)
		? value.map((v) => String(v ?? ''))
		: String(value ?? '').split(/[\s,;]+/);
	return [...new Set(raw.map((v) => v.trim()).filter((v) => v !== ''))];
}
