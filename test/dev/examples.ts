/**
 * Which example workflows a dev home still lacks. A home's ready file lists the examples it was
 * given; a home made before the list was kept holds a date there, and n8n itself is asked.
 * Examples the home was given and then deleted are not brought back.
 */

/** The ready file's text for a home given these examples. */
export const readyText = (examples: string[]): string =>
	`${JSON.stringify({ examples: [...examples].sort() })}\n`;

/** The examples a ready file lists, or undefined when it predates the list (or cannot be read). */
export function recordedExamples(text: string): string[] | undefined {
	try {
		const parsed = JSON.parse(text) as { examples?: unknown };
		const { examples } = parsed;
		return Array.isArray(examples) && examples.every((id) => typeof id === 'string')
			? examples
			: undefined;
	} catch {
		return undefined;
	}
}

/** The examples to import: those neither recorded nor, for a home without a record, in n8n. */
export async function examplesToImport<T extends { id: string }>(
	examples: T[],
	ready: string,
	inN8n: () => Promise<string[]>,
): Promise<T[]> {
	const had = new Set(recordedExamples(ready) ?? (await inN8n()));
	return examples.filter((example) => !had.has(example.id));
}
