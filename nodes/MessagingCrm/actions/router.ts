import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiFailureOf } from '../transport/errors';
import * as agent from './agent/Agent.resource';
import * as conversation from './conversation/Conversation.resource';
import * as customer from './customer/Customer.resource';
import * as deal from './deal/Deal.resource';
import * as message from './message/Message.resource';
import type { MessagingCrmMap, Operation, Resource } from './node.type';
import * as pipeline from './pipeline/Pipeline.resource';
import * as template from './template/Template.resource';
import * as variable from './variable/Variable.resource';

const resources: { [R in Resource]: Record<MessagingCrmMap[R], Operation> } = {
	agent: agent.operations,
	conversation: conversation.operations,
	customer: customer.operations,
	deal: deal.operations,
	message: message.operations,
	pipeline: pipeline.operations,
	template: template.operations,
	variable: variable.operations,
};

function operationFor(ctx: IExecuteFunctions, itemIndex: number): Operation {
	const resource = ctx.getNodeParameter('resource', itemIndex) as string;
	const operation = ctx.getNodeParameter('operation', itemIndex) as string;
	const handler = (resources as Record<string, Record<string, Operation> | undefined>)[resource]?.[
		operation
	];
	if (!handler) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The operation "${operation}" of resource "${resource}" is not supported`,
			{ itemIndex },
		);
	}
	return handler;
}

/**
 * The error item "Continue on fail" puts out for a failed input item. Only `error` and `details`
 * at the top: that is the shape n8n routes to the error output under "Continue (using error
 * output)" without rewriting it. `details` holds the envelope's details (reason, retryable …)
 * plus the code, the HTTP status and the hint.
 */
function errorItem(error: NodeApiError | NodeOperationError): IDataObject {
	const failure = apiFailureOf(error);
	const details: IDataObject = { ...(failure?.details ?? {}) };
	if (failure) {
		details.code = failure.code;
		if (failure.status !== undefined) details.httpCode = failure.status;
	}
	if (error.description) details.description = error.description;
	return { error: error.message, details };
}

/** Unexpected errors still leave as n8n errors naming the item; nothing crashes untyped. */
function asNodeError(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	const message = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(ctx.getNode(), `Item ${itemIndex + 1}: ${message}`, { itemIndex });
}

/** The per-item loop: owns Continue on fail and pairedItem for every operation. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const operation = operationFor(this, itemIndex);
			const results = await operation.execute.call(this, itemIndex);
			for (const json of results) output.push({ json, pairedItem: { item: itemIndex } });
		} catch (caught) {
			const error = asNodeError(this, caught, itemIndex);
			if (!this.continueOnFail()) throw error;
			output.push({ json: errorItem(error), pairedItem: { item: itemIndex } });
		}
	}
	return [output];
}
