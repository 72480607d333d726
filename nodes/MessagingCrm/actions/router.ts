import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
	IPairedItemData,
	NodeExecutionHint,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError, errorItem, logFailure } from './errorItems';
import { invalidInput } from '../helpers/validate';
import type { Grouping, Operation } from './node.type';
import { operationOf } from './resources';
import { pacerSharePercentOf } from '../helpers/pacerShare';
import { runsAsTool } from '../helpers/runsAsTool';
import {
	answersFailure,
	failureAnswer,
	failureForMcp,
	nothingMatched,
	servesMcpClient,
} from './asTool';

function operationFor(ctx: IExecuteFunctions): Operation {
	const resource = ctx.getNodeParameter('resource', 0) as string;
	const operation = ctx.getNodeParameter('operation', 0) as string;
	const handler = operationOf(resource, operation);
	if (!handler) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The operation "${operation}" of resource "${resource}" is not supported`,
			{
				itemIndex: 0,
				description:
					'Pick the resource and the operation again from their dropdowns; if they come from an expression, make it give one of the listed values.',
			},
		);
	}
	return handler;
}

/** The node's Share of the Rate Limit, checked before any request (the transport reads it). */
function checkPacerShare(ctx: IExecuteFunctions): void {
	const share = pacerSharePercentOf(ctx);
	if (typeof share !== 'number' || !Number.isFinite(share) || share < 1 || share > 100) {
		throw new NodeOperationError(
			ctx.getNode(),
			`"Share of the Rate Limit (%)" must be a number from 1 to 100, got ${JSON.stringify(share)}`,
			{
				itemIndex: 0,
				description:
					'Set it to 100 to let the node use what the other clients of the key leave, or lower to keep headroom.',
			},
		);
	}
}

/**
 * Settles one unit of work (an item, or a group of items) into output items: what it returns,
 * paired; a failure becomes exactly one error item paired the same way, or stops the node without
 * Continue on fail (as an AI Agent's tool, the error item is the tool's answer; for an MCP client
 * it is thrown: see tool.ts). One call per unit, whatever HTTP tries (the transport's attempts) it
 * made.
 */
async function settle(
	ctx: IExecuteFunctions,
	firstItem: number,
	pairedItem: IPairedItemData | IPairedItemData[],
	work: () => Promise<IDataObject[]>,
): Promise<INodeExecutionData[]> {
	try {
		return (await work()).map((json) => ({ json, pairedItem }));
	} catch (caught) {
		const error = asNodeError(ctx, caught, firstItem);
		logFailure(ctx, error);
		if (servesMcpClient(ctx)) throw failureForMcp(ctx, error);
		if (answersFailure(ctx)) return [{ json: failureAnswer(error), pairedItem }];
		if (!ctx.continueOnFail()) throw error;
		return [{ json: errorItem(error), pairedItem }];
	}
}

/** Items one by one, or several at once for reads (order and pairing kept whatever the answers' order). */
async function runItems(
	ctx: IExecuteFunctions,
	operation: Operation,
	count: number,
): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	const width = Math.max(1, operation.concurrency ?? 1);
	for (let start = 0; start < count; start += width) {
		const indexes = Array.from({ length: Math.min(width, count - start) }, (_, i) => start + i);
		const results = await Promise.all(
			indexes.map(
				async (i) =>
					await settle(ctx, i, { item: i }, async () => {
						checkShapes(ctx, operation, i);
						return await operation.execute.call(ctx, i);
					}),
			),
		);
		for (const result of results) output.push(...result);
	}
	return output;
}

/**
 * A dropdown's value or a collection's shape the editor always gives right, arriving otherwise
 * (an expression's result, edited JSON): refused naming the item, the field and the choices,
 * before the operation reads it. Fields n8n does not show are not read.
 */
function checkShapes(ctx: IExecuteFunctions, operation: Operation, itemIndex: number): void {
	const absent = Symbol('absent');
	const refuse = (field: string, problem: string, fix: string) =>
		invalidInput(ctx.getNode(), itemIndex, field, problem, fix);
	for (const field of operation.description) {
		const listed = !field.typeOptions?.loadOptionsMethod;
		const choice = field.type === 'options' || field.type === 'multiOptions';
		const collection = field.type === 'collection' || field.type === 'fixedCollection';
		if (!(choice && listed) && !collection) continue;
		const value = ctx.getNodeParameter(field.name, itemIndex, absent as never) as unknown;
		if (value === absent || value === undefined) continue;
		if (choice) {
			const choices = (field.options ?? []) as INodePropertyOptions[];
			const names = choices.map((c) => c.name);
			const list = `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
			// A list may come as text from an expression (the operation reads it: Best Available's
			// order), and its values are the operation's to judge; only its shape is checked here.
			const plain = (v: unknown) => typeof v === 'string' || typeof v === 'number';
			const ok =
				field.type === 'options'
					? choices.some((c) => c.value === value)
					: typeof value === 'string' || (Array.isArray(value) && value.every(plain));
			if (!ok)
				throw refuse(
					field.displayName,
					`must be ${field.type === 'options' ? '' : 'a list of '}${list}, got ${shown(value)}`,
					`Choose ${list} in "${field.displayName}".`,
				);
			continue;
		}
		if (typeof value !== 'object' || value === null || Array.isArray(value))
			throw refuse(
				field.displayName,
				`must be a set of fields, got ${shown(value)}`,
				'Add its fields with "Add Field" (or, in an expression, give an object).',
			);
		// n8n reads a collection given as text by its fields' names: "abc".search is a function.
		for (const inner of (field.type === 'collection' ? field.options : []) as INodeProperties[]) {
			const got = (value as IDataObject)[inner.name];
			const text =
				inner.type === 'string' && !['string', 'number', 'undefined'].includes(typeof got);
			if (typeof got === 'function' || (text && got !== null))
				throw refuse(
					`${field.displayName} → ${inner.displayName}`,
					`must be ${inner.type === 'string' ? 'text' : `a ${inner.type}`}, got ${typeof got}`,
					`Give "${field.displayName}" as its fields (an object), not as text.`,
				);
		}
	}
}

