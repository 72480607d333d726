/**
 * The pages a waiting message's links open: the approval's choice (one button that records it),
 * the free-text and custom forms, and what follows a press. The message shows as the messenger
 * showed it (markdown.ts); every other word that comes from the workflow is escaped. Opening a
 * link (a GET) only ever shows a page; the answer is the form's POST, which a link preview never
 * sends. One script of the page's own, allowed by its hash and nothing else, keeps a form from
 * being sent twice: once pressed, the button is disabled.
 */
import { createHash } from 'crypto';

import type { FormField } from './config';
import { escapeHtml, markdownToHtml } from './markdown';

/** The page's one script: a form goes once; its button, once pressed, is disabled and says so. */
export const ONCE_SCRIPT =
	"for(const f of document.forms)f.addEventListener('submit',(e)=>{if(f.dataset.sent){e.preventDefault();return}f.dataset.sent='1';const b=f.querySelector('button');if(b){b.disabled=true;b.textContent='Sending…'}});";

/** The hash the page's Content-Security-Policy allows ONCE_SCRIPT by. */
export const ONCE_SCRIPT_HASH = `sha256-${createHash('sha256').update(ONCE_SCRIPT).digest('base64')}`;

/**
 * The headers every page goes with: HTML, no script but ONCE_SCRIPT, nothing framed, forms post
 * back here only.
 */
export const PAGE_HEADERS: Record<string, string> = {
	'Content-Type': 'text/html; charset=utf-8',
	'Content-Security-Policy': `default-src 'none'; script-src '${ONCE_SCRIPT_HASH}'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
	'Cache-Control': 'no-store',
	'X-Robots-Tag': 'noindex',
	'Referrer-Policy': 'no-referrer',
};

const STYLE = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1f2330;margin:0;padding:24px 16px}
main{max-width:480px;margin:0 auto;background:#fff;border-radius:12px;padding:24px;box-shadow:0 1px 4px rgba(0,0,0,.08)}
h1{font-size:1.3em;margin:0 0 12px}p{line-height:1.5}label{display:block;font-weight:600;margin:16px 0 6px}
input,select,textarea{box-sizing:border-box;width:100%;font:inherit;padding:10px;border:1px solid #c9ccd4;border-radius:8px}
textarea{min-height:120px}button{margin-top:20px;width:100%;font:inherit;font-weight:600;padding:12px;border:0;border-radius:8px;background:#3d5afe;color:#fff;cursor:pointer}
button.decline{background:#5f6675}button:disabled{opacity:.6;cursor:default}.error{color:#b00020;font-weight:600}.required{color:#b00020}`;

function page(title: string, body: string): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main><script>${ONCE_SCRIPT}</script></body></html>`;
}

/** The approval: the question, and one button that records the choice the link named. */
export function choicePage(message: string, choice: { label: string; approved: boolean }): string {
	const kind = choice.approved ? 'approve' : 'decline';
	return page(
		choice.label,
		`${markdownToHtml(message)}
<form method="post" enctype="multipart/form-data">
<input type="hidden" name="choice" value="${kind}">
<button type="submit" class="${kind}">${escapeHtml(choice.label)}</button>
</form>`,
	);
}

/** The name of the form input for field `i`. */
export const fieldName = (i: number) => `field-${i}`;

function input(field: FormField, i: number, value: string): string {
	const name = fieldName(i);
	const required = field.required ? ' required' : '';
	const placeholder = field.placeholder ? ` placeholder="${escapeHtml(field.placeholder)}"` : '';
	const attributes = `id="${name}" name="${name}"${required}${placeholder}`;
	if (field.type === 'textarea') return `<textarea ${attributes}>${escapeHtml(value)}</textarea>`;
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
export function formPage(form: FormPage): string {
	const fields = form.fields
		.map((field, i) => {
			const star = field.required ? ' <span class="required">*</span>' : '';
			const value = form.values?.[i] ?? '';
			return `<label for="${fieldName(i)}">${escapeHtml(field.label)}${star}</label>\n${input(field, i, value)}`;
		})
		.join('\n');
	const title = form.title ? `<h1>${escapeHtml(form.title)}</h1>\n` : '';
	const error = form.error ? `<p class="error">${escapeHtml(form.error)}</p>\n` : '';
	return page(
		form.title || 'Your answer',
		`${title}${markdownToHtml(form.description)}
${error}<form method="post" enctype="multipart/form-data">
${fields}
<button type="submit">${escapeHtml(form.button)}</button>
</form>`,
	);
}

/** After the press: the answer is recorded. */
export const RECORDED_PAGE = page(
	'Thank you',
	'<h1>Thank you</h1>\n<p>Your answer has been recorded. You can close this page now.</p>',
);

/** When the page cannot be made: the question still waits for an answer. */
export const FAULT_PAGE = page(
	'Not available',
	'<h1>This page is not available right now</h1>\n<p>Nothing was recorded. Please try the link again later.</p>',
);
