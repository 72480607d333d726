/**
 * Whole workflows through n8n's WorkflowExecute, with the trigger's data handed on as n8n hands
 * it: a trigger or webhook node started with what it emitted (mode `trigger`, `webhook`,
 * `integrated` for a sub-workflow), the editor's Execute workflow on pinned trigger data (mode
 * `manual`), and n8n's Retry of a failed execution (the failed execution's data resumed in mode
 * `retry`, as n8n's execution service does it). n8n's own node types are stood in for by nodes of
 * the same type names that do what those nodes do with items and their pairing; the engine itself
 * (paired items filled in where n8n fills them, the data proxy, sources) is n8n's.
 */
import { createHash } from 'crypto';

import type {
	IConnections,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IPinData,
	IRun,
	IRunExecutionData,
	ITriggerFunctions,
	IWorkflowBase,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import type { CrmCredentials } from './engine';
import { assertNoSecret, crmNode, executeToEnd, loadPackage, logLines } from './engine';

const standIn = (
	type: string,
	kind: 'trigger' | 'webhook' | 'execute',
	execute?: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>,
): INodeType => ({
	description: {
		displayName: type,
		name: type,
		group: kind === 'execute' ? ['transform'] : ['trigger'],
		version: 1,
		description: `Stands in for ${type}`,
		defaults: { name: type },
		inputs: kind === 'execute' && type !== 'n8n-nodes-base.executeWorkflowTrigger' ? ['main'] : [],
		outputs: ['main'],
		// n8n keeps only the parameters a node type declares.
		properties: ['code', 'fieldToSplitOut'].map((name) => ({
			displayName: name,
			name,
			type: 'string' as const,
			default: '',
		})),
	},
	...(kind === 'trigger' ? { trigger: async () => ({}) } : {}),
	...(kind === 'webhook' ? { webhook: async () => ({}) } : {}),
	...(execute ? { execute } : {}),
});

const twoInputs = (type: INodeType): INodeType => ({
	...type,
	description: { ...type.description, inputs: ['main', 'main'] },
});

/** What a stand-in Code node returns for its input, by the name in its `code` parameter. */
export const CODE: Record<string, (items: INodeExecutionData[]) => INodeExecutionData[]> = {};

const STAND_INS: Record<string, INodeType> = {
	'n8n-nodes-base.scheduleTrigger': standIn('n8n-nodes-base.scheduleTrigger', 'trigger'),
	// The editor's Manual Trigger emits one empty item each time, as n8n's does.
	'n8n-nodes-base.manualTrigger': {
		...standIn('n8n-nodes-base.manualTrigger', 'trigger'),
		async trigger(this: ITriggerFunctions) {
			return { manualTriggerFunction: async () => this.emit([[{ json: {} }]]) };
		},
	},
	'n8n-nodes-base.webhook': standIn('n8n-nodes-base.webhook', 'webhook'),
	'n8n-nodes-base.formTrigger': standIn('n8n-nodes-base.formTrigger', 'webhook'),
	// A sub-workflow's trigger passes on what the calling workflow gave it.
	'n8n-nodes-base.executeWorkflowTrigger': standIn(
		'n8n-nodes-base.executeWorkflowTrigger',
		'execute',
		async function () {
			return [this.getInputData()];
		},
	),
	// Split Out: an item per entry of a list field, each paired with the item it came from.
	'n8n-nodes-base.splitOut': standIn('n8n-nodes-base.splitOut', 'execute', async function () {
		const field = String(this.getNode().parameters.fieldToSplitOut);
		return [
			this.getInputData().flatMap((item, index) => {
				const list = field
					.split('.')
					.reduce<unknown>((value, key) => (value as IDataObject)?.[key], item.json);
				return (list as IDataObject[]).map((json) => ({ json, pairedItem: { item: index } }));
			}),
		];
	}),
	// Aggregate: one item from all, paired with every item it was made from.
	'n8n-nodes-base.aggregate': standIn('n8n-nodes-base.aggregate', 'execute', async function () {
		const items = this.getInputData();
		return [
			[
				{
					json: { data: items.map((i) => i.json) },
					pairedItem: items.map((_, item) => ({ item })),
				},
			],
		];
	}),
	// Merge by position: item i of each input into one, paired with both.
	'n8n-nodes-base.merge': twoInputs(
		standIn('n8n-nodes-base.merge', 'execute', async function () {
			const [first, second] = [this.getInputData(0), this.getInputData(1)];
			return [
				first.map((item, i) => ({
					json: { ...item.json, ...second[i]?.json },
					pairedItem: [
						{ item: i, input: 0 },
						{ item: i, input: 1 },
					],
				})),
			];
		}),
	),
	// Code: whatever the test's function returns, with or without pairing, as a user's code does.
	'n8n-nodes-base.code': standIn('n8n-nodes-base.code', 'execute', async function () {
		return [CODE[String(this.getNode().parameters.code)](this.getInputData())];
	}),
};

export interface WorkflowSpec {
	nodes: INode[];
	connections: IConnections;
	id?: string;
}

/** A node ID made from the whole name: two nodes of one workflow never share one. */
const idOf = (prefix: string, name: string) =>
	`${prefix}-0000-4000-8000-${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;

/** A node of n8n's type at a position in the chain (the stand-in does what n8n's node does). */
export function n8nNode(name: string, type: string, parameters: IDataObject = {}): INode {
	return {
		id: idOf('00000000', name),
		name,
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters: parameters as INode['parameters'],
	};
}

/** A Messaging CRM node of the chain. */
export function crmStep(name: string, parameters: IDataObject, extra: Partial<INode> = {}): INode {
	return crmNode(parameters as INode['parameters'], {
		name,
		id: idOf('b7a0c1d2', name),
		...extra,
	});
}

/** Nodes connected one after the other on their first output. */
export function chain(...nodes: INode[]): WorkflowSpec {
	const connections: IConnections = {};
	for (let i = 0; i < nodes.length - 1; i++)
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	return { nodes, connections };
}

export interface WorkflowRun {
	run: IRun;
	/** Output items of a node's first run (first output). */
	output(node: string): INodeExecutionData[];
	/** What the output pane says after a node's first run. */
	hints(node: string): Array<{ message: string; type?: string }>;
	error?: Error;
}

let executions = 0;

async function execute(
	spec: WorkflowSpec,
	credentials: CrmCredentials,
	mode: WorkflowExecuteMode,
	data: IRunExecutionData,
	executionId = `wf-exec-${++executions}`,
): Promise<WorkflowRun> {
	const loaded = await loadPackage();
	const nodeTypes: INodeTypes = {
		getByName: (name) => STAND_INS[name] ?? loaded.nodeTypes.getByName(name),
		getByNameAndVersion: (name, version) =>
			STAND_INS[name] ?? loaded.nodeTypes.getByNameAndVersion(name, version),
		getKnownTypes: () => ({}),
	};
	const id = spec.id ?? 'event-workflow';
	const workflow = new Workflow({
		id,
		name: id,
		nodes: spec.nodes,
		connections: spec.connections,
		active: false,
		nodeTypes,
		settings: { executionOrder: 'v1' },
		pinData: data.resultData.pinData,
	});
	const base = { id, name: id, nodes: spec.nodes, connections: spec.connections, active: false };
	const run = await executeToEnd(workflow, base as unknown as IWorkflowBase, data, {
		mode,
		executionId,
		credentials,
	});
	assertNoSecret(credentials.apiKey, run, logLines.splice(0).join('\n'));
	const task = (node: string) => run.data.resultData.runData[node]?.[0];
	return {
		run,
		output: (node) => task(node)?.data?.main?.[0] ?? [],
		hints: (node) => (task(node)?.hints ?? []) as Array<{ message: string; type?: string }>,
		error: run.data.resultData.error,
	};
}

/**
 * An execution started by a trigger that emitted these items: n8n puts the trigger on the stack
 * with its items (a schedule tick and a poll in mode `trigger`, a webhook or form in `webhook`, a
 * sub-workflow's Execute Workflow Trigger in `integrated`). `pinned` runs it as the editor's
 * Execute workflow does on pinned trigger data (mode `manual`).
 */
export async function startWorkflow(
	spec: WorkflowSpec,
	credentials: CrmCredentials,
	start: {
		trigger: string;
		items: INodeExecutionData[];
		mode: WorkflowExecuteMode;
		pinned?: boolean;
		executionId?: string;
		/** Other nodes' output pinned, as the editor pins it (the node does not run). */
		pinData?: IPinData;
	},
): Promise<WorkflowRun> {
	const trigger = spec.nodes.find((n) => n.name === start.trigger)!;
	const pinned: IPinData | undefined = start.pinned ? { [trigger.name]: start.items } : undefined;
	const pinData = pinned || start.pinData ? { ...start.pinData, ...pinned } : undefined;
	const data = {
		version: 1,
		startData: {},
		resultData: { runData: {}, ...(pinData ? { pinData } : {}) },
		executionData: {
			contextData: {},
			metadata: {},
			nodeExecutionStack: [
				{ node: trigger, data: { main: [pinned ? [{ json: {} }] : start.items] }, source: null },
			],
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	} as unknown as IRunExecutionData;
	return await execute(spec, credentials, start.mode, data, start.executionId);
}

/**
 * n8n's Retry of a failed execution (Executions list → Retry): its data with the error and the
 * failed node's failed run taken off, resumed where it stopped, under a new execution ID.
 */
export async function retryWorkflow(
	spec: WorkflowSpec,
	credentials: CrmCredentials,
	failed: WorkflowRun,
): Promise<WorkflowRun> {
	const data = JSON.parse(JSON.stringify(failed.run.data)) as IRunExecutionData;
	delete data.resultData.error;
	const last = data.resultData.lastNodeExecuted;
	const runs = last ? data.resultData.runData[last] : undefined;
	if (runs?.length && runs[runs.length - 1].error !== undefined) runs.pop();
	return await execute(spec, credentials, 'retry', data);
}