/** A value as a refusal quotes it: its JSON, 60 characters at most. */
function shown(value: unknown): string {
	const json = JSON.stringify(value) ?? String(value);
	return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

/** A declared grouping: each item is read into its group (a bad item fails alone), then each group runs once. */
async function runGroups(
	ctx: IExecuteFunctions,
	operation: Operation,
	grouping: Grouping<unknown>,
	count: number,
): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	const groups = new Map<string, { parts: unknown[]; items: number[] }>();
	for (let i = 0; i < count; i++) {
		output.push(
			...(await settle(ctx, i, { item: i }, async () => {
				checkShapes(ctx, operation, i);
				const { key, part } = await grouping.prepare.call(ctx, i);
				const group = groups.get(key) ?? { parts: [], items: [] };
				group.parts.push(part);
				group.items.push(i);
				groups.set(key, group);
				return [];
			})),
		);
	}
	for (const [key, { parts, items }] of groups) {
		output.push(
			...(await settle(
				ctx,
				items[0],
				items.map((item) => ({ item })),
				async () => await grouping.run.call(ctx, key, parts, items),
			)),
		);
	}
	return output;
}

/** The operation's execution hints; a hint that cannot be made never fails a run that went through. */
function hintsOf(
	ctx: IExecuteFunctions,
	operation: Operation,
	output: INodeExecutionData[],
): NodeExecutionHint[] {
	try {
		return operation.hints?.call(ctx, output) ?? [];
	} catch {
		return [];
	}
}

/** The one loop over input items: owns pairing, Continue on fail and error items for every operation. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const count = this.getInputData().length;
	if (count === 0) return [[]];
	// Resource and operation take no expressions: one lookup serves every item.
	const operation = operationFor(this);
	checkPacerShare(this);
	const grouping = operation.group;
	const output = grouping?.applies.call(this)
		? await runGroups(this, operation, grouping, count)
		: await runItems(this, operation, count);
	if (output.length === 0 && runsAsTool(this)) return [nothingMatched(operation)];
	const hints = runsAsTool(this) ? [] : hintsOf(this, operation, output);
	// n8n before 1.79 has no execution hints: the output is the same without them.
	if (hints.length && typeof this.addExecutionHints === 'function')
		this.addExecutionHints(...hints);
	return [output];
}
