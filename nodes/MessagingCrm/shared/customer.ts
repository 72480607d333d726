import type {
	IExecuteFunctions,
	INodeParameterResourceLocator,
	INodeProperties,
} from 'n8n-workflow';

import { optionalEmail, optionalPhone, optionalText } from '../helpers/bounds';
import type { NodeContext } from '../helpers/validate';
import { invalidInput, isUuid, itemError, SAMPLE_UUID } from '../helpers/validate';
import { uuidModeFields } from './descriptions';
import type { LookupQuery } from './reads';
import { lookupCustomer } from './reads';

/** The customer of a customer-scoped operation: by ID, or found by phone, email or messenger. */
export const customerLocator: INodeProperties = {
	displayName: 'Customer',
	name: 'customerId',
	type: 'resourceLocator',
	default: { mode: 'id', value: '' },
	required: true,
	description: 'The customer card. Anything but an ID is looked up first (needs customers:read).',
	builderHint: {
		propertyHint:
			"A resource locator { __rl: true, mode, value }, never a plain string. Use mode 'id' only with a customer UUID from an earlier step (the id that Customer Create or Update, Customer Find or the Messaging CRM Trigger returned), for example value: expr('{{ $json.id }}'). When the workflow has a phone number, an email address or a messenger ID instead, use mode 'phone' (international format, e.g. +15551234567), mode 'email', or mode 'messenger' with the value 'type:id' (e.g. telegram:123456789): the node looks the customer up itself, so no Find step is needed before it. Never put a phone number, an email or a name in mode 'id', and never invent a UUID. There is no list mode: the API has no customer list.",
	},
	modes: [
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			...uuidModeFields(
				'Not a customer ID (a UUID): to find a customer, switch By ID to By Phone, By Email or By Messenger',
			),
		},
		{ displayName: 'By Phone', name: 'phone', type: 'string', placeholder: 'e.g. +15551234567' },
		{
			displayName: 'By Email',
			name: 'email',
			type: 'string',
			placeholder: 'e.g. name@example.com',
		},
		{
			displayName: 'By Messenger',
			name: 'messenger',
			type: 'string',
			placeholder: 'e.g. telegram:123456789',
			hint: "The messenger type, a colon, and the customer's ID in that messenger",
		},
	],
};

/** Builds the lookup query for a locator mode, checking the value before any request. */
export function lookupQuery(
	ctx: NodeContext,
	itemIndex: number,
	mode: string,
	value: unknown,
	field = 'Customer',
): LookupQuery {
	if (mode === 'phone') {
		const phone = optionalPhone(ctx, itemIndex, field, value);
		if (!phone)
			throw invalidInput(
				ctx.getNode(),
				itemIndex,
				field,
				'has no phone number',
				'Enter or map a phone number such as +15551234567.',
			);
		return { phone };
	}
	if (mode === 'email') {
		const email = optionalEmail(ctx, itemIndex, field, value);
		if (!email)
			throw invalidInput(
				ctx.getNode(),
				itemIndex,
				field,
				'has no email address',
				'Enter or map an email address.',
			);
		return { email };
	}
	if (mode === 'messenger') {
		const text = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
		const colon = text.indexOf(':');
		if (colon < 1 || colon === text.length - 1) {
			throw invalidInput(
				ctx.getNode(),
				itemIndex,
				field,
				`must be "type:id", got ${JSON.stringify(text.slice(0, 60))}`,
				"Write the messenger type and the customer's ID in it, for example telegram:123456789.",
			);
		}
		return {
			messenger_type: text.slice(0, colon).trim(),
			messenger_id: text.slice(colon + 1).trim(),
		};
	}
	throw invalidInput(
		ctx.getNode(),
		itemIndex,
		field,
		`has an unknown mode "${mode}"`,
		'Choose By ID, By Phone, By Email or By Messenger.',
	);
}

function describeQuery(query: LookupQuery): string {
	if ('phone' in query) return `phone ${query.phone}`;
	if ('email' in query) return `email ${query.email}`;
	return `${query.messenger_type} ID ${query.messenger_id}`;
}

/** A customer locator checked locally: an ID, or the lookup that will find it. */
export type CustomerRef = { id: string } | { query: LookupQuery };

