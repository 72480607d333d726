/**
 * The message's Markdown as the answer page shows it: the API's subset (api-spec, Messages: bold,
 * italic, bold italic, strikethrough, inline code, links to http(s) addresses), as the bot
 * messenger shows it. Everything else is text, escaped: no tag, attribute or script of the
 * message's reaches the page. A marker counts only when it touches the text on both sides.
 */

export function escapeHtml(value: string): string {
	return value.replace(
		/[&<>"']/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
	);
}

/** Text between markers: not starting or ending with a space or the marker, on one line. */
const inner = (marker: string) => `([^\\s${marker}](?:[^${marker}\\n]*[^\\s${marker}])?)`;

/** Each markup at the current position (sticky), first match wins, and its HTML. */
const MARKUP: Array<[RegExp, (m: RegExpExecArray) => string]> = [
	[/`([^`\n]+)`/y, (m) => `<code>${escapeHtml(m[1])}</code>`],
	[
		/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/y,
		(m) => `<a href="${escapeHtml(m[2])}" rel="noopener noreferrer">${escapeHtml(m[1])}</a>`,
	],
	[new RegExp(`\\*\\*\\*${inner('*')}\\*\\*\\*`, 'y'), (m) => `<b><i>${escapeHtml(m[1])}</i></b>`],
	[new RegExp(`\\*\\*${inner('*')}\\*\\*`, 'y'), (m) => `<b>${escapeHtml(m[1])}</b>`],
	[new RegExp(`\\*${inner('*')}\\*`, 'y'), (m) => `<i>${escapeHtml(m[1])}</i>`],
	[new RegExp(`~~${inner('~')}~~`, 'y'), (m) => `<s>${escapeHtml(m[1])}</s>`],
];

/** One line of the message as HTML. */
function line(text: string): string {
	let html = '';
	let at = 0;
	scan: while (at < text.length) {
		for (const [pattern, toHtml] of MARKUP) {
			pattern.lastIndex = at;
			const m = pattern.exec(text);
			if (m) {
				html += toHtml(m);
				at = pattern.lastIndex;
				continue scan;
			}
		}
		// A run of markers that opens nothing is text as a whole ("** loose**" stays as typed).
		const run = /\*+|~+/y;
		run.lastIndex = at;
		const end = run.test(text) ? run.lastIndex : at + 1;
		html += escapeHtml(text.slice(at, end));
		at = end;
	}
	return html;
}

/** The message as paragraphs (a blank line between), its line breaks kept. */
export function markdownToHtml(text: string): string {
	return text
		.trim()
		.split(/\n{2,}/)
		.map((p) => `<p>${p.split('\n').map(line).join('<br>')}</p>`)
		.join('\n');
}
