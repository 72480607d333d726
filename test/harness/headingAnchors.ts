/** GitHub's anchor for a Markdown heading. */
export const slug = (heading: string) =>
	heading
		.trim()
		.toLowerCase()
		.replace(/[^\w\- ]/g, '')
		.replace(/ /g, '-');

/** The anchors of a Markdown text's headings (levels 1 to 4), as GitHub makes them. */
export function anchorsOf(markdown: string): Set<string> {
	return new Set([...markdown.matchAll(/^#{1,4} (.+)$/gm)].map((m) => slug(m[1])));
}
