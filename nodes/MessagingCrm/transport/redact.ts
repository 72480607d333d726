/**
 * Removes the credential's API key from whatever a server answers, before it becomes text in an
 * error, an output item or a dropdown. A proxy, a debug page or a misconfigured gateway may echo
 * the request's headers; nothing of that may reach n8n. Pure: the key is passed in, never kept.
 */

export const REDACTED = '[redacted]';

/** Shorter secrets are not searched for: redacting them would mangle ordinary text. */
const MIN_SECRET = 6;
/** A piece of the key cut off at the start or end of a text is removed down to this length. */
const MIN_PIECE = 6;

// An echoed Authorization header, whatever it holds: `authorization: Bearer x`,
// `"Authorization":"Basic x"`, `\"authorization\": \"x\"`, `authorization=x`.
const AUTH_HEADER =
	/(authorization(?:\\*["'])?\s*[:=]\s*(?:\\*["'])?)(?:(bearer|basic|token|digest|apikey)\s+)?([^\s"'\\,;}<&]+)/gi;
// A bearer token anywhere, as it would be in an echoed header line.
const BEARER = /\b(bearer)(\s+|%20|\+)([A-Za-z0-9._~+/=%-]{6,})/gi;

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The forms a key takes in echoed text: bare, JSON-escaped (once, twice), URL-encoded. */
export function secretVariants(secret: string): string[] {
	if (secret.length < MIN_SECRET) return [];
	const jsonOnce = JSON.stringify(secret).slice(1, -1);
	const jsonTwice = JSON.stringify(jsonOnce).slice(1, -1);
	const encoded = encodeURIComponent(secret);
	const variants = new Set([
		secret,
		jsonOnce,
		jsonTwice,
		encoded,
		encoded.toLowerCase(),
		encodeURI(secret),
	]);
	// Longest first, so that a longer form is replaced whole before a shorter one inside it.
	return [...variants].sort((a, b) => b.length - a.length);
}

export interface Redactor {
	/** The key (and, with `headers`, any echoed Authorization value) replaced by `[redacted]`. */
	text(value: string, options?: { headers?: boolean }): string;
	/** The same over every string, and every key, of a JSON-like value; other values unchanged. */
	value<T>(value: T, options?: { headers?: boolean }): T;
	/** Whether a text holds the key in any of its forms. */
	holds(value: string): boolean;
}

export function redactor(secret: string): Redactor {
	const variants = secretVariants(secret);
	const pattern = variants.length ? new RegExp(variants.map(escapeRegExp).join('|'), 'g') : null;

	/** A piece of the key at the very end (a cut snippet) or the very start of a text. */
	const trimPieces = (value: string): string => {
		let out = value;
		for (const variant of variants) {
			for (let n = variant.length - 1; n >= MIN_PIECE; n--) {
				if (out.endsWith(variant.slice(0, n))) {
					out = out.slice(0, out.length - n) + REDACTED;
					break;
				}
			}
			for (let n = variant.length - 1; n >= MIN_PIECE; n--) {
				if (out.startsWith(variant.slice(variant.length - n))) {
					out = REDACTED + out.slice(n);
					break;
				}
			}
		}
		return out;
	};

	const text = (value: string, options: { headers?: boolean } = {}): string => {
		let out = pattern ? value.replace(pattern, REDACTED) : value;
		if (options.headers) {
			out = out
				.replace(
					AUTH_HEADER,
					(_m, lead: string, scheme: string | undefined) =>
						`${lead}${scheme ? `${scheme} ` : ''}${REDACTED}`,
				)
				.replace(BEARER, (m, word: string, gap: string, token: string) =>
					token === REDACTED ? m : `${word}${gap}${REDACTED}`,
				);
		}
		return variants.length ? trimPieces(out) : out;
	};

	const value = <T>(input: T, options: { headers?: boolean } = {}): T => {
		const walk = (node: unknown): unknown => {
			if (typeof node === 'string') return text(node, options);
			if (Array.isArray(node)) return node.map(walk);
			if (node && typeof node === 'object' && Object.getPrototypeOf(node) === Object.prototype) {
				const out: Record<string, unknown> = {};
				for (const [k, v] of Object.entries(node)) out[text(k, options)] = walk(v);
				return out;
			}
			return node;
		};
		return walk(input) as T;
	};

	const holds = (input: string): boolean =>
		pattern ? new RegExp(pattern.source).test(input) : false;

	return { text, value, holds };
}
