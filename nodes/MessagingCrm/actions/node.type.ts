import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	NodeExecutionHint,
} from 'n8n-workflow';

import type { PanelHint } from '../shared/descriptions';

// Defined beneath actions/ (shared/idempotency.ts makes one); operations take it from here.
export type { PanelHint } from '../shared/descriptions';

/**
 * An operation's entry in its resource's Operation dropdown. Its value is the operation's key in
 * its resource file (`export * as <key>`): the registry stamps it, and the fields' display options.
 */
export interface OperationOption {
	name: string;
	/** The line n8n shows in the node picker and the AI tool list. */
	action: string;
	/** What it does, the identifier forms it takes and the scope it needs. */
	description: string;
}

/**
 * How an operation groups its input items for one run (e.g. one upload for the codes of every
 * item): `prepare` reads one item into its group, `run` does one group's work. The router owns
 * the loop, pairing every output with all items of its group, Continue on fail and error items.
 */
export interface Grouping<Part = unknown> {
	/** Whether this run groups its items at all; otherwise they run one by one. */
	applies(this: IExecuteFunctions): boolean;
	prepare(this: IExecuteFunctions, itemIndex: number): Promise<{ key: string; part: Part }>;
	/** `itemIndexes` are the group's items in input order; errors name the first. */
	run(
		this: IExecuteFunctions,
		key: string,
		parts: Part[],
		itemIndexes: number[],
	): Promise<IDataObject[]>;
}

/** One operation module: its dropdown entry, its fields, and what it does for one input item. */
export interface Operation {
	option: OperationOption;
	/** Its fields, as they are: the registry shows them for this resource and operation only. */
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]>;
	/** Declared when the operation can take several items as one group. */
	group?: Grouping<unknown>;
	/**
	 * Reads with no effect on each other may run this many items at once (the transport still
	 * paces them under the rate limit). Writes run one by one, in order.
	 */
	concurrency?: number;
	/** What the output pane says after a run (n8n's execution hints), from the run's output. */
	hints?(this: IExecuteFunctions, output: INodeExecutionData[]): NodeExecutionHint[];
	/** What the output pane says before a run, while `when` holds (the registry adds the operation). */
	panelHint?: PanelHint;
}

/** A resource: its name in the Resource dropdown, its default operation, and its operations. */
export interface ResourceDefinition {
	name: string;
	description?: string;
	defaultOperation: string;
	/** The resource file's module: one `export * as <op> from './<op>.operation'` line each. */
	operations: Record<string, Operation>;
}
