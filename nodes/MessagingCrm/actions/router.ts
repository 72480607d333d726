import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError, errorItem } from './errors';
import * as agent from './agent/Agent.resource';
import * as conversation from './conversation/Conversation.resource';
import * as customer from './customer/Customer.resource';
import * as deal from './deal/Deal.resource';
import * as message from './message/Message.resource';
import type { MessagingCrmMap, Operation, Resource } from './node.type';
import * as pipeline from './pipeline/Pipeline.resource';
import * as promoCode from './promoCode/PromoCode.resource';
import * as promoPool from './promoPool/PromoPool.resource';
import * as template from './template/Template.resource';
import * as variable from './variable/Variable.resource';

const resources: { [R in Resource]: Record<MessagingCrmMap[R], Operation> } = {
	agent: agent.operations,
	conversation: conversation.operations,
	customer: customer.operations,
	deal: deal.operations,
	message: message.operations,
	pipeline: pipeline.operations,
	promoCode: promoCode.operations,
	promoPool: promoPool.operations,
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

/** The per-item loop: owns Continue on fail and pairedItem for every operation. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const output: INodeExecutionData[] = [];
	if (items.length === 0) return [output];
	// Resource and operation take no expressions: one lookup serves every item.
	const operation = operationFor(this, 0);
	const whole = operation.executeBatch ? await operation.executeBatch.call(this) : null;
	if (whole) return [whole];
	const runItem = async (itemIndex: number): Promise<INodeExecutionData[]> => {
		try {
			const results = await operation.execute.call(this, itemIndex);
			return results.map((json) => ({ json, pairedItem: { item: itemIndex } }));
		} catch (caught) {
			const error = asNodeError(this, caught, itemIndex);
			if (!this.continueOnFail()) throw error;
			return [{ json: errorItem(error), pairedItem: { item: itemIndex } }];
		}
	};
	const width = Math.max(1, operation.concurrency ?? 1);
	for (let start = 0; start < items.length; start += width) {
		const indexes = Array.from({ length: Math.min(width, items.length - start) }, (_, i) => start + i);
		// Results keep the order of the input items whatever order the answers come in.
		for (const results of await Promise.all(indexes.map(runItem))) output.push(...results);
	}
	return [output];
}
