import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { codesInput } from '../common/codesInput';
import { poolLocator } from '../common/pool';
import { bulkForAllItems, bulkForItem } from './bulk';

export const description = updateDisplayOptions({ show: { resource: ['promoCode'], operation: ['revoke'] } }, [
	poolLocator,
	...codesInput('revoke'),
]);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await bulkForItem(this, itemIndex, 'revoke');
}

export async function executeBatch(this: IExecuteFunctions): Promise<INodeExecutionData[] | null> {
	return await bulkForAllItems(this, 'revoke');
}
