import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiRequest } from '../../transport/request';
import { agentSelect, optionalAgentId } from '../../shared/descriptions';
import { customerLocator, resolveCustomerId } from '../../shared/customer';
import type { OperationOption } from '../node.type';
import { paths } from '../../transport/paths';

/** Its fields. */
export const description: INodeProperties[] = [
	customerLocator,
	agentSelect(
		{
			description:
				'The agent to open the dialog on. May be left empty only when the customer already has a dialog or a deal to inherit it from. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		'inheritedAgent',
	),
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Open',
	action: 'Open a conversation',
	description:
		'Open a dialog with a customer on an agent without messaging them, or get the open one. Scope: customers:write.',
};

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const agentId = optionalAgentId(this, itemIndex);
	const customerId = await resolveCustomerId(this, itemIndex);
	const { status, body } = await apiRequest<IDataObject>(this, {
		method: 'POST',
		path: paths.customer(customerId, '/conversations'),
		body: { agent_id: agentId ?? null },
		// Idempotent by construction: an open dialog for the pair is returned untouched.
		idempotent: true,
		scope: 'customers:write',
		itemIndex,
	});
	return [
		{
			...body,
			created: body.created ?? status === 201,
			customer_blocked: body.customer_blocked ?? false,
			customer_id: customerId,
		},
	];
}
