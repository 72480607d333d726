import type {
	IDataObject,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
	IPollFunctions,
} from 'n8n-workflow';

import type { Emitted, TriggerState } from './state';

/**
 * What every family's filters are read into: one flat record, so that two families sharing a
 * field (the agent filter of pools and templates) share its value. Each family reads its own
 * (`EventFamily.settings`) and reads the others' as absent.
 */
export interface TriggerSettings {
	/** The families of the events picked, in the registry's order. */
	families: EventFamily[];
	/** The events picked, sorted (for the baseline's key). */
	events: string[];
	/** As picked: Fetch Test Event samples the first. */
	picked: string[];
	/** Options → Share of the Rate Limit: the percentage of the key's limit one poll may use. */
	pollSharePercent: number;
	/** Each family's filters, by field name. */
	filters: IDataObject;
}

/** What a family's poll step is given, besides the settings. */
export interface PollStep {
	/** The state as the families before this one left it this poll (nothing is stored yet). */
	state: TriggerState;
	/** The events picked. */
	wanted: ReadonlySet<string>;
	/**
	 * Requests this family may still spend this poll, for a state whose `rateLimit` is current:
	 * the poll's share of the key's limit less what was spent and what the families after it need;
	 * for a family that takes the rest, its even part of what is left.
	 */
	budget(state: TriggerState): number;
	/** Counts requests spent. */
	spent(requests: number): void;
}

/**
 * One family of the trigger's events (pool counters, deals or messengers of watched customers,
 * template moderation): everything the trigger needs of it. Registered in `families.ts`; the
 * node's description, the settings and the poll are built from the registry.
 */
export interface EventFamily {
	/** The family's word in the baseline's key (saved states hold it: never change it). */
	name: string;
	/** Its events' values, in the order of its state module. */
	events: readonly string[];
	/** Its events as the Events list shows them (the picker: "On pool became low"). */
	eventOptions: INodePropertyOptions[];
	/**
	 * Its fields, without display options: the description shows each where one of its families'
	 * events is picked (a field two families list appears once, at the first).
	 */
	fields: INodeProperties[];
	/** Version 1's Watch value, for the two families version 1 had. */
	v1Watch?: 'pools' | 'deals';
	/** Requests it needs in every poll, set aside while the families before it read. */
	reserve: number;
	/**
	 * It takes what is left of the budget (shared evenly with the others that do), so it reads
	 * after those of a fixed cost.
	 */
	takesTheRest?: boolean;
	/** Reads and checks its fields (a NodeOperationError before any request). */
	settings(ctx: IPollFunctions): IDataObject;
	/** Fetch Test Event: a sample of `event` from the current data; nothing is stored. */
	sample(
		ctx: IPollFunctions,
		settings: TriggerSettings,
		event: string,
	): Promise<INodeExecutionData[]>;
	/** One poll: read, compare with the state, and give the next state and the events. */
	poll(
		ctx: IPollFunctions,
		settings: TriggerSettings,
		step: PollStep,
	): Promise<{ state: TriggerState; events: Emitted[] }>;
}
