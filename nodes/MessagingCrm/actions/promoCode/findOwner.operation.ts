import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { LIMITS, optionalText } from '../../helpers/bounds';
import { invalidInput, itemError, segmentParam } from '../../helpers/validate';
import { paths } from '../../transport/paths';
import { apiRequest } from '../../transport/request';
import type { OperationOption } from '../node.type';
import { failIfNotFoundOptions } from '../../shared/descriptions';

/** Its fields. */
export const description: INodeProperties[] = [
	{
		displayName: 'Code',
		name: 'code',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. SPRING-042',
		description: 'Searched in every pool of the company',
	},
	failIfNotFoundOptions(
		'Whether to fail the item when no customer holds the code, instead of giving no item',
	),
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Find Owner',
	action: 'Find the owner of a promo code',
	description: 'Find the customer a code was issued to, in any pool. Scope: promo:read.',
};

/** Reads: several items at once. */
export const concurrency = 8;

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const code = optionalText(
		this,
		itemIndex,
		'Code',
		this.getNodeParameter('code', itemIndex, ''),
		LIMITS.promoCode,
	);
	if (!code)
		throw invalidInput(
			this.getNode(),
			itemIndex,
			'Code',
			'is empty',
			'Enter or map the promo code.',
		);
	const { status, body } = await apiRequest<IDataObject>(this, {
		method: 'GET',
		path: paths.promoCode(segmentParam(this, code, itemIndex, 'Code')),
		scope: 'promo:read',
		acceptStatus: [404],
		itemIndex,
	});
	if (status !== 404) return [body];
	if ((this.getNodeParameter('options', itemIndex, {}) as IDataObject).failIfNotFound) {
		throw itemError(
			this.getNode(),
			itemIndex,
			`no customer holds the code "${code}"`,
			'Turn off "Fail If Not Found" to get no item instead.',
			{
				// The API's own answer (404), kept as its code.
				code: 'not_found',
				details: { resource: 'promo code' },
				caller: `no customer holds the code "${code}"`,
				next: 'Check the code: it was never issued, or it is in no pool of this company.',
				when: 'after looking the code up',
			},
		);
	}
	return [];
}
