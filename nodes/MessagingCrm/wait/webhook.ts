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
	IExecuteFunctions,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import type { FormField } from './config';
import { choicesOf, formFields, responseTypeOf } from './config';
import { choicePage, FAULT_PAGE, fieldName, formPage, PAGE_HEADERS, RECORDED_PAGE } from './pages';

/** Free Text's form: one text area. */
const FREE_TEXT: FormField = {
	label: 'Response',
	type: 'textarea',
	required: true,
	placeholder: '',
	choices: [],
};

/** The query parameters of a waiting message's links (beside n8n's signature). */
export const LINK = { approved: 'approved', customer: 'customer', messenger: 'messenger' } as const;

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
	const param = <T>(name: string, fallback: T): T =>
		this.getNodeParameter(name, fallback as never) as unknown as T;
	const reader = {
		getNode: () => this.getNode(),
		getNodeParameter: (name: string, _item: number, fallback: unknown) => param(name, fallback),
	} as unknown as Pick<IExecuteFunctions, 'getNode' | 'getNodeParameter'>;
	const send = (status: number, html: string) => sendPage(this, status, html);
	const message = String(param('message', '') ?? '');
	const responseType = responseTypeOf(reader);
	const options = param<IDataObject>('options', {});
	const approved = query[LINK.approved] !== 'false';
	const fields = responseType === 'customForm' ? formFields(reader) : [FREE_TEXT];
	const form = (error?: string, values?: string[]) =>
		formPage({
			title: String(options.responseFormTitle ?? ''),
			description: String(options.responseFormDescription || message),
			fields,
			button: String(options.responseFormButtonLabel || 'Submit'),
			error,
			values,
		});
	const method = this.getRequestObject().method;
	if (method !== 'POST') {
		if (responseType !== 'approval') return send(200, form());
		// The label the message gave this link (the workflow changed since: the answer's own word).
		const choice = choicesOf(reader, responseType).find((c) => c.approved === approved);
		return send(
			200,
			choicePage(message, choice ?? { label: approved ? 'Approve' : 'Decline', approved }),
		);
	}
	let data: IDataObject;
	if (responseType === 'approval') data = { approved };
	else {
		const values = submitted(this);
		const read = answerOf(fields, values);
		if ('error' in read)
			return send(
				400,
				form(
					read.error,
					fields.map((_, i) => values[fieldName(i)] ?? ''),
				),
			);
		data = responseType === 'freeText' ? { text: read.answer[FREE_TEXT.label] } : read.answer;
	}
	const sentTo: IDataObject = {};
	if (typeof query[LINK.customer] === 'string') sentTo.customer_id = query[LINK.customer];
	if (typeof query[LINK.messenger] === 'string') sentTo.messenger_type = query[LINK.messenger];
	pageHeaders(this.getResponseObject());
	return {
		webhookResponse: RECORDED_PAGE,
		workflowData: [
			[
				{
					json: { data: { ...data, respondedAt: new Date().toISOString() }, ...sentTo },
					pairedItem: { item: 0 },
				},
			],
		],
	};
}

/**
 * The links' webhook. A fault here (a parameter that no longer reads) shows a page and leaves the
 * execution waiting: thrown, n8n would resume it with the error, a link preview too.
 */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	try {
		return await answer.call(this);
	} catch {
		return sendPage(this, 500, FAULT_PAGE);
	}
}

/** The headers every page goes with (PAGE_HEADERS). */
function pageHeaders(res: ReturnType<IWebhookFunctions['getResponseObject']>): void {
	for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
}

/** A page as the whole answer, the execution left as it is. */
function sendPage(ctx: IWebhookFunctions, status: number, html: string): IWebhookResponseData {
	const res = ctx.getResponseObject();
	res.status(status);
	pageHeaders(res);
	res.send(html);
	return { noWebhookResponse: true };
}
