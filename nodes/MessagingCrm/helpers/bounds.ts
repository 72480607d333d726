import type { NodeContext } from './validate';

import { invalidInput } from './validate';

/** The API's length limits (api-spec: Limits). */
export const LIMITS = {
	fullName: 255,
	phone: 50,
	source: 100,
	stageCode: 50,
	dealTitle: 255,
	closeReason: 500,
	promoCode: 255,
};

/** The largest page of a pool's codes the API gives (`limit` 1 to 500). */
export const CODES_PAGE_MAX = 500;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An optional string field, trimmed, '' meaning absent, checked against its length limit. */
export function optionalText(
	ctx: NodeContext,
	itemIndex: number,
	field: string,
	value: unknown,
	max?: number,
): string | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'string' && typeof value !== 'number') {
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			field,
			`must be text, got ${typeof value}`,
			`Map a text value into "${field}".`,
		);
	}
	const text = String(value).trim();
	if (text === '') return undefined;
	if (max !== undefined && text.length > max) {
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			field,
			`is ${text.length} characters long; the API accepts at most ${max}`,
			`Shorten "${field}" to ${max} characters, for example with {{ $json.value.slice(0, ${max}) }}.`,
		);
	}
	return text;
}

export function optionalEmail(
	ctx: NodeContext,
	itemIndex: number,
	field: string,
	value: unknown,
): string | undefined {
	const email = optionalText(ctx, itemIndex, field, value);
	if (email !== undefined && !EMAIL.test(email)) {
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			field,
			`is not an email address: ${JSON.stringify(email.slice(0, 80))}`,
			'Use the form name@example.com.',
		);
	}
	return email;
}

export function optionalPhone(
	ctx: NodeContext,
	itemIndex: number,
	field: string,
	value: unknown,
): string | undefined {
	const phone = optionalText(ctx, itemIndex, field, value, LIMITS.phone);
	if (
		phone !== undefined &&
		(phone.replace(/\D/g, '').length < 7 || !/^[+\d\s\-().]+$/.test(phone))
	) {
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			field,
			`is not a phone number: ${JSON.stringify(phone)}`,
			'Use international form, for example +15551234567.',
		);
	}
	return phone;
}
