import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { LIMITS, optionalText } from '../../helpers/bounds';
import { invalidInput, itemError, uuidParam } from '../../helpers/validate';
import { apiRequest } from '../../transport/request';
import { customerLocator, customerRef, resolveRef } from '../../shared/customer';
import { MERGE_OUTPUT, outputFields, outputOf } from '../../shared/output';
import type { OperationOption } from '../node.type';
import { paths } from '../../transport/paths';

/** Its fields. */
export const description: INodeProperties[] = [
	{ ...customerLocator, displayName: 'Winner (Card That Stays)' },
	{
		displayName: 'Donor By',
		name: 'donorBy',
		type: 'options',
		default: 'id',
		options: [
			{ name: 'Customer', value: 'id', description: 'The card to merge into the winner' },
			{
				name: 'Promo Code',
				value: 'promoCode',
				description: 'The customer this code was issued to',
			},
		],
	},
	{
		...customerLocator,
		name: 'donorId',
		displayName: 'Donor (Card Merged Away)',
		displayOptions: { show: { donorBy: ['id'] } },
	},
	{
		displayName: 'Promo Code',
		name: 'promoCode',
		type: 'string',
		default: '',
		required: true,
		displayOptions: { show: { donorBy: ['promoCode'] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Absorb Conversations',
				name: 'absorbConversations',
				type: 'boolean',
				default: false,
				description:
					"Whether to merge the donor's messages from other agents into one feed in the target dialog too (each message keeps its messenger); emptied dialogs are archived",
			},
			{
				displayName: 'Keep Conversation ID',
				name: 'keepConversationId',
				type: 'string',
				default: '',
				description: "The dialog that stays active on its agent; by default the winner's",
			},
		],
	},
	...outputFields(MERGE_OUTPUT),
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Merge',
	action: 'Merge two customers',
	description: 'Merge a donor card into a winner card; safe to repeat. Scope: customers:write.',
};

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const shaped = outputOf(this, itemIndex, MERGE_OUTPUT);
	const keep = uuidParam(
		this,
		options.keepConversationId,
		itemIndex,
		'Keep Conversation ID',
		false,
	);
	const body: IDataObject = {
		absorb_conversations: options.absorbConversations === true,
		keep_conversation_id: keep,
	};
	if (this.getNodeParameter('donorBy', itemIndex) === 'promoCode') {
		const code = optionalText(
			this,
			itemIndex,
			'Promo Code',
			this.getNodeParameter('promoCode', itemIndex, ''),
			LIMITS.promoCode,
		);
		if (!code)
			throw invalidInput(
				this.getNode(),
				itemIndex,
				'Promo Code',
				'is empty',
				'Enter the code that was issued to the donor.',
			);
		body.promo_code = code;
	}
	// Both cards are checked before either is looked up.
	const winner = customerRef(this, itemIndex, 'customerId', 'Winner');
	const donor =
		body.promo_code === undefined ? customerRef(this, itemIndex, 'donorId', 'Donor') : undefined;
	if (donor && 'id' in donor && 'id' in winner && donor.id === winner.id) {
		throw invalidInput(
			this.getNode(),
			itemIndex,
			'Donor',
			'is the same card as the winner',
			'Pick two different customers.',
			{
				problem: 'the donor and the winner are the same customer',
				next: 'Nothing was merged: call again naming two different customers.',
			},
		);
	}
	const winnerId = await resolveRef(this, itemIndex, winner);
	if (donor) {
		body.from_customer_id = await resolveRef(this, itemIndex, donor);
		if (body.from_customer_id === winnerId) {
			throw itemError(
				this.getNode(),
				itemIndex,
				`the donor and the winner were found to be the same card (${winnerId})`,
				'The two lookups found one customer: pick two different customers.',
				{
					// What the API answers for a card merged into itself (422).
					code: 'validation_error',
					caller: `the donor and the winner are the same customer (${winnerId})`,
					next: 'Nothing was merged: call again naming two different customers.',
					when: 'after looking both customers up, changing nothing',
				},
			);
		}
	}
	const { body: report } = await apiRequest<IDataObject>(this, {
		method: 'POST',
		path: paths.customer(winnerId, '/merge'),
		body,
		// Repeating a merge is safe: an already merged donor answers already_merged and moves nothing.
		idempotent: true,
		scope: 'customers:write',
		itemIndex,
	});
	return [shaped(report)];
}
