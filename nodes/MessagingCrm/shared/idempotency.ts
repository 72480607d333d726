import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	NodeExecutionHint,
} from 'n8n-workflow';

import { hashOf } from '../helpers/hash';
import { perRun } from '../helpers/perRun';
import { invalidInput } from '../helpers/validate';
import { eventOf, lineageLostAt, triggerNames } from './event';
import { runsAsTool } from '../helpers/runsAsTool';
import type { PanelHint } from './descriptions';

/**
 * Repeat Protection's values. Same Event is stored as `input`, the value saved workflows hold,
 * although its key is made from the event and the request (below), not from the input alone.
 */
export const REPEAT = { sameEvent: 'input', everyExecution: 'execution' } as const;

/**
 * How the default Idempotency-Key is made. Same Event (the default):
 * from the event (the trigger item the input item descends from, event.ts), the workflow, the
 * node, its run and the request itself, so that any re-run of the same event (n8n's Retry, the
 * editor, a webhook delivered again) sends nothing twice, while a new event sends, the same words
 * or not. Every Execution: from the execution, node, run and item, so that every execution sends,
 * identical or not (n8n's Retry then sends again what had gone through).
 */
export const repeatProtectionOption: INodeProperties = {
	displayName: 'Repeat Protection',
	name: 'repeatProtection',
	type: 'options',
	// REPEAT.sameEvent, written out: n8n's linter reads a default only as a literal.
	default: 'input',
	options: [
		{
			name: 'Same Event: Send Once',
			value: REPEAT.sameEvent,
			description:
				"The same event run again within 24 hours (n8n's Retry of a failed execution, the editor on the same trigger data, the same webhook body delivered again) returns the first answer for what went through instead of sending again; an item that was refused is tried anew. A new event (another schedule tick, form submission or webhook body) sends, even the same words.",
		},
		{
			name: 'Every Execution Sends',
			value: REPEAT.everyExecution,
			description:
				"A key per execution and item: every execution sends, a re-run of the same event too, and so does n8n's Retry of a failed execution for what had gone through",
		},
	],
	description:
		"What a repeat does. The default sends once per event: running the same event again sends nothing twice, and every new event sends, so an hourly reminder with the same text goes out every hour. The event is the trigger's item this item comes from (for a webhook, its body, query and path, not its headers).",
};

export const idempotencyKeyOption: INodeProperties = {
	displayName: 'Idempotency Key',
	name: 'idempotencyKey',
	type: 'string',
	default: '',
	placeholder: 'e.g. {{ $json.submissionId }}',
	description:
		'Your own Idempotency-Key instead of the one Repeat Protection derives: a repeat with the same key within 24 hours returns the first answer and does nothing again. Map something stable, such as a form submission or order ID.',
};

/** What a derived key is made from. */
export interface KeySource {
	/** Repeat Protection's value (REPEAT). */
	protection: unknown;
	/** The operation, so that two operations of one node never share a key. */
	purpose: string;
	path: string;
	body: IDataObject;
}

function digest(parts: unknown[]): string {
	return `n8n-${hashOf(parts).slice(0, 40)}`;
}

// Per node run (the context object), what all its items' keys share.
const runs = new WeakMap<object, { workflow: string; node: string; runIndex: number }>();

function runOf(ctx: IExecuteFunctions): { workflow: string; node: string; runIndex: number } {
	return perRun(runs, ctx, () => ({
		workflow: ctx.getWorkflow().id ?? '',
		node: ctx.getNode().id,
		runIndex: ctx.getWorkflowDataProxy(0).$runIndex,
	}));
}

/** The item's event (event.ts); a lineage that cannot even be read never fails the item. */
function safeEventOf(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	try {
		return eventOf(ctx, itemIndex)?.identity;
	} catch {
		return undefined;
	}
}

/** The user's own key from the node's options, checked before any request; undefined when empty. */
export function customKey(
	ctx: IExecuteFunctions,
	itemIndex: number,
	value: unknown,
): string | undefined {
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	const key = value.trim();
	if (key.length > 255) {
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			'Idempotency Key',
			'is longer than 255 characters',
			'Use a shorter key, for example an ID or a hash of the submission.',
			{
				problem: 'the idempotency key this tool is given is longer than 255 characters',
				next: "Nothing was sent or changed. The key comes from this tool's settings in n8n: whoever set up this tool must shorten it.",
			},
		);
	}
	return key;
}

