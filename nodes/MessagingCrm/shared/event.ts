import type {
	IBinaryKeyData,
	IDataObject,
	IExecuteFunctions,
	IPairedItemData,
	ISourceData,
} from 'n8n-workflow';

import { hashOf } from '../helpers/hash';
import { perRun } from '../helpers/perRun';

/**
 * The event an input item belongs to, for the derived Idempotency-Key: the item of the workflow's
 * trigger (or of a sub-workflow's Execute Workflow Trigger) it descends from, reached through n8n's
 * paired items as `$('Trigger').item` reaches it, and, after a Send and Wait for Response of this
 * node, the customer's answer it descends from (each answer is an event of its own: a question
 * asked again gets its follow-ups again). A re-run of one event (n8n's Retry, the editor on the
 * same or pinned trigger data, the same webhook body delivered again) finds the same items; two
 * events with the same words (two schedule ticks, two form submissions, two answers) find two.
 */
export interface EventOf {
	/** A hash of what names the event: the trigger item without its delivery fields (or, when the
	 * item's lineage is lost, everything that trigger gave this execution), with the customer's
	 * answer to each Send and Wait for Response on the way. */
	identity: string;
}

/**
 * Fields of a trigger's item that describe one delivery, not the event: a webhook delivered again
 * comes with other headers (a delivery ID, a signature with a timestamp, a retry counter); a form
 * says whether it was the test or the production URL. The body, query, path parameters and a form's
 * answers with its `submittedAt` stay.
 */
const DELIVERY_FIELDS: Record<string, string[]> = {
	'n8n-nodes-base.webhook': ['headers', 'webhookUrl', 'executionMode'],
	'n8n-nodes-base.formTrigger': ['formMode'],
};

/** A file's identity without where this n8n happens to store it (memory mode keeps the content). */
function binaryIdentity(binary: IBinaryKeyData | undefined): IDataObject | undefined {
	if (!binary || Object.keys(binary).length === 0) return undefined;
	return Object.fromEntries(
		Object.entries(binary).map(([name, file]) => [
			name,
			{ ...file, id: undefined, directory: undefined } as IDataObject,
		]),
	);
}

/** An item as `$()` returns it: the whole item, or its JSON alone (n8n's combined binary mode). */
function identityOf(type: string, found: unknown): IDataObject {
	const item = (found ?? {}) as { json?: unknown; binary?: IBinaryKeyData };
	const json = (
		item.json && typeof item.json === 'object' ? item.json : (found ?? {})
	) as IDataObject;
	const kept: IDataObject = { ...json };
	for (const field of DELIVERY_FIELDS[type] ?? []) delete kept[field];
	return { json: kept, binary: binaryIdentity(item.binary) };
}

interface Trigger {
	name: string;
	type: string;
}

/** n8n's walk back through paired items (what `$('Trigger').item` calls). */
type PairedItemWalk = (
	destination: string,
	source: ISourceData,
	pairedItem: IPairedItemData,
) => unknown;

/** The part of n8n's data proxy this module reads (one proxy for the whole run). */
interface DataProxy {
	$: (name: string, fullItem?: boolean) => { isExecuted?: boolean; all: () => unknown[] };
	$getPairedItem?: PairedItemWalk;
}

interface RunEvents {
	triggers: Trigger[];
	/** The Send and Wait for Response nodes upstream that ran now: their answers are events too. */
	answers: Trigger[];
	proxy?: DataProxy;
	/** Per trigger, the identity of everything it gave this execution (made once, when needed). */
	whole: Map<string, string>;
	/** Per trigger item found, its identity: many items of one event hash it once. */
	seen: WeakMap<object, string>;
	/** Nodes whose items lost their pairing, and how many items of this run, for the output pane. */
	lost: Map<string, number>;
}

const runs = new WeakMap<object, RunEvents>();

/** The workflow's start nodes upstream of this node (no main input of their own) that ran now. */
function triggersOf(ctx: IExecuteFunctions, proxy: DataProxy): Trigger[] {
	return ctx
		.getParentNodes(ctx.getNode().name)
		.filter((node) => !node.disabled && ctx.getParentNodes(node.name, { depth: 1 }).length === 0)
		.filter((node) => ran(proxy, node.name))
		.map(({ name, type }) => ({ name, type }));
}

/** The operation value of Message → Send and Wait for Response (its key in Message.resource.ts). */
const SEND_AND_WAIT = 'sendAndWait';

/** Whether `node` ran in this execution. */
function ran(proxy: DataProxy, node: string): boolean {
	try {
		return proxy.$(node).isExecuted === true;
	} catch {
		return false;
	}
}

/**
 * The Send and Wait for Response nodes of this package upstream of this node that ran now: an item
 * after one descends from the customer's answer (or, once Limit Wait Time ran out, its input).
 */
function answersOf(ctx: IExecuteFunctions, proxy: DataProxy): Trigger[] {
	const type = `${ctx.getNode().type.split('.')[0]}.messagingCrm`;
	return ctx
		.getParentNodes(ctx.getNode().name, { includeNodeParameters: true })
		.filter((node) => !node.disabled && node.type === type)
		.filter((node) => node.parameters?.operation === SEND_AND_WAIT && ran(proxy, node.name))
		.map(({ name, type }) => ({ name, type }));
}

function runEventsOf(ctx: IExecuteFunctions): RunEvents {
	return perRun(runs, ctx, () => {
		const run: RunEvents = {
			triggers: [],
			answers: [],
			whole: new Map(),
			seen: new WeakMap(),
			lost: new Map(),
		};
		// An n8n without getParentNodes: no lineage, the request alone keys.
		if (typeof ctx.getParentNodes !== 'function') return run;
		run.proxy = ctx.getWorkflowDataProxy(0) as unknown as DataProxy;
		run.triggers = triggersOf(ctx, run.proxy);
		run.answers = run.triggers.length ? answersOf(ctx, run.proxy) : [];
		return run;
	});
}

