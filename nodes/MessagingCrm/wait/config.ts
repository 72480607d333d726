/**
 * What a waiting message asks, read and checked before anything is sent (every fault names the
 * field and the fix), and until when the execution waits. The links' webhook (webhook.ts) reads
 * the same parameters again, through the same reader, when the customer opens a link: the form is
 * the one the message promised.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	IWebhookFunctions,
	NodeOperationError,
} from 'n8n-workflow';

import { invalidInput } from '../helpers/validate';
import type { ResponseType } from './description';
import { FIELD_TYPES, RESPONSE_TYPES } from './description';

/** n8n's "wait until answered" (its WAIT_INDEFINITELY, written out for n8n versions without it). */
export const WAIT_INDEFINITELY = new Date('3000-01-01T00:00:00.000Z');

/**
 * The most characters a typed answer (Free Text, a Custom Form's text, text area or email field)
 * may have: the page states it and its fields stop there (maxlength), and the links' webhook
 * refuses more, the form shown again with what is wrong.
 */
export const MAX_ANSWER_LENGTH = 2000;

export interface FormField {
	label: string;
	type: (typeof FIELD_TYPES)[number];
	required: boolean;
	placeholder: string;
	/** A dropdown's choices. */
	choices: string[];
}

export interface WaitConfig {
	message: string;
	responseType: ResponseType;
	/** The links' labels and what each answers: Approve (true), Decline (false); a form's link: true. */
	choices: Array<{ label: string; approved: boolean }>;
	fields: FormField[];
	waitTill: Date;
}

/** The node's parameters for one item, as the operation and the links' webhook both read them. */
export interface Params {
	node: INode;
	itemIndex: number;
	get(name: string, fallback: unknown): unknown;
	/** The item's error for a value of `field` that cannot go: what is wrong, and the fix. */
	invalid(field: string, problem: string, fix: string): NodeOperationError;
}

/** The reader of item `itemIndex`'s parameters in the operation, or of the node's in its webhook. */
export function paramsOf(ctx: IExecuteFunctions | IWebhookFunctions, itemIndex = 0): Params {
	const node = ctx.getNode();
	const get =
		'getRequestObject' in ctx
			? (name: string, fallback: unknown) => ctx.getNodeParameter(name, fallback as never)
			: (name: string, fallback: unknown) =>
					ctx.getNodeParameter(name, itemIndex, fallback as never);
	return {
		node,
		itemIndex,
		get: (name, fallback) => get(name, fallback) as unknown,
		invalid: (field, problem, fix) => invalidInput(node, itemIndex, field, problem, fix),
	};
}

/** The Options collection (what was added to it). */
export const optionsOf = (p: Params) => (p.get('options', {}) ?? {}) as IDataObject;

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** A link's label: not empty, and without the brackets that would break its Markdown link. */
function label(p: Params, field: string, value: unknown): string {
	const words = text(value).replace(/[[\]]/g, '');
	if (!words) throw p.invalid(field, 'is empty', `Write the label, e.g. "Approve".`);
	return words;
}

/** The form's fields (Custom Form): at least one, each with a label; a dropdown with choices. */
export function formFields(p: Params): FormField[] {
	const rows = (p.get('formFields.values', []) ?? []) as IDataObject[];
	if (!Array.isArray(rows) || rows.length === 0)
		throw p.invalid(
			'Form Fields',
			'has no field',
			'Add at least one field (Add Form Field), or set Response Type to Free Text.',
		);
	return rows.map((row, i) => {
		const fieldLabel = text(row.fieldLabel);
		const where = `Form Fields → field ${i + 1}`;
		if (!fieldLabel) throw p.invalid(`${where} → Field Label`, 'is empty', 'Name the field.');
		const type = (FIELD_TYPES as readonly string[]).includes(String(row.fieldType))
			? (row.fieldType as FormField['type'])
			: 'text';
		const options = ((row.fieldOptions as IDataObject | undefined)?.values ?? []) as IDataObject[];
		const choices = options.map((o) => text(o.option)).filter(Boolean);
		if (type === 'dropdown' && choices.length === 0)
			throw p.invalid(
				`${where} (${fieldLabel}) → Field Options`,
				'has no option',
				'Add the choices of the dropdown list.',
			);
		return {
			label: fieldLabel,
			type,
			required: row.requiredField === true,
			placeholder: text(row.placeholder),
			choices,
		};
	});
}

