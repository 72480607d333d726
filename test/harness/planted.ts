/* eslint-disable @n8n/community-nodes/require-node-api-error -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * A safety check planted away: runs `test` with one of a class's own functions (the Pacer's, by
 * default) replaced, and puts it back when the test ends: at once for a test that returns nothing,
 * when its promise settles for one that returns a promise (await it), so that a test shows the
 * check it holds can fail.
 */
import { Pacer } from '../../nodes/MessagingCrm/transport/rateLimit';

export function planted(
	name: string,
	replacement: (...args: never[]) => unknown,
	test: () => void,
	of?: { prototype: object },
): void;
export function planted(
	name: string,
	replacement: (...args: never[]) => unknown,
	test: () => Promise<void>,
	of?: { prototype: object },
): Promise<void>;
export function planted(
	name: string,
	replacement: (...args: never[]) => unknown,
	test: () => void | Promise<void>,
	of: { prototype: object } = Pacer,
): void | Promise<void> {
	const proto = of.prototype as unknown as Record<string, unknown>;
	const original = proto[name];
	expect(typeof original).toBe('function');
	proto[name] = replacement;
	const restore = () => {
		proto[name] = original;
	};
	let result: void | Promise<void>;
	try {
		result = test();
	} catch (error) {
		restore();
		throw error;
	}
	if (result instanceof Promise) return result.finally(restore);
	restore();
}
