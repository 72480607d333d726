import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiRequest } from '../../transport/request';
import { variablesItem } from '../../shared/variables';
import { targetProperties, variablesPath } from './target';
import type { OperationOption } from '../node.type';

/** Its fields. */
export const description: INodeProperties[] = [
	...targetProperties,
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'object',
		options: [
			{
				name: 'One Item, Name to Value',
				value: 'object',
				description: 'For example {"plan": "pro", "seats": 5}, handy in expressions',
			},
			{
				name: 'One Item per Variable',
				value: 'each',
				description: 'With type, list elements, group and update time',
			},
		],
	},
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Get',
	action: 'Get variables',
	description: 'Read every variable of a customer or a deal. Scope: customers:read.',
};

/** Reads: several items at once. */
export const concurrency = 8;

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const { path, owner } = await variablesPath(this, itemIndex);
	const { body } = await apiRequest<{ variables?: IDataObject[] }>(this, {
		method: 'GET',
		path,
		scope: 'customers:read',
		itemIndex,
	});
	const variables = body.variables ?? [];
	if (this.getNodeParameter('output', itemIndex, 'object') === 'each')
		return variables.map((v) => ({ ...owner, ...v }));
	return [variablesItem(owner, variables)];
}
