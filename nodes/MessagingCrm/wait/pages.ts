/**
 * The pages a waiting message's links open: the approval's choice (one button that records it),
 * the free-text and custom forms, and what follows a press. Each names who asks (Sender Name) in
 * its heading. The message shows as the messenger showed it (markdown.ts); every other word that
 * comes from the workflow is escaped. Opening a link (a GET) only ever shows a page; the answer is
 * the form's POST, which a link preview never sends.
 *
 * One script of the page's own, allowed by its hash and nothing else (PAGE_SCRIPT), sends the
 * form itself, once, and shows what became of the answer whatever n8n answered: the node's own
 * page (recorded, or the form again with what is missing), or, when n8n answered before or instead
 * of the node (the question already answered or closed: its 409 JSON, its "No action required"
 * page, an error of the resume that lost to another answer), one of the outcomes the question page
 * carries in its templates. Without JavaScript the form posts as a plain form and the browser
 * shows whatever comes back.
 */
import { createHash } from 'crypto';

import type { FormField } from './config';
import { MAX_ANSWER_LENGTH } from './config';
import { escapeHtml, markdownToHtml } from './markdown';

/**
 * What a page says became of the answer: `question` (the page that asks), or after a press
 * `recorded`, `taken` (another answer was recorded first), `late` (the time to answer ran out),
 * `failed` (the answer did not arrive), `fault` (the page cannot be made now).
 */
export type Outcome = 'question' | 'recorded' | 'taken' | 'late' | 'failed' | 'fault';

/**
 * The page's one script. On a form's submit: once only (a second press does nothing, the button
 * is disabled and says so); the form goes by fetch to its own address; a page of the node's (a
 * `main` with `data-outcome`) is shown in place of the question. Otherwise n8n answered: a 5xx
 * (the resume failed, e.g. another answer's resume won) is looked into by opening the link again:
 * the question still asking means nothing was recorded (`failed`); anything else (and a 409, or
 * n8n's own page) means the question no longer takes answers: `late` past the deadline the links
 * carry (`data-until`), else `taken`. A fetch that fails: `failed`.
 */
export const PAGE_SCRIPT = [
	"const main=()=>document.querySelector('main');",
	"const own=async(r)=>new DOMParser().parseFromString(await r.text(),'text/html').querySelector('main[data-outcome]');",
	"const kept=(k)=>document.getElementById('outcome-'+k).content.querySelector('main');",
	'const show=(m)=>{const n=document.importNode(m,true);main().replaceWith(n);if(n.dataset.title)document.title=n.dataset.title;scrollTo(0,0)};',
	"document.addEventListener('submit',async(e)=>{",
	"const f=e.target;e.preventDefault();if(f.dataset.sent)return;f.dataset.sent='1';",
	"const b=f.querySelector('button');if(b){b.disabled=true;b.textContent='Sending…'}",
	"const until=Date.parse(main().dataset.until||'');let m=null;",
	"try{const r=await fetch(f.action,{method:'POST',body:new FormData(f)});m=await own(r);",
	"if(!m&&r.status>=500){m=await own(await fetch(f.action));if(m&&m.dataset.outcome==='question')m=kept('failed')}",
	"m=m||kept(Date.now()>until?'late':'taken')}catch(x){m=kept('failed')}",
	'show(m)});',
].join('');

/** The hash the page's Content-Security-Policy allows PAGE_SCRIPT by. */
export const PAGE_SCRIPT_HASH = `sha256-${createHash('sha256').update(PAGE_SCRIPT).digest('base64')}`;

/**
 * The headers every page goes with: HTML, no script but PAGE_SCRIPT, which may send its form back
 * here (connect-src) and nowhere else; nothing framed, forms post back here only.
 */