/** The node that dropped the pairing, as n8n's paired-item error names it. */
function lostAt(ctx: IExecuteFunctions, error: unknown, trigger: string): string {
	const cause = (error as { context?: { nodeCause?: unknown } })?.context?.nodeCause;
	const own = ctx.getNode().name;
	if (typeof cause === 'string' && cause !== own && cause !== trigger) return cause;
	// The input item itself has no pairing: the node before this one gave it none.
	const previous = ctx.getInputSourceData?.(0)?.previousNode;
	return previous ?? (typeof cause === 'string' ? cause : trigger);
}

/** Everything a trigger gave this execution, as one identity (full items, whatever the binary mode). */
function wholeOutput(run: RunEvents, trigger: Trigger): string {
	let identity = run.whole.get(trigger.name);
	if (identity === undefined) {
		const items = run.proxy?.$(trigger.name, true).all() ?? [];
		identity = hashOf({ all: items.map((item) => identityOf(trigger.type, item)) });
		run.whole.set(trigger.name, identity);
	}
	return identity;
}

/**
 * The trigger's item an input item descends from, as `$('Trigger').item` finds it: from the input
 * item's pairing and the source of that input, through n8n's own walk (one proxy for the run: a
 * proxy per item cost more than the send); n8n's paired-item error where the link is lost.
 */
function triggerItem(
	ctx: IExecuteFunctions,
	run: RunEvents,
	trigger: string,
	itemIndex: number,
): unknown {
	const walk = run.proxy?.$getPairedItem;
	const sources = ctx.getExecuteData?.()?.source?.main;
	if (!walk || !sources?.length) {
		return (ctx.getWorkflowDataProxy(itemIndex).$(trigger) as { item: unknown }).item;
	}
	const pairedItem = ctx.getInputData()[itemIndex]?.pairedItem;
	const paired = typeof pairedItem === 'number' ? { item: pairedItem } : pairedItem;
	if (!paired || Array.isArray(paired)) throw new Error('The input item has no paired item');
	const source = sources[paired.input ?? 0] ?? sources[0];
	if (!source) throw new Error('The input item has no source');
	return walk(trigger, source, paired);
}

function itemIdentity(run: RunEvents, trigger: Trigger, found: unknown): string {
	if (!found || typeof found !== 'object') return hashOf(identityOf(trigger.type, found));
	let identity = run.seen.get(found);
	if (identity === undefined) {
		identity = hashOf(identityOf(trigger.type, found));
		run.seen.set(found, identity);
	}
	return identity;
}

/** A Send and Wait for Response's output item that is the customer's answer (not a time-out's input). */
function isAnswer(found: unknown): boolean {
	const item = (found ?? {}) as { json?: { data?: unknown } };
	const data = (item.json ?? item) as { data?: { respondedAt?: unknown } };
	return typeof data.data?.respondedAt === 'string';
}

/**
 * The event of one input item; undefined when no trigger upstream ran (a node run on its own). An
 * item made from several of a trigger's items (an Aggregate of a poll's events), or whose link back
 * is lost (a Code node that returns items without `pairedItem`), belongs to everything its trigger
 * gave this execution: a re-run of the execution finds the same, a new execution is a new event;
 * a lost link is recorded with the node that dropped it, for the output pane. A trigger the item
 * does not come from (another one's older run data in the editor) does not count. The answer of
 * each Send and Wait for Response upstream joins it (everything that node gave the execution, where
 * the link is lost); a time-out, which passes the node's input on, adds nothing.
 */
export function eventOf(ctx: IExecuteFunctions, itemIndex: number): EventOf | undefined {
	const run = runEventsOf(ctx);
	if (run.triggers.length === 0) return undefined;
	const identities: string[] = [];
	let firstError: { error: unknown; trigger: Trigger } | undefined;
	for (const trigger of run.triggers) {
		try {
			identities.push(itemIdentity(run, trigger, triggerItem(ctx, run, trigger.name, itemIndex)));
		} catch (error) {
			const type = (error as { context?: { type?: unknown } })?.context?.type;
			if (type === 'paired_item_multiple_matches') identities.push(wholeOutput(run, trigger));
			else firstError ??= { error, trigger };
		}
	}
	if (!identities.length) {
		const lost = lostAt(ctx, firstError?.error, firstError?.trigger.name ?? '');
		run.lost.set(lost, (run.lost.get(lost) ?? 0) + 1);
		identities.push(...run.triggers.map((trigger) => wholeOutput(run, trigger)));
	}
	for (const answer of run.answers) {
		try {
			const found = triggerItem(ctx, run, answer.name, itemIndex);
			if (isAnswer(found)) identities.push(itemIdentity(run, answer, found));
		} catch {
			identities.push(wholeOutput(run, answer));
		}
	}
	return { identity: identities.length === 1 ? identities[0] : hashOf(identities) };
}

/** The nodes whose items lost their pairing in this node run, with their item counts. */
export function lineageLostAt(ctx: IExecuteFunctions): Array<[node: string, items: number]> {
	return [...(runs.get(ctx)?.lost ?? [])];
}

/** The trigger this node run's events came from, by name, for the output pane. */
export function triggerNames(ctx: IExecuteFunctions): string[] {
	return (runs.get(ctx)?.triggers ?? []).map((t) => t.name);
}
