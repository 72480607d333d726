/**
 * What a waiting message asks, read and checked before anything is sent (every fault names the
 * field and the fix), the links it carries, and until when the execution waits. The webhook
 * (webhook.ts) reads the same parameters again when the customer opens a link: the form is the
 * one the message promised.
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { invalidInput } from '../helpers/validate';
import type { ResponseType } from './description';
import { FIELD_TYPES, RESPONSE_TYPES } from './description';

/** n8n's "wait until answered" (its WAIT_INDEFINITELY, written out for n8n versions without it). */
export const WAIT_INDEFINITELY = new Date('3000-01-01T00:00:00.000Z');

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

/** What the parameters' reader needs: n8n's execute or webhook context. */
type Reader = Pick<IExecuteFunctions, 'getNode' | 'getNodeParameter'>;

const param = (ctx: Reader, name: string, fallback: unknown, itemIndex: number): unknown =>
	ctx.getNodeParameter(name, itemIndex, fallback as never) as unknown;

/** The Options collection (what was added to it). */
export const optionsOf = (ctx: Reader, itemIndex = 0) =>
	(param(ctx, 'options', {}, itemIndex) ?? {}) as IDataObject;

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** A link's label: not empty, and without the brackets that would break its Markdown link. */
function label(node: INode, itemIndex: number, field: string, value: unknown): string {
	const words = text(value).replace(/[[\]]/g, '');
	if (!words)
		throw invalidInput(node, itemIndex, field, 'is empty', `Write the label, e.g. "Approve".`);
	return words;
}

/** The form's fields (Custom Form): at least one, each with a label; a dropdown with choices. */
export function formFields(ctx: Reader, itemIndex = 0): FormField[] {
	const node = ctx.getNode();
	const rows = (param(ctx, 'formFields.values', [], itemIndex) ?? []) as IDataObject[];
	if (!Array.isArray(rows) || rows.length === 0)
		throw invalidInput(
			node,
			itemIndex,
			'Form Fields',
			'has no field',
			'Add at least one field (Add Form Field), or set Response Type to Free Text.',
		);
	return rows.map((row, i) => {
		const fieldLabel = text(row.fieldLabel);
		const where = `Form Fields → field ${i + 1}`;
		if (!fieldLabel)
			throw invalidInput(node, itemIndex, `${where} → Field Label`, 'is empty', 'Name the field.');
		const type = (FIELD_TYPES as readonly string[]).includes(String(row.fieldType))
			? (row.fieldType as FormField['type'])
			: 'text';
		const options = ((row.fieldOptions as IDataObject | undefined)?.values ?? []) as IDataObject[];
		const choices = options.map((o) => text(o.option)).filter(Boolean);
		if (type === 'dropdown' && choices.length === 0)
			throw invalidInput(
				node,
				itemIndex,
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
export function waitTill(ctx: Reader, now: number, itemIndex = 0): Date {
	const node = ctx.getNode();
	const limit = (optionsOf(ctx, itemIndex).limitWaitTime as IDataObject | undefined)?.values as
		IDataObject | undefined;
	if (!limit) return WAIT_INDEFINITELY;
	if (limit.limitType === 'atSpecifiedTime') {
		const at = Date.parse(String(limit.maxDateAndTime ?? ''));
		if (Number.isNaN(at))
			throw invalidInput(
				node,
				itemIndex,
				'Limit Wait Time → Max Date and Time',
				`is not a date and time (${JSON.stringify(limit.maxDateAndTime ?? '')})`,
				'Pick a date and time, e.g. 2026-12-01T18:00:00.',
			);
		if (at <= now)
			throw invalidInput(
				node,
				itemIndex,
				'Limit Wait Time → Max Date and Time',
				`is in the past (${new Date(at).toISOString()})`,
				'Pick a moment after the message goes out, or remove Limit Wait Time.',
			);
		return new Date(at);
	}
	const amount = Number(limit.resumeAmount ?? 1);
	const unit = String(limit.resumeUnit ?? 'hours');
	const seconds = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 }[unit];
	if (seconds === undefined || !Number.isFinite(amount) || amount <= 0)
		throw invalidInput(
			node,
			itemIndex,
			'Limit Wait Time → Amount',
			`must be more than 0, got ${JSON.stringify(limit.resumeAmount)}`,
			'Enter how long to wait, e.g. 2 (Unit: Days), or remove Limit Wait Time.',
		);
	return new Date(now + Math.round(amount * seconds * 1000));
}

/** The response type (Approval, unless one of the others is set). */
export function responseTypeOf(ctx: Reader, itemIndex = 0): ResponseType {
	const type = String(param(ctx, 'responseType', 'approval', itemIndex));
	return (RESPONSE_TYPES as readonly string[]).includes(type) ? (type as ResponseType) : 'approval';
}

/** The links' labels and what each answers: Approve (true), Decline (false); a form's link: true. */
export function choicesOf(
	ctx: Reader,
	responseType: ResponseType,
	itemIndex = 0,
): WaitConfig['choices'] {
	const node = ctx.getNode();
	if (responseType !== 'approval') {
		const button = optionsOf(ctx, itemIndex).messageButtonLabel ?? 'Respond';
		return [{ label: label(node, itemIndex, 'Message Button Label', button), approved: true }];
	}
	const values = (param(ctx, 'approvalOptions.values', {}, itemIndex) ?? {}) as IDataObject;
	const approve = label(node, itemIndex, 'Approve Button Label', values.approveLabel ?? 'Approve');
	const choices = [{ label: approve, approved: true }];
	if (values.approvalType === 'double') {
		const decline = values.disapproveLabel ?? 'Decline';
		choices.push({
			label: label(node, itemIndex, 'Decline Button Label', decline),
			approved: false,
		});
	}
	return choices;
}

/** The message's question, its links and its wait, checked before any request. */
export function readWait(ctx: Reader, itemIndex: number, now: number): WaitConfig {
	const message = param(ctx, 'message', '', itemIndex);
	if (typeof message !== 'string' || message.trim() === '')
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			'Message',
			'is empty',
			'Write what the customer is asked, e.g. "Can you make it on Tuesday at 10:00?".',
		);
	const responseType = responseTypeOf(ctx, itemIndex);
	return {
		message,
		responseType,
		choices: choicesOf(ctx, responseType, itemIndex),
		fields: responseType === 'customForm' ? formFields(ctx, itemIndex) : [],
		waitTill: waitTill(ctx, now, itemIndex),
	};
}

/** The message as sent: the question, then each link on a line of its own. */
export function withLinks(message: string, links: Array<{ label: string; url: string }>): string {
	return `${message.trimEnd()}\n\n${links.map((l) => `[${l.label}](${l.url})`).join('\n')}`;
}
