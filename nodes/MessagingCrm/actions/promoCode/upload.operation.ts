import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { codesInput } from '../../shared/codesInput';
import { poolLocator } from '../../shared/pool';
import { bulkForItem, bulkGrouping } from './bulk';
import type { OperationOption } from '../node.type';

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Upload',
	action: 'Upload promo codes',
	description:
		"Add codes to the end of a pool's queue, any number, safe to repeat. Scope: promo:write.",
};

export const description: INodeProperties[] = [poolLocator, ...codesInput('upload')];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await bulkForItem(this, itemIndex, 'upload');
}

export const group = bulkGrouping('upload');
