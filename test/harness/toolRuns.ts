/**
 * The node run as a tool (for the AI Agent, or for an MCP client through the MCP Server Trigger),
 * its dropdown methods through n8n-core's LoadOptionsContext, and the credential test through
 * RoutingNode, as n8n's credentials tester runs it.
 */
import { ExecuteContext, LoadOptionsContext, RoutingNode, SupplyDataContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	IDataObject,
	IExecuteData,
	IExecuteFunctions,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeListSearchResult,
	INodeParameters,
	INodePropertyOptions,
	INodeType,
	INodeTypes,
	IRunExecutionData,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import type { CrmCredentials } from './engine';
import {
	additionalData,
	assertNoSecret,
	CREDENTIAL_TYPE,
	crmCredentials,
	crmNode,
	loadPackage,
	logLines,
	NODE_TYPE,
	TestCredentialsHelper,
} from './engine';

/** The node that asks for a tool run: n8n's MCP Server Trigger, or the AI Agent. */
export const TOOL_CALLERS = {
	mcp: { name: 'MCP Server Trigger', type: '@n8n/n8n-nodes-langchain.mcpTrigger', typeVersion: 2 },
	agent: { name: 'AI Agent', type: '@n8n/n8n-nodes-langchain.agent', typeVersion: 3.1 },
};

/**
 * Runs the node's tool variant as n8n runs it for the node that asked for the tool: in a
 * SupplyDataContext whose caller is that node, the tool's arguments as the input item (n8n's
 * queue-mode worker, `JobProcessor.invokeTool`, does exactly this for the MCP Server Trigger; in a
 * single process n8n builds the same context). What the node returned, or what it threw.
 */
export async function runAsToolFor(
	caller: keyof typeof TOOL_CALLERS,
	options: {
		parameters: INodeParameters;
		credentials: CrmCredentials;
		args: IDataObject;
		node?: Partial<INode>;
		/**
		 * Where the run learns its caller: n8n's `parentNode` (as n8n 2.40 and 1.123 keep it), or,
		 * without it, the node being executed (the caller itself in a single process; the tool
		 * node when n8n 2.x's agent runs its tools as nodes).
		 */
		callerKnown?: 'parentNode' | 'executeData' | 'nowhere';
	},
): Promise<{ items: INodeExecutionData[]; error?: Error }> {
	const loadedPackage = await loadPackage();
	const parent: INode = {
		...TOOL_CALLERS[caller],
		id: 'b7a0c1d2-0000-4000-8000-0000000000c0',
		position: [0, 0],
		parameters: {},
	};
	const tool = crmNode(options.parameters, {
		name: 'Send_text',
		type: `${NODE_TYPE}Tool`,
		...options.node,
	});
	// The caller's own type is n8n's, not this package's: the workflow only needs to know it exists.
	const nodeTypes: INodeTypes = {
		...loadedPackage.nodeTypes,
		getByNameAndVersion: (name, version) =>
			name === parent.type
				? ({ description: { inputs: [], outputs: [], properties: [] } } as unknown as INodeType)
				: loadedPackage.nodeTypes.getByNameAndVersion(name, version),
	};
	const workflow = new Workflow({
		id: 'test-workflow',
		nodes: [parent, tool],
		connections: { [tool.name]: { ai_tool: [[{ node: parent.name, type: 'ai_tool', index: 0 }]] } },
		active: false,
		nodeTypes,
	});
	const helper = crmCredentials(loadedPackage.credentialTypes, options.credentials);
	const input = [[{ json: options.args }]];
	const runExecutionData = {
		version: 1,
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			nodeExecutionStack: [],
			metadata: {},
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	} as unknown as IRunExecutionData;
	const context = new SupplyDataContext(
		workflow,
		tool,
		additionalData(helper),
		'webhook',
		runExecutionData,
		0,
		input[0],
		{ main: input },
		'ai_tool',
		{
			node: options.callerKnown === 'executeData' ? parent : tool,
			data: { main: input },
			source: null,
		},
		[],
		undefined,
		(options.callerKnown ?? 'parentNode') === 'parentNode' ? parent : undefined,
	);
	context.addInputData('ai_tool', input);
	const type = nodeTypes.getByNameAndVersion(tool.type, 1) as INodeType;
	try {
		const result = (await type.execute?.call(
			context as unknown as IExecuteFunctions,
		)) as INodeExecutionData[][];
		assertNoSecret(options.credentials.apiKey, result, logLines.splice(0).join('\n'));
		return { items: result[0] ?? [] };
	} catch (error) {
		assertNoSecret(options.credentials.apiKey, error, logLines.splice(0).join('\n'));
		return { items: [], error: error as Error };
	}
}

/** Calls a loadOptions or listSearch method of the node as the editor does. */
export async function callMethod(options: {
	kind: 'loadOptions' | 'listSearch';
	method: string;
	parameters: INodeParameters;
	credentials: CrmCredentials;
	filter?: string;
	/** A node the editor has not yet given its credential (as just after adding it). */
	withoutCredential?: boolean;
}): Promise<INodePropertyOptions[] | INodeListSearchResult> {
	const { nodeTypes, credentialTypes } = await loadPackage();
	const node = crmNode(
		options.parameters,
		options.withoutCredential ? { credentials: undefined } : {},
	);
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const helper = crmCredentials(credentialTypes, options.credentials);
	const data = additionalData(helper);
	(data as unknown as { currentNodeParameters: INodeParameters }).currentNodeParameters =
		options.parameters;
	const context = new LoadOptionsContext(workflow, node, data, 'parameters');
	const type = nodeTypes.getByNameAndVersion(NODE_TYPE, 1);
	const fn = (
		type.methods?.[options.kind] as Record<string, (...args: unknown[]) => Promise<unknown>>
	)[options.method];
	return (await fn.call(context, options.filter)) as INodePropertyOptions[] | INodeListSearchResult;
}

/**
 * Runs the credential's declarative test as n8n's credentials tester does: the test request
 * through RoutingNode, HTTP errors through the `responseCode` rules, successful bodies through
 * the `responseSuccessBody` rules.
 */
export async function testCredential(
	credentials: CrmCredentials,
): Promise<INodeCredentialTestResult> {
	const { nodeTypes, credentialTypes } = await loadPackage();
	const credentialType = credentialTypes[CREDENTIAL_TYPE];
	const test = credentialType.test;
	if (!test) throw new Error('The credential has no test');
	const baseType = nodeTypes.getByNameAndVersion(NODE_TYPE, 1);
	const nodeType: INodeType = {
		description: {
			...baseType.description,
			credentials: [{ name: CREDENTIAL_TYPE, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: test.request },
					default: '',
				},
			],
		},
	};
	const node = crmNode({});
	const tempTypes: INodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: tempTypes,
	});
	const decrypted: ICredentialsDecrypted = {
		id: 'cred-1',
		name: 'test',
		type: CREDENTIAL_TYPE,
		data: credentials as unknown as ICredentialDataDecryptedObject,
	};
	const helper = new TestCredentialsHelper(credentialTypes, { [CREDENTIAL_TYPE]: decrypted.data! });
	const data = additionalData(helper);
	const executeData: IExecuteData = { node, data: {}, source: null };
	const context = new ExecuteContext(
		workflow,
		node,
		data,
		'internal',
		{ resultData: { runData: {} } } as unknown as IRunExecutionData,
		0,
		[],
		{ main: [[{ json: {} }]] },
		executeData,
		[],
	);
	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = await new RoutingNode(context, nodeType, decrypted).runNode();
	} catch (error) {
		const cause = (
			error as { cause?: { response?: { status: number; statusText?: string }; code?: string } }
		).cause;
		if (cause?.response) {
			for (const rule of test.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === cause.response.status) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			return {
				status: 'Error',
				message: cause.response.statusText || `Received HTTP status code: ${cause.response.status}`,
			};
		}
		if (cause?.code) return { status: 'Error', message: cause.code };
		return { status: 'Error', message: (error as Error).message };
	}
	for (const rule of test.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		const json = response?.[0]?.[0]?.json ?? {};
		const value = rule.properties.key
			.split('.')
			.reduce<unknown>((v, k) => (v as IDataObject | undefined)?.[k], json);
		if (value === rule.properties.value)
			return { status: 'Error', message: rule.properties.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