/**
 * The Idempotency-Key Repeat Protection derives for one request: from the event (the trigger item
 * this item descends from, event.ts), the workflow, the node, its run and the request itself (path
 * and body), so that it can never be reused with another body, whatever scope the server keeps
 * keys in, and a second event asking for the same words is a new send. Not from the input item:
 * what reaches the node can differ on a re-run of the same event although the request does not
 * (an Open Conversation before it answers `created: true` the first time and `false` after; a Get
 * Customer shows the message the first run sent), and a re-run would then send again what had
 * gone through. The trigger's item does not change on a re-run.
 */
export function derivedKey(ctx: IExecuteFunctions, itemIndex: number, source: KeySource): string {
	const { workflow, node, runIndex } = runOf(ctx);
	if (source.protection === REPEAT.everyExecution) {
		return digest([workflow, ctx.getExecutionId(), node, runIndex, itemIndex, source.purpose]);
	}
	if (runsAsTool(ctx)) {
		const input = ctx.getInputData()[itemIndex]?.json ?? {};
		// An AI Agent's call: n8n numbers the tool's runs and gives each call the model's new call
		// ID, so neither may count, or a model repeating itself, and n8n's Retry of the agent's
		// execution, would send twice. The agent's input (the chat message) and the arguments do.
		const call = { ...input, toolCallId: undefined };
		return digest([workflow, node, source.purpose, source.path, source.body, call]);
	}
	const request = [workflow, node, runIndex, source.purpose, source.path, source.body];
	const event = safeEventOf(ctx, itemIndex);
	// No trigger upstream ran (a node run on its own): the request alone, as before events counted.
	return digest(event === undefined ? request : [...request, { event }]);
}

/**
 * The key of the n-th fresh try after stored refusals (n ≥ 1): a refusal delivered nothing, so a
 * run that meets the item's key answered with a stored refusal tries once more under the next
 * link. The same links in every run, so that a try that went through is found (replayed) by the
 * next run before anything new is sent.
 */
export function refusalLinkKey(key: string, link: number): string {
	return link === 0 ? key : digest([key, 'after-refusal', link]);
}

/**
 * The key of one messenger's tries when the node picks the messenger (Best Available), from the
 * item's key: each messenger has its own key chain, so a re-run finds what went through on any
 * of them, whatever the order it walks them in.
 */
export function messengerKey(key: string, messenger: string): string {
	return digest([key, 'messenger', messenger]);
}

/** The key of the template sent instead of text when the window is closed, from the text's key. */
export function windowFallbackKey(key: string): string {
	return digest([key, 'window-fallback']);
}

// Per node run, the keys this run has sent: a stored answer to one of them is this run's own.
const sentByRun = new WeakMap<object, Set<string>>();

/** The keys this node run has sent so far (a set that lives as long as the run). */
export function keysSentBy(ctx: IExecuteFunctions): Set<string> {
	return perRun(sentByRun, ctx, () => new Set<string>());
}

/** The words a repeat-protected write uses: what it does and what it did not do again. */
interface RepeatWords {
	/** "sent this message", "created or updated this customer" */
	did: string;
	/** "sent", "changed" */
	nothing: string;
	/** "send it", "write it" */
	again: string;
	/** "sent", "written" */
	done: string;
	/** What a re-run does not make: "no second message goes out", "nothing is written twice" */
	noSecond: string;
	/** What a tool caller can do instead of repeating itself (a caller has no Options to set). */
	callerNext: string;
}

export const SEND_WORDS: RepeatWords = {
	did: 'sent this message to this customer',
	nothing: 'sent',
	again: 'send it again',
	done: 'sent',
	noSecond: 'no second message goes out',
	callerNext:
		'Calling again with the same arguments sends nothing more; a message in other words is a new send.',
};
export const UPSERT_WORDS: RepeatWords = {
	did: 'wrote this customer',
	nothing: 'changed',
	again: 'write it again',
	done: 'written',
	noSecond: 'nothing is written twice',
	callerNext:
		'Calling again with the same arguments writes nothing more; other values are written.',
};

const TO_DO_AGAIN =
	'set Options → Repeat Protection → Every Execution Sends, or map a new Idempotency Key';

/**
 * The output fields of an answer the API marked as its stored one (`Idempotent-Replayed`): a flag
 * for an IF node, or a caller to branch on, and a sentence for a person. Nothing when unmarked
 * (the spec defines no marker, so most answers to a repeat will be unmarked: the execution hint
 * says so). The flag is the repeat's only code: the spec gives a replay none, and it is no
 * failure. As a tool (an AI agent's or an MCP client's), the sentence speaks of the call, not of
 * events and the node's options, which a caller cannot set.
 */
