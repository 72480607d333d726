import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

/** Every resource and its operations: the router dispatches only on these names. */
export type MessagingCrmMap = {
	agent: 'getMany';
	conversation: 'open';
	customer: 'upsert' | 'get' | 'find' | 'merge' | 'getMessengers';
	deal: 'getMany' | 'create' | 'moveStage' | 'close';
	message: 'send';
	pipeline: 'getMany';
	promoCode: 'getMany' | 'upload' | 'revoke' | 'findOwner';
	promoPool: 'getMany' | 'get' | 'update';
	template: 'getMany' | 'create';
	variable: 'get' | 'set';
};

export type Resource = keyof MessagingCrmMap;

/** One operation module: its UI and what it does for one input item. */
export interface Operation {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]>;
	/**
	 * For operations that can take all input items at once (e.g. one upload for the codes of every
	 * item): the whole output with its pairing, or null to run item by item.
	 */
	executeBatch?(this: IExecuteFunctions): Promise<INodeExecutionData[] | null>;
	/**
	 * Reads with no effect on each other may run this many items at once (the transport still
	 * paces them under the rate limit). Writes run one by one, in order.
	 */
	concurrency?: number;
}

export type ResourceOperations<R extends Resource> = Record<MessagingCrmMap[R], Operation>;
