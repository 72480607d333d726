/**
 * A safety check planted away: runs `test` with one of a class's own functions (the Pacer's, by
 * default) replaced, and puts it back, so that a test shows the check it holds can fail.
 */
import { Pacer } from '../../nodes/MessagingCrm/transport/rateLimit';

export function planted(
	name: string,
	replacement: (...args: never[]) => unknown,
	test: () => void,
	of: { prototype: object } = Pacer,
): void {
	const proto = of.prototype as unknown as Record<string, unknown>;
	const original = proto[name];
	expect(typeof original).toBe('function');
	proto[name] = replacement;
	try {
		test();
	} finally {
		proto[name] = original;
	}
}