export function repeatFields(
	ctx: IExecuteFunctions,
	replayed: boolean,
	words: RepeatWords,
): IDataObject {
	if (!replayed) return {};
	return {
		replayed: true,
		repeat: runsAsTool(ctx)
			? `Nothing was ${words.nothing} this time: a call with the same arguments already ${words.did} within the last 24 hours, and this is the API's answer to that first call. ${words.callerNext}`
			: `Nothing was ${words.nothing} this time: this node already ${words.did} for the same event within 24 hours (this is a re-run of it), and this is the API's answer to that first one. To ${words.again}, ${TO_DO_AGAIN}.`,
	};
}

/**
 * The execution hints of a repeat-protected write's run, for the output pane: how many items the
 * API marked as repeats, or, when it marked none, that a repeat would still look like the first
 * answer (not every API marks them). None when every execution sends.
 */
export function repeatHints(
	ctx: IExecuteFunctions,
	items: Array<{ json: IDataObject }>,
	words: RepeatWords,
): NodeExecutionHint[] {
	return [...lineageHints(ctx, words), ...replayHints(ctx, items, words)];
}

/**
 * Where items could not be traced back to their trigger item: which node dropped the link, what
 * the key was made from instead, and how to give each item its own event again.
 */
function lineageHints(ctx: IExecuteFunctions, words: RepeatWords): NodeExecutionHint[] {
	const triggers = triggerNames(ctx)
		.map((name) => `"${name}"`)
		.join(' and ');
	return lineageLostAt(ctx).map(([node, count]) => ({
		type: 'warning',
		location: 'outputPane',
		message: `${count} item${count === 1 ? '' : 's'} could not be traced back to the ${triggers} item ${count === 1 ? 'it' : 'they'} came from: "${node}" gives its items no link to the items they were made from (n8n's item linking). Repeat Protection took everything ${triggers} gave this execution as their event instead: running this execution again leaves nothing ${words.nothing} twice, and a new execution is a new event. For one event per item, keep the link in "${node}" (a Code node: return <code>pairedItem</code>) or map your own Idempotency Key.`,
	}));
}

function replayHints(
	ctx: IExecuteFunctions,
	items: Array<{ json: IDataObject }>,
	words: RepeatWords,
): NodeExecutionHint[] {
	// The raw settings, not their values for an item: an own key, even an expression, decides.
	const options = (ctx.getNode().parameters.options ?? {}) as IDataObject;
	const ownKey = typeof options.idempotencyKey === 'string' && options.idempotencyKey.trim() !== '';
	const protection = options.repeatProtection;
	if (!ownKey && protection === REPEAT.everyExecution) return [];
	const answered = items.filter((i) => i.json.error === undefined);
	if (answered.length === 0) return [];
	const marked = answered.filter((i) => i.json.replayed === true).length;
	if (marked > 0) {
		return [
			{
				type: 'warning',
				location: 'outputPane',
				message: `${marked} of ${answered.length} item${answered.length === 1 ? ' was a repeat' : 's were repeats'}: this node already ${words.did} for the same event within 24 hours, so nothing was ${words.nothing} for ${marked === 1 ? 'it' : 'them'} this time (marked <code>replayed: true</code>). To ${words.again}, ${TO_DO_AGAIN}.`,
			},
		];
	}
	// Said first as what happened, since an unmarked answer is most often a first send; then what
	// a re-run would give, which an unmarked server makes look the same.
	const count = `${answered.length} item${answered.length === 1 ? '' : 's'}`;
	return [
		{
			type: 'info',
			location: 'outputPane',
			message: `The API accepted ${count}. Repeat Protection is on: if this same event runs again within 24 hours, the API answers with this same result and ${words.noSecond}. To ${words.again} on purpose, ${TO_DO_AGAIN}.`,
		},
	];
}

/**
 * Before a run, in the output pane of Send and Create or Update: that running the same event again
 * does not repeat it, also from the editor on the same trigger data (the choice made for manual
 * runs: a campaign re-run from the editor must not send twice), and that a new event sends. Shown
 * while Repeat Protection applies.
 */
export function repeatProtectionHint(words: RepeatWords): PanelHint {
	return {
		when: '!($parameter["options"] ?? {})["idempotencyKey"] && ($parameter["options"] ?? {})["repeatProtection"] !== "execution"',
		message: `Safe to run again: the same event run again within 24 hours, a test run from the editor on the same trigger data too, is answered with the first result and nothing is ${words.nothing} twice; every new event is ${words.done}. To ${words.again} on purpose, ${TO_DO_AGAIN}.`,
	};
}
