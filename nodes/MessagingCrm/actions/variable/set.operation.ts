import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../../helpers/validate';
import {
	chunkVariables,
	patchVariables,
	readVariables,
	variablesEditor,
	variablesItem,
} from '../../shared/variables';
import { targetProperties, variablesPath } from './target';
import type { OperationOption } from '../node.type';

/** Its fields. */
export const description: INodeProperties[] = [...targetProperties, ...variablesEditor(false)];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Set',
	action: 'Set variables',
	description:
		'Write, append to, clear or delete variables of a customer or a deal. Scope: customers:write.',
};

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const variables = readVariables(this, itemIndex) ?? {};
	if (Object.keys(variables).length === 0) {
		throw invalidInput(
			this.getNode(),
			itemIndex,
			'Variables',
			'is empty',
			'Add at least one variable row, or write a JSON object.',
		);
	}
	const { path, owner } = await variablesPath(this, itemIndex);
	// At most 50 per call: larger sets go as consecutive calls, and the last answer is the final state.
	return [
		variablesItem(owner, await patchVariables(this, path, chunkVariables(variables), itemIndex)),
	];
}