export const PAGE_HEADERS: Record<string, string> = {
	'Content-Type': 'text/html; charset=utf-8',
	'Content-Security-Policy': `default-src 'none'; script-src '${PAGE_SCRIPT_HASH}'; connect-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
	'Cache-Control': 'no-store',
	'X-Robots-Tag': 'noindex',
	'Referrer-Policy': 'no-referrer',
};

/** The heading when the node names nobody (Sender Name empty). */
export const NO_SENDER_HEADING = 'A question for you';

const STYLE = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1f2330;margin:0;padding:24px 16px}
main{max-width:480px;margin:0 auto;background:#fff;border-radius:12px;padding:24px;box-shadow:0 1px 4px rgba(0,0,0,.08)}
h1{font-size:1.1em;color:#3d5afe;margin:0 0 16px}h2{font-size:1.3em;margin:0 0 12px}p{line-height:1.5}label{display:block;font-weight:600;margin:16px 0 6px}
input,select,textarea{box-sizing:border-box;width:100%;font:inherit;padding:10px;border:1px solid #c9ccd4;border-radius:8px}
textarea{min-height:120px}button{margin-top:20px;width:100%;font:inherit;font-weight:600;padding:12px;border:0;border-radius:8px;background:#3d5afe;color:#fff;cursor:pointer}
button.decline{background:#5f6675}button:disabled{opacity:.6;cursor:default}.error{color:#b00020;font-weight:600}.required{color:#b00020}.hint{color:#5f6675;font-size:.9em;margin:4px 0 0}`;

/** Who asks, and until when the question takes answers (the deadline its links carry). */
export interface Asker {
	/** Sender Name: the company or agent asking; empty: NO_SENDER_HEADING. */
	sender: string;
	until?: Date;
}

/** The `main` of a page: who asks, then the body; its outcome and title for the script. */
function mainOf(outcome: Outcome, title: string, body: string, asker: Asker): string {
	const until = asker.until ? ` data-until="${asker.until.toISOString()}"` : '';
	const heading = escapeHtml(asker.sender || NO_SENDER_HEADING);
	return `<main data-outcome="${outcome}" data-title="${escapeHtml(title)}"${until}>
<h1>${heading}</h1>
${body}
</main>`;
}

/** What a page says after a press, by outcome: its title and its words. */
const AFTER: Record<Exclude<Outcome, 'question'>, { title: string; body: string }> = {
	recorded: {
		title: 'Thank you',
		body: '<h2>Thank you</h2>\n<p>Your answer was recorded. You can close this page now.</p>',
	},
	taken: {
		title: 'Already answered',
		body: '<h2>Someone already answered</h2>\n<p>This question was answered already, perhaps on another device. Your answer was not recorded.</p>',
	},
	late: {
		title: 'Too late to answer',
		body: '<h2>The time to answer has run out</h2>\n<p>This question no longer takes answers. Your answer was not recorded.</p>',
	},
	failed: {
		title: 'Not sent',
		body: '<h2>Your answer could not be sent</h2>\n<p>Nothing was recorded. <a href="">Open the question again</a> to try once more.</p>',
	},
	fault: {
		title: 'Not available',
		body: '<h2>This page is not available right now</h2>\n<p>Nothing was recorded. Please try the link again later.</p>',
	},
};

/** A tab's title: the page's, then who asks. */
const tabOf = (title: string, asker: Asker) =>
	asker.sender ? `${title} · ${asker.sender}` : title;

function page(outcome: Outcome, title: string, body: string, asker: Asker): string {
	const tab = tabOf(title, asker);
	// The question carries what the script may show instead of n8n's answer.
	const kept =
		outcome === 'question'
			? (['taken', 'late', 'failed'] as const)
					.map(
						(k) =>
							`<template id="outcome-${k}">${mainOf(k, tabOf(AFTER[k].title, asker), AFTER[k].body, asker)}</template>`,
					)
					.join('\n') + '\n'
			: '';
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(tab)}</title><style>${STYLE}</style></head>
<body>${mainOf(outcome, tab, body, asker)}
${kept}<script>${PAGE_SCRIPT}</script></body></html>`;
}

/** The approval: who asks, the question, and one button that records the choice the link named. */
export function choicePage(
	message: string,
	choice: { label: string; approved: boolean },
	asker: Asker,
): string {
	const kind = choice.approved ? 'approve' : 'decline';
	return page(
		'question',
		choice.label,
		`${markdownToHtml(message)}
<form method="post" enctype="multipart/form-data">
<input type="hidden" name="choice" value="${kind}">
<button type="submit" class="${kind}">${escapeHtml(choice.label)}</button>
</form>`,
		asker,
	);
}

/** The name of the form input for field `i`. */
export const fieldName = (i: number) => `field-${i}`;

/** Whether a field takes typed text, at most MAX_ANSWER_LENGTH characters of it. */
export const isTextField = (field: FormField) =>
	field.type === 'text' || field.type === 'textarea' || field.type === 'email';

/** The limit as the page states it: "2,000". */
export const MAX_ANSWER_WORDS = MAX_ANSWER_LENGTH.toLocaleString('en-US');

function input(field: FormField, i: number, value: string): string {
	const name = fieldName(i);
	const required = field.required ? ' required' : '';
	const placeholder = field.placeholder ? ` placeholder="${escapeHtml(field.placeholder)}"` : '';
	const limit = isTextField(field) ? ` maxlength="${MAX_ANSWER_LENGTH}"` : '';
	const hint = field.type === 'textarea' ? ` aria-describedby="${name}-hint"` : '';
	const attributes = `id="${name}" name="${name}"${required}${limit}${hint}${placeholder}`;
	if (field.type === 'textarea')
		return `<textarea ${attributes}>${escapeHtml(value)}</textarea>\n<p class="hint" id="${name}-hint">Up to ${MAX_ANSWER_WORDS} characters.</p>`;
	if (field.type === 'dropdown') {
		const options = ['', ...field.choices]
			.map((c) => {
				const selected = c === value ? ' selected' : '';
				return `<option value="${escapeHtml(c)}"${selected}>${escapeHtml(c)}</option>`;
			})
			.join('');
		return `<select ${attributes}>${options}</select>`;
	}
	const type = field.type === 'number' ? 'number" step="any' : field.type;
	return `<input type="${type}" ${attributes} value="${escapeHtml(value)}">`;
}

export interface FormPage {
	title: string;
	description: string;
	fields: FormField[];
	button: string;
	/** What was wrong with the last submission, and the values to show again. */
	error?: string;
	values?: string[];
}

/** A form (Free Text: one text area; Custom Form: the fields defined). */
export function formPage(form: FormPage, asker: Asker): string {
	const fields = form.fields
		.map((field, i) => {
			const star = field.required ? ' <span class="required">*</span>' : '';
			const value = form.values?.[i] ?? '';
			return `<label for="${fieldName(i)}">${escapeHtml(field.label)}${star}</label>\n${input(field, i, value)}`;
		})
		.join('\n');
	const title = form.title ? `<h2>${escapeHtml(form.title)}</h2>\n` : '';
	const error = form.error ? `<p class="error">${escapeHtml(form.error)}</p>\n` : '';
	return page(
		'question',
		form.title || 'Your answer',
		`${title}${markdownToHtml(form.description)}
${error}<form method="post" enctype="multipart/form-data">
${fields}
<button type="submit">${escapeHtml(form.button)}</button>
</form>`,
		asker,
	);
}

/** The page after a press (or instead of the question): what became of the answer. */
export function outcomePage(outcome: Exclude<Outcome, 'question'>, asker: Asker): string {
	return page(outcome, AFTER[outcome].title, AFTER[outcome].body, asker);
}
