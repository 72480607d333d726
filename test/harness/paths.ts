import type { LoggedRequest } from '../sandbox/server';

/**
 * Throws unless every request stayed inside the API's paths: it matched an endpoint, and its raw
 * target (as sent, before the sandbox normalised it) holds no dot segment, encoded or not, and no
 * empty segment. Used by the fuzz test over every request it makes.
 */
export function assertInsideApi(requests: LoggedRequest[]): void {
	for (const r of requests) {
		const rawPath = r.target.split('?')[0];
		const segments = rawPath.split('/').slice(1);
		const bent = segments.some((s) => s === '' || /^(?:\.|%2e){1,2}$/i.test(s));
		if (!r.route || bent || rawPath !== r.path) {
			throw new Error(
				`A request left the API's paths: ${r.method} ${r.target} (routed as ${r.route ?? 'nothing'})`,
			);
		}
	}
}
