import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { asNodeError, invalidInput, itemError } from '../../helpers/validate';
import { apiFailureOf } from '../../transport/errors';
import { runsAsTool } from '../../helpers/runsAsTool';
import { customerLocator, resolveCustomerId } from '../../shared/customer';
import { optionalAgentId } from '../../shared/descriptions';
import { customKey } from '../../shared/idempotency';
import { paramsOf, readWait } from '../../wait/config';
import { waitFields } from '../../wait/description';
import { withLinks } from '../../wait/links';
import type { OperationOption } from '../node.type';
import { messengerOrderField } from './bestAvailable';
import { agentField, deliver, messengerField, messengerOf } from './delivery';

/** Its fields: Send's customer, messenger and agent, then the question and its wait. */
export const description: INodeProperties[] = [
	customerLocator,
	messengerField,
	messengerOrderField,
	agentField,
	...waitFields,
];

/** Its entry in the Operation dropdown. */
export const option: OperationOption = {
	name: 'Send and Wait for Response',
	action: 'Send message and wait for response',
	description:
		"Send a message with links to approve, decline or answer a form, and pause the workflow until the customer answers (or Limit Wait Time runs out). Opening a link never answers: only the page's button does. One item per run. Scope: messages:send.",
};

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	if (runsAsTool(this))
		throw itemError(
			node,
			itemIndex,
			'Send and Wait for Response cannot run as a tool',
			"An AI Agent's tool call cannot pause the workflow. In n8n 2.x, connect this node to the agent's tool as its human review step (Messaging CRM under Human in the Loop), or use Send.",
			{
				code: 'operation_not_available',
				caller:
					'this tool is set to send a message and wait for the answer, which a tool call cannot do',
				next: 'Nothing was sent. Whoever set up this tool in n8n must set its operation to Send, or connect it as the human review step of a tool.',
			},
		);
	const count = this.getInputData().length;
	if (count > 1)
		throw invalidInput(
			node,
			itemIndex,
			'Input',
			`has ${count} items; Send and Wait for Response sends one message per run and waits once`,
			'Put a Loop Over Items node (batch size 1) before it, so that each customer is asked in a run of its own.',
		);
	const messengerType = messengerOf(this, itemIndex);
	const wait = readWait(paramsOf(this, itemIndex), Date.now());
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const ownKey = customKey(this, itemIndex, options.idempotencyKey);
	const base: IDataObject = { agent_id: optionalAgentId(this, itemIndex) };
	const customerId = await resolveCustomerId(this, itemIndex);
	// n8n 1.x checks the links' signature only when asked to.
	const signed = this as IExecuteFunctions & { setSignatureValidationRequired?: () => void };
	if (typeof signed.setSignatureValidationRequired === 'function')
		signed.setSignatureValidationRequired();
	let sent: IDataObject;
	try {
		[sent] = await deliver(this, itemIndex, customerId, {
			messengerType,
			body: (messenger) => ({
				...base,
				messenger_type: messenger,
				text: withLinks(this, wait, customerId, messenger),
			}),
			// The links change with every execution: the key is made from what the customer is asked.
			keyBody: {
				...base,
				messenger_type: messengerType,
				text: wait.message,
				response: wait.responseType,
				choices: wait.choices as unknown as IDataObject[],
			},
			purpose: 'message-send-and-wait',
			scope: 'messages:send',
			ownKey,
			protection: options.repeatProtection,
			checkWindow: false,
		});
	} catch (error) {
		if (apiFailureOf(error)?.code !== 'idempotency_key_reused')
			throw asNodeError(this, error, itemIndex);
		// The key was used with other links: an earlier execution of the same event asked (or was
		// refused), and its links answer that execution. The same execution again (the node's
		// Retry On Fail) sends the same links: the API replays the send, and this one waits.
		throw itemError(
			node,
			itemIndex,
			'this question went out for the same event in an earlier execution (or was refused then): nothing was sent now, and this execution does not wait',
			'The links the customer has answer the execution that sent them. To ask again: Options → Repeat Protection → Every Execution Sends, or map your own Idempotency Key.',
			{
				code: 'idempotency_key_reused',
				caller:
					'this question was already sent for the same event by an earlier run, whose links answer that run',
				next: 'Nothing was sent. Do not ask again for this event; whoever set up this tool in n8n can change its Repeat Protection.',
			},
		);
	}
	await this.putExecutionToWait(wait.waitTill);
	return [sent];
}
