import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { codesInput } from '../../shared/codesInput';
import { poolLocator } from '../../shared/pool';
import { bulkForItem, bulkGrouping } from './bulk';
import type { OperationOption } from '../node.type';

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Revoke',
	action: 'Revoke promo codes',
	description: 'Take codes out of circulation, any number, safe to repeat. Scope: promo:write.',
};

export const description: INodeProperties[] = [poolLocator, ...codesInput('revoke')];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await bulkForItem(this, itemIndex, 'revoke');
}

export const group = bulkGrouping('revoke');
