/**
 * The answer page shows the message's Markdown as the bot messenger does (wait/markdown.ts): the
 * API's subset as HTML, everything else as text, nothing of the message's as a tag or a script.
 */
import { markdownToHtml } from '../../nodes/MessagingCrm/wait/markdown';

describe("the answer page's Markdown", () => {
	it.each([
		['**Tuesday at 10:00**', '<b>Tuesday at 10:00</b>'],
		['*soon* and ***now***', '<i>soon</i> and <b><i>now</i></b>'],
		['~~Monday~~ `B-12`', '<s>Monday</s> <code>B-12</code>'],
		// A loose marker of one kind beside markup of the other: the markup still counts.
		['*~~sale~~', '*<s>sale</s>'],
		['~**new**', '~<b>new</b>'],
		[
			'[the map](https://maps.example/?a=1&b="2")',
			'<a href="https://maps.example/?a=1&amp;b=&quot;2&quot;" rel="noopener noreferrer">the map</a>',
		],
	])('%s is shown as the messenger shows it', (markdown, html) => {
		expect(markdownToHtml(markdown)).toBe(`<p>${html}</p>`);
	});

	it.each([
		['** loose**', '** loose**'],
		['_underscore_ # heading > quote', '_underscore_ # heading &gt; quote'],
		['[run](javascript:alert(1))', '[run](javascript:alert(1))'],
		['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
		['**<img src=x onerror=alert(1)>**', '<b>&lt;img src=x onerror=alert(1)&gt;</b>'],
		['`<b>`', '<code>&lt;b&gt;</code>'],
	])('%s stays text, escaped', (markdown, html) => {
		expect(markdownToHtml(markdown)).toBe(`<p>${html}</p>`);
	});

	it('keeps line breaks, and a blank line starts a paragraph', () => {
		expect(markdownToHtml('Hi Anna!\nTuesday?\n\nThanks')).toBe(
			'<p>Hi Anna!<br>Tuesday?</p>\n<p>Thanks</p>',
		);
	});
});
