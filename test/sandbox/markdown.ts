/**
 * The per-messenger rendering of the spec's Markdown subset. Parsed: **bold**, *italic*,
 * ***bold italic***, ~~strike~~, `code`, [label](url). Everything else (underscore emphasis,
 * lists, tables, quotes, headings) is delivered literally. A marker only counts when glued to
 * the text on both sides.
 */

export type RenderGroup = 'bot' | 'bizchat' | 'plain';

export function renderGroup(messengerType: string): RenderGroup {
	if (['telegram', 'telegram_personal', 'web_widget'].includes(messengerType)) return 'bot';
	if (['whatsapp', 'whatsapp_personal'].includes(messengerType)) return 'bizchat';
	return 'plain';
}

type Token =
	| { kind: 'text'; text: string }
	| { kind: 'bold' | 'italic' | 'bolditalic' | 'strike' | 'code'; text: string }
	| { kind: 'link'; text: string; url: string };

const PATTERNS: Array<[RegExp, Token['kind']]> = [
	[/^`([^`\n]+)`/, 'code'],
	[/^\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/, 'link'],
	[/^\*\*\*([^\s*](?:[^*\n]*[^\s*])?)\*\*\*/, 'bolditalic'],
	[/^\*\*([^\s*](?:[^*\n]*[^\s*])?)\*\*/, 'bold'],
	[/^\*([^\s*](?:[^*\n]*[^\s*])?)\*/, 'italic'],
	[/^~~([^\s~](?:[^~\n]*[^\s~])?)~~/, 'strike'],
];

export function tokenize(input: string): Token[] {
	const tokens: Token[] = [];
	let text = '';
	let i = 0;
	while (i < input.length) {
		const rest = input.slice(i);
		let matched = false;
		for (const [regex, kind] of PATTERNS) {
			const m = regex.exec(rest);
			if (!m) continue;
			if (text) tokens.push({ kind: 'text', text });
			text = '';
			tokens.push(
				kind === 'link' ? { kind, text: m[1], url: m[2] } : ({ kind, text: m[1] } as Token),
			);
			i += m[0].length;
			matched = true;
			break;
		}
		if (!matched) {
			// A run of markers that opens nothing is text as a whole ("** loose**" stays literal).
			const run = /^(\*+|~+)/.exec(rest);
			const take = run ? run[0].length : 1;
			text += input.slice(i, i + take);
			i += take;
		}
	}
	if (text) tokens.push({ kind: 'text', text });
	return tokens;
}

const escapeHtml = (s: string) =>
	s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function render(markdown: string, group: RenderGroup): string {
	return tokenize(markdown)
		.map((t) => {
			if (group === 'bot') {
				const x = escapeHtml(t.text);
				switch (t.kind) {
					case 'bold':
						return `<b>${x}</b>`;
					case 'italic':
						return `<i>${x}</i>`;
					case 'bolditalic':
						return `<b><i>${x}</i></b>`;
					case 'strike':
						return `<s>${x}</s>`;
					case 'code':
						return `<code>${x}</code>`;
					case 'link':
						return `<a href="${escapeHtml(t.url)}">${x}</a>`;
					default:
						return x;
				}
			}
			if (group === 'bizchat') {
				switch (t.kind) {
					case 'bold':
						return `*${t.text}*`;
					case 'italic':
						return `_${t.text}_`;
					case 'bolditalic':
						return `*_${t.text}_*`;
					case 'strike':
						return `~${t.text}~`;
					case 'code':
						return `\`\`\`${t.text}\`\`\``;
					case 'link':
						return `${t.text}: ${t.url}`;
					default:
						return t.text;
				}
			}
			return t.kind === 'link' ? `${t.text}: ${t.url}` : t.text;
		})
		.join('');
}
