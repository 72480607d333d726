import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { MESSENGER_ID_HINT, MESSENGER_TYPE_OPTIONS } from '../../shared/messengers';
import { lookupCustomer } from '../../shared/reads';
import { lookupQuery } from '../../shared/customer';
import type { OperationOption } from '../node.type';
import { itemError } from '../../helpers/validate';
import { failIfNotFoundOptions } from '../../shared/descriptions';

/** Its fields. */
export const description: INodeProperties[] = [
	{
		displayName: 'Find By',
		name: 'findBy',
		type: 'options',
		default: 'phone',
		options: [
			{ name: 'Phone', value: 'phone' },
			{ name: 'Email', value: 'email' },
			{ name: 'Messenger Identity', value: 'messenger' },
		],
	},
	{
		displayName: 'Phone',
		name: 'phone',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. +15551234567',
		displayOptions: { show: { findBy: ['phone'] } },
	},
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. nathan@example.com',
		displayOptions: { show: { findBy: ['email'] } },
	},
	{
		displayName: 'Messenger Type',
		name: 'messengerType',
		type: 'options',
		options: MESSENGER_TYPE_OPTIONS,
		default: 'telegram',
		displayOptions: { show: { findBy: ['messenger'] } },
	},
	{
		displayName: 'ID in the Messenger',
		name: 'messengerId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 123456789',
		hint: MESSENGER_ID_HINT,
		displayOptions: { show: { findBy: ['messenger'] } },
	},
	failIfNotFoundOptions(
		'Whether to fail the item when nobody matches, instead of giving no item for it',
	),
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Find',
	action: 'Find a customer',
	description:
		'Look a customer up by phone, email or messenger identity (messenger type and ID). No match gives no item, or fails the item with Fail If Not Found. Scope: customers:read.',
};

/** Reads: several items at once. */
export const concurrency = 8;

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const by = this.getNodeParameter('findBy', itemIndex) as string;
	const value =
		by === 'messenger'
			? `${String(this.getNodeParameter('messengerType', itemIndex, ''))}:${String(this.getNodeParameter('messengerId', itemIndex, ''))}`
			: this.getNodeParameter(by, itemIndex, '');
	const label = by === 'phone' ? 'Phone' : by === 'email' ? 'Email' : 'ID in the Messenger';
	const query = lookupQuery(this, itemIndex, by, value, label);
	const customer = await lookupCustomer(this, query, itemIndex);
	if (customer) return [customer];
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	if (options.failIfNotFound) {
		throw itemError(
			this.getNode(),
			itemIndex,
			`no customer matches`,
			'Turn off "Fail If Not Found" to get no item instead.',
			{
				code: 'not_found',
				details: { resource: 'customer' },
				caller: `no customer has ${label === 'ID in the Messenger' ? 'this messenger ID' : `this ${label.toLowerCase()}`}`,
				next: 'Nothing matched: check the value, or look the customer up another way (phone, email or messenger).',
				when: 'after looking the customer up',
			},
		);
	}
	return [];
}
