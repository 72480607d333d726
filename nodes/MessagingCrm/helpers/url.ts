/** Pure checks on the credential's base URL. */

export function normalizeBaseUrl(raw: string): string {
	return raw.trim().replace(/\/+$/, '');
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
	return LOOPBACK_HOSTS.has(hostname.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** Returns a reason the base URL must not be used, or null when it is fine. */
export function baseUrlProblem(raw: string, allowPlainHttp: boolean): string | null {
	const value = normalizeBaseUrl(raw);
	if (!value) return 'The credential has no Base URL.';
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		return `The credential's Base URL "${value}" is not a valid address. Write it with its scheme, for example https://api.example.com/company/v1.`;
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return `The credential's Base URL must start with https:// (got "${url.protocol}").`;
	}
	if (url.username || url.password) {
		return "The credential's Base URL must not carry a user name or password; the API key authenticates.";
	}
	if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowPlainHttp) {
		return `The credential's Base URL uses plain http:// on ${url.hostname}, so the API key would travel in clear text. Use https://, or turn on "Allow Plain HTTP" in the credential if this network is trusted.`;
	}
	return null;
}

/**
 * Whether a value would be read as a dot segment (`.` or `..`, also written `%2e`, `.%2E` …) once
 * in a URL: URL parsers resolve those, so the request would go to another path.
 */
export function isDotSegment(value: string): boolean {
	return /^(?:\.|%2e){1,2}$/i.test(value);
}

/**
 * Encodes one path segment so that a value can never change the path: `/`, `?`, `#` and `%` stay
 * inside the segment, and a dot segment or an empty value is refused (inputs are checked earlier
 * with a message naming their field; this also stops an ID from the server that would bend a path).
 */
export function pathSegment(value: string): string {
	if (value === '' || isDotSegment(value)) {
		throw new Error(
			`${JSON.stringify(value)} cannot be a segment of a request path: it would change which endpoint is called`,
		);
	}
	return encodeURIComponent(value);
}
