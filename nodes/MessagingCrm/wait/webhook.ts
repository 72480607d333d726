/**
 * The waiting message's links, as n8n calls the node while its execution waits: a GET (a person
 * opening the link, or a messenger's link preview) shows a page and resumes nothing; only the
 * page's POST (the person's press) answers, and resumes the execution with the answer in the
 * shape of n8n's own Send and Wait (`data.approved`, `data.text`, the form's fields by label),
 * with the customer and the messenger the message went to (from the link, which n8n signs).
 * Nothing else happens here: no request to the API, no state.
 */
import type {
	IDataObject,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import type { FormField } from './config';
import { choicesOf, formFields, optionsOf, paramsOf, responseTypeOf } from './config';
import { LINK } from './links';
import { choicePage, FAULT_PAGE, fieldName, formPage, PAGE_HEADERS, RECORDED_PAGE } from './pages';

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

async function answer(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const query = this.getQueryData() as IDataObject;
	const params = paramsOf(this);
	const message = String(params.get('message', '') ?? '');
	const responseType = responseTypeOf(params);
	const options = optionsOf(params);
	const approved = query[LINK.approved] !== 'false';
	const fields = responseType === 'customForm' ? formFields(params) : [FREE_TEXT];
	const form = (error?: string, values?: string[]) =>
		formPage({
			title: String(options.responseFormTitle ?? ''),
			description: String(options.responseFormDescription || message),
			fields,
			button: String(options.responseFormButtonLabel || 'Submit'),
			error,
			values,
		});
	if (this.getRequestObject().method !== 'POST') {
		if (responseType !== 'approval') return reply(this, 200, form());
		// The label the message gave this link (the workflow changed since: the answer's own word).
		const choice = choicesOf(params, responseType).find((c) => c.approved === approved);
		const page = choicePage(
			message,
			choice ?? { label: approved ? 'Approve' : 'Decline', approved },
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
	return reply(this, 200, RECORDED_PAGE, [{ json, pairedItem: { item: 0 } }]);
}

/**
 * The links' webhook. A fault here (a parameter that no longer reads) shows a page and leaves the
 * execution waiting: thrown, n8n would resume it with the error, a link preview too.
 */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	try {
		return await answer.call(this);
	} catch {
		return reply(this, 500, FAULT_PAGE);
	}
}

/**
 * Every answer of the links' webhook: the page, sent here with its headers (PAGE_HEADERS), and,
 * after a press, the answer the execution resumes with; without it, the execution waits on.
 */
function reply(
	ctx: IWebhookFunctions,
	status: number,
	html: string,
	resumeWith?: INodeExecutionData[],
): IWebhookResponseData {
	const res = ctx.getResponseObject();
	res.status(status);
	for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
	res.send(html);
	return { noWebhookResponse: true, ...(resumeWith && { workflowData: [resumeWith] }) };
}
