import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/** Every resource and its operations: the router dispatches only on these names. */
export type MessagingCrmMap = {
	agent: 'getMany';
	conversation: 'open';
	customer: 'upsert' | 'get' | 'find' | 'merge' | 'getMessengers';
	deal: 'getMany' | 'create' | 'moveStage' | 'close';
	message: 'send';
	pipeline: 'getMany';
	template: 'getMany' | 'create';
	variable: 'get' | 'set';
};

export type Resource = keyof MessagingCrmMap;

/** One operation module: its UI and what it does for one input item. */
export interface Operation {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]>;
}

export type ResourceOperations<R extends Resource> = Record<MessagingCrmMap[R], Operation>;