/** Until when the execution waits: Limit Wait Time, in the future, or until answered. */
export function waitTill(p: Params, now: number): Date {
	const limit = (optionsOf(p).limitWaitTime as IDataObject | undefined)?.values as
		IDataObject | undefined;
	if (!limit) return WAIT_INDEFINITELY;
	if (limit.limitType === 'atSpecifiedTime') {
		const at = Date.parse(String(limit.maxDateAndTime ?? ''));
		const field = 'Limit Wait Time → Max Date and Time';
		if (Number.isNaN(at))
			throw p.invalid(
				field,
				`is not a date and time (${JSON.stringify(limit.maxDateAndTime ?? '')})`,
				'Pick a date and time, e.g. 2026-12-01T18:00:00.',
			);
		if (at <= now)
			throw p.invalid(
				field,
				`is in the past (${new Date(at).toISOString()})`,
				'Pick a moment after the message goes out, or remove Limit Wait Time.',
			);
		return new Date(at);
	}
	const amount = Number(limit.resumeAmount ?? 1);
	const unit = String(limit.resumeUnit ?? 'hours');
	const seconds = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 }[unit];
	if (seconds === undefined || !Number.isFinite(amount) || amount <= 0)
		throw p.invalid(
			'Limit Wait Time → Amount',
			`must be more than 0, got ${JSON.stringify(limit.resumeAmount)}`,
			'Enter how long to wait, e.g. 2 (Unit: Days), or remove Limit Wait Time.',
		);
	return new Date(now + Math.round(amount * seconds * 1000));
}

/** Sender Name: who asks, the heading of the pages the links open (empty: none named). */
export const senderOf = (p: Params): string => text(p.get('senderName', ''));

/** The response type (Approval, unless one of the others is set). */
export function responseTypeOf(p: Params): ResponseType {
	const type = String(p.get('responseType', 'approval'));
	return (RESPONSE_TYPES as readonly string[]).includes(type) ? (type as ResponseType) : 'approval';
}

/** The links' labels and what each answers: Approve (true), Decline (false); a form's link: true. */
export function choicesOf(p: Params, responseType: ResponseType): WaitConfig['choices'] {
	if (responseType !== 'approval') {
		const button = optionsOf(p).messageButtonLabel ?? 'Respond';
		return [{ label: label(p, 'Message Button Label', button), approved: true }];
	}
	const values = (p.get('approvalOptions.values', {}) ?? {}) as IDataObject;
	const choices = [
		{ label: label(p, 'Approve Button Label', values.approveLabel ?? 'Approve'), approved: true },
	];
	if (values.approvalType === 'double') {
		const decline = values.disapproveLabel ?? 'Decline';
		choices.push({ label: label(p, 'Decline Button Label', decline), approved: false });
	}
	return choices;
}

/** The message's question, its links and its wait, checked before any request. */
export function readWait(p: Params, now: number): WaitConfig {
	const message = p.get('message', '');
	if (typeof message !== 'string' || message.trim() === '')
		throw p.invalid(
			'Message',
			'is empty',
			'Write what the customer is asked, e.g. "Can you make it on Tuesday at 10:00?".',
		);
	const responseType = responseTypeOf(p);
	return {
		message,
		responseType,
		choices: choicesOf(p, responseType),
		fields: responseType === 'customForm' ? formFields(p) : [],
		waitTill: waitTill(p, now),
	};
}
