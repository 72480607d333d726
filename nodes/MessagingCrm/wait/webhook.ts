/**
 * The waiting message's links, as n8n calls the node while its execution waits: a GET (a person
 * opening the link, or a messenger's link preview) shows a page and resumes nothing; only the
 * page's POST (the person's press) answers, and resumes the execution with the answer in the
 * shape of n8n's own Send and Wait (`data.approved`, `data.text`, the form's fields by label),
 * with the customer and the messenger the message went to (from the link, which n8n signs).
 * Nothing else happens here: no request to the API, no state.
 *
 * The page after a press says "recorded" only when the answer was: the node hands the page to n8n
 * with the answer, and n8n sends it once the execution took the answer (n8n 2.x resumes a waiting
 * execution once: when two presses reach the node at the same moment, the one whose resume loses
 * gets n8n's error instead, which the page's script turns into "Someone already answered"; see
 * pages.ts). An answer after the deadline the link carries (Limit Wait Time) is refused: "too late".
 */
import type {
	IDataObject,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import type { FormField } from './config';
import {
	choicesOf,
	formFields,
	MAX_ANSWER_LENGTH,
	optionsOf,
	paramsOf,
	responseTypeOf,
	senderOf,
} from './config';
import { LINK } from './links';
import type { Asker } from './pages';
import {
	choicePage,
	fieldName,
	formPage,
	isTextField,
	MAX_ANSWER_WORDS,
	outcomePage,
	PAGE_HEADERS,
} from './pages';

/** Free Text's form: one text area. */
const FREE_TEXT: FormField = {
	label: 'Response',
	type: 'textarea',
	required: true,
	placeholder: '',
	choices: [],
};

/** A form's submitted values by input name; multipart (`{ data, files }`) or URL-encoded. */
function submitted(ctx: IWebhookFunctions): Record<string, string> {
	const body = (ctx.getBodyData() ?? {}) as IDataObject;
	const fields = (
		body.data && typeof body.data === 'object' && !Array.isArray(body.data) ? body.data : body
	) as IDataObject;
	const values: Record<string, string> = {};
	for (const [name, value] of Object.entries(fields)) {
		const first = Array.isArray(value) ? value[0] : value;
		if (typeof first === 'string' || typeof first === 'number') values[name] = String(first).trim();
	}
	return values;
}

/** The form's answer by field label, or what is wrong with it. */
function answerOf(
	fields: FormField[],
	values: Record<string, string>,
): { answer: IDataObject } | { error: string } {
	const answer: IDataObject = {};
	for (const [i, field] of fields.entries()) {
		const value = values[fieldName(i)] ?? '';
		// As the page counted it: a line break is one character (a browser sends two).
		if (isTextField(field) && value.replace(/\r\n/g, '\n').length > MAX_ANSWER_LENGTH)
			return { error: `Please keep "${field.label}" to ${MAX_ANSWER_WORDS} characters or fewer.` };
		if (!value) {
			if (field.required) return { error: `Please fill in "${field.label}".` };
			answer[field.label] = field.type === 'number' ? null : '';
			continue;
		}
		if (field.type === 'number') {
			const n = Number(value);
			if (!Number.isFinite(n)) return { error: `"${field.label}" must be a number.` };
			answer[field.label] = n;
		} else if (field.type === 'dropdown' && !field.choices.includes(value)) {
			return { error: `Please choose one of the options of "${field.label}".` };
		} else answer[field.label] = value;
	}
	return { answer };
}

/** The deadline the link carries (Limit Wait Time), if any. */
function untilOf(query: IDataObject): Date | undefined {
	const until = query[LINK.until];
	const at = typeof until === 'string' ? Date.parse(until) : NaN;
	return Number.isNaN(at) ? undefined : new Date(at);
}

async function answer(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const query = this.getQueryData() as IDataObject;
	const params = paramsOf(this);
	const asker: Asker = { sender: senderOf(params), until: untilOf(query) };
	if (asker.until && Date.now() > asker.until.getTime())
		return reply(this, 410, outcomePage('late', asker));
	const message = String(params.get('message', '') ?? '');
	const responseType = responseTypeOf(params);
	const options = optionsOf(params);
	const approved = query[LINK.approved] !== 'false';
	const fields = responseType === 'customForm' ? formFields(params) : [FREE_TEXT];
	const form = (error?: string, values?: string[]) =>
		formPage(
			{
				title: String(options.responseFormTitle ?? ''),
				description: String(options.responseFormDescription || message),
				fields,
				button: String(options.responseFormButtonLabel || 'Submit'),
				error,
				values,
			},
			asker,
		);
	if (this.getRequestObject().method !== 'POST') {
		if (responseType !== 'approval') return reply(this, 200, form());
		// The label the message gave this link (the workflow changed since: the answer's own word).
		const choice = choicesOf(params, responseType).find((c) => c.approved === approved);
		const page = choicePage(
			message,
			choice ?? { label: approved ? 'Approve' : 'Decline', approved },
			asker,
		);
		return reply(this, 200, page);
	}
	let data: IDataObject;
	if (responseType === 'approval') data = { approved };
	else {
		const values = submitted(this);
		const read = answerOf(fields, values);
		if ('error' in read) {
			const again = fields.map((_, i) => values[fieldName(i)] ?? '');
			return reply(this, 400, form(read.error, again));
		}
		data = responseType === 'freeText' ? { text: read.answer[FREE_TEXT.label] } : read.answer;
	}
	const sentTo: IDataObject = {};
	if (typeof query[LINK.customer] === 'string') sentTo.customer_id = query[LINK.customer];
	if (typeof query[LINK.messenger] === 'string') sentTo.messenger_type = query[LINK.messenger];
	const json = { data: { ...data, respondedAt: new Date().toISOString() }, ...sentTo };
	return recorded(this, outcomePage('recorded', asker), [{ json, pairedItem: { item: 0 } }]);
}

/**
 * The links' webhook. A fault here (a parameter that no longer reads) shows a page and leaves the
 * execution waiting: thrown, n8n would resume it with the error, a link preview too.
 */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	try {
		return await answer.call(this);
	} catch {
		return reply(this, 500, outcomePage('fault', { sender: '' }));
	}
}

/** A page with its headers (PAGE_HEADERS), sent here; the execution waits on. */
function reply(ctx: IWebhookFunctions, status: number, html: string): IWebhookResponseData {
	const res = ctx.getResponseObject();
	res.status(status);
	for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
	res.send(html);
	return { noWebhookResponse: true };
}

/**
 * The answer the execution resumes with, and the page that says it was recorded, which n8n sends
 * (the webhook's response mode, onReceived) once the execution took the answer: n8n 2.x only then
 * (a resume that loses to another answer's gets n8n's error), 1.x before it resumes. n8n keeps the
 * headers set here but its own Content-Security-Policy (a sandbox) for a response it sends.
 */
function recorded(
	ctx: IWebhookFunctions,
	html: string,
	resumeWith: INodeExecutionData[],
): IWebhookResponseData {
	const res = ctx.getResponseObject();
	for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
	return { webhookResponse: html, workflowData: [resumeWith] };
}
