/**
 * What one node run (n8n's context object) keeps for itself: made on first use, gone with the run,
 * so that nothing outlives it into a second execution or another worker's.
 */
export function perRun<T>(cache: WeakMap<object, T>, ctx: object, make: () => T): T {
	let value = cache.get(ctx);
	if (value === undefined) {
		value = make();
		cache.set(ctx, value);
	}
	return value;
}