export function customerRef(
	ctx: IExecuteFunctions,
	itemIndex: number,
	parameter = 'customerId',
	field = 'Customer',
): CustomerRef {
	const locator = ctx.getNodeParameter(parameter, itemIndex) as
		INodeParameterResourceLocator | string;
	const { mode, value } =
		typeof locator === 'object' && locator !== null ? locator : { mode: 'id', value: locator };
	if (mode === 'id' || mode === 'list') {
		const id = typeof value === 'string' ? value.trim() : value;
		if (!isUuid(id)) {
			throw invalidInput(
				ctx.getNode(),
				itemIndex,
				field,
				`must be a customer ID (a UUID), got ${JSON.stringify(String(id ?? '').slice(0, 60))}`,
				"Map the customer's ID, or switch the field to By Phone, By Email or By Messenger.",
				{
					problem: `the ${field === 'Customer' ? '' : `${field.toLowerCase()}'s `}customer ID must be a UUID such as ${SAMPLE_UUID}, got ${JSON.stringify(String(id ?? '').slice(0, 60))}`,
					next: 'Nothing was sent or changed: look the customer up by phone, email or messenger first, and call again with the ID found.',
				},
			);
		}
		return { id };
	}
	return { query: lookupQuery(ctx, itemIndex, String(mode), value, field) };
}

/** The customer's ID for a locator parameter, looking it up when it is not given by ID. */
export async function resolveCustomerId(
	ctx: IExecuteFunctions,
	itemIndex: number,
	parameter = 'customerId',
): Promise<string> {
	return await resolveRef(ctx, itemIndex, customerRef(ctx, itemIndex, parameter));
}

/** Resolves a locally checked reference (one lookup when it is not an ID). */
export async function resolveRef(
	ctx: IExecuteFunctions,
	itemIndex: number,
	ref: CustomerRef,
): Promise<string> {
	if ('id' in ref) return ref.id;
	const { query } = ref;
	const customer = await lookupCustomer(ctx, query, itemIndex);
	if (!customer || typeof customer.id !== 'string') {
		throw itemError(
			ctx.getNode(),
			itemIndex,
			`no customer with ${describeQuery(query)}`,
			'Check the value, or create the customer first with Customer → Create or Update.',
			{
				// What the API answers for a customer it does not know.
				code: 'not_found',
				details: { resource: 'customer' },
				caller: `no customer has ${describeQuery(query)}`,
				next: 'Nothing was sent or changed: check the value, or find the customer another way (phone, email or messenger) and call again with what was found.',
				when: 'after looking the customer up, changing nothing',
			},
		);
	}
	return customer.id;
}

/** One row of Create or Update's Messengers field, as the node's parameters hold it. */
export type MessengerRow = { type?: string; id?: string | number; username?: string };

/** A customer's messenger identities from the Messengers rows, each checked before any request. */
export function readMessengers(
	ctx: IExecuteFunctions,
	itemIndex: number,
	parameter = 'messengersUi',
): Array<{ type: string; id: string; username?: string }> {
	const rows =
		(ctx.getNodeParameter(parameter, itemIndex, {}) as { messenger?: MessengerRow[] }).messenger ??
		[];
	return rows.map((row, i) => {
		const id = optionalText(
			ctx,
			itemIndex,
			`Messengers → row ${i + 1} → ID in the Messenger`,
			row.id,
			255,
		);
		if (!id)
			throw invalidInput(
				ctx.getNode(),
				itemIndex,
				`Messengers → row ${i + 1} → ID in the Messenger`,
				'is empty',
				"Enter the customer's ID in that messenger, or remove the row.",
			);
		const type = optionalText(ctx, itemIndex, `Messengers → row ${i + 1} → Type`, row.type, 50);
		if (!type)
			throw invalidInput(
				ctx.getNode(),
				itemIndex,
				`Messengers → row ${i + 1} → Type`,
				'is empty',
				'Pick the messenger type.',
			);
		const username = optionalText(
			ctx,
			itemIndex,
			`Messengers → row ${i + 1} → Username`,
			row.username,
			255,
		);
		return { type, id, ...(username ? { username } : {}) };
	});
}

/** Tags as a comma-separated text or a mapped list: trimmed, empty ones dropped; undefined for neither. */
export function tagsOf(value: unknown): string[] | undefined {
	if (Array.isArray(value)) return value.map((t) => String(t).trim()).filter(Boolean);
	if (typeof value === 'string' && value.trim())
		return value
			.split(',')
			.map((t) => t.trim())
			.filter(Boolean);
	return undefined;
}
