/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * Runs the package the way n8n does: loaded from dist/ by n8n-core's PackageDirectoryLoader,
 * executed by WorkflowExecute, credentials authenticated through their own `authenticate`
 * definition. As a tool, dropdowns and the credential test: toolRuns.ts; the trigger's polls:
 * triggerRuns.ts.
 */
import path from 'path';

import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { ExecutionLifecycleHooks, PackageDirectoryLoader, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IVersionedNodeType,
	IWorkflowBase,
	NodeExecutionHint,
	IWorkflowExecuteAdditionalData,
	ExecutionError,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Expression, ICredentialsHelper, LoggerProxy, Workflow } from 'n8n-workflow';

export const PACKAGE_ROOT = path.resolve(__dirname, '../..');
export const CREDENTIAL_TYPE = 'messagingCrmApi';
export const NODE_TYPE = 'n8n-nodes-messaging-crm.messagingCrm';

interface Loaded {
	nodeTypes: INodeTypes;
	credentialTypes: Record<string, ICredentialType>;
}

let loaded: Promise<Loaded> | undefined;

/** Loads the built package once per test file, exactly as n8n loads a community package. */
export function loadPackage(): Promise<Loaded> {
	loaded ??= (async () => {
		const loader = new PackageDirectoryLoader(PACKAGE_ROOT);
		await loader.loadAll();
		const nodes = loader.nodeTypes;
		const byName = (name: string) => {
			const short = name.startsWith(`${loader.packageName}.`)
				? name.slice(loader.packageName.length + 1)
				: name;
			// The tool variant n8n derives from `usableAsTool` runs the same class under `<name>Tool`,
			// and n8n 2.x's human review step of Send and Wait under `<name>HitlTool`.
			const entry = nodes[short] ?? nodes[name] ?? nodes[short.replace(/(Hitl)?Tool$/, '')];
			if (!entry) throw new Error(`Node type ${name} is not in the package`);
			return entry.type;
		};
		const nodeTypes: INodeTypes = {
			getByName: (name: string) => byName(name),
			getByNameAndVersion: (name: string, version?: number) => {
				const type = byName(name) as INodeType | IVersionedNodeType;
				return 'nodeVersions' in type ? type.getNodeType(version) : type;
			},
			getKnownTypes: () => ({}),
		};
		const credentialTypes: Record<string, ICredentialType> = {};
		for (const [name, entry] of Object.entries(loader.credentialTypes))
			credentialTypes[name] = entry.type;
		return { nodeTypes, credentialTypes };
	})();
	return loaded;
}

/** A credentials helper that holds decrypted credentials in memory and applies `authenticate`. */
export class TestCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly credentialTypes: Record<string, ICredentialType>,
		private readonly credentials: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const type = this.credentialTypes[typeName];
		const auth = type?.authenticate;
		if (typeof auth === 'function') return await auth(credentials, requestOptions);
		if (!auth || auth.type !== 'generic') return requestOptions;
		const resolve = (value: unknown) =>
			typeof value === 'string' && value.startsWith('=')
				? String(Expression.resolveWithoutWorkflow(value.slice(1), { $credentials: credentials }))
				: value;
		const out: IHttpRequestOptions = { ...requestOptions };
		for (const [where, values] of Object.entries(auth.properties) as Array<[string, IDataObject]>) {
			const target = { ...((out as unknown as Record<string, IDataObject>)[where] ?? {}) };
			for (const [name, value] of Object.entries(values)) target[name] = resolve(value) as string;
			(out as unknown as Record<string, IDataObject>)[where] = target;
		}
		return out;
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	getCredentialsProperties() {
		return this.credentialTypes[CREDENTIAL_TYPE]?.properties ?? [];
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.credentials[type];
		if (!data) throw new Error(`No test credentials of type ${type}`);
		return { ...data };
	}

	async getCredentials(): Promise<never> {
		throw new Error('not used in tests');
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}

	getOAuth2Options() {
		return undefined;
	}

	isCredentialUsableByNode() {
		return true;
	}
}

export interface CrmCredentials {
	baseUrl: string;
	apiKey: string;
	scopes?: string[];
	allowPlainHttp?: boolean;
	timeoutSeconds?: number;
}

/** A credentials helper holding one Messaging CRM API credential. */
export function crmCredentials(
	credentialTypes: Record<string, ICredentialType>,
	credentials: CrmCredentials,
): TestCredentialsHelper {
	return new TestCredentialsHelper(credentialTypes, {
		[CREDENTIAL_TYPE]: credentials as unknown as ICredentialDataDecryptedObject,
	});
}

export function additionalData(
	credentialsHelper: ICredentialsHelper,
	hooks?: ExecutionLifecycleHooks,
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper,
		hooks,
		executeWorkflow: async () => {
			throw new Error('not used in tests');
		},
		getRunExecutionData: async () => undefined,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		currentNodeParameters: undefined,
		executionTimeoutTimestamp: undefined,
		userId: 'test-user',
		setExecutionStatus: () => {},
		variables: {},
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('not used in tests');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

export function crmNode(parameters: INodeParameters, extra: Partial<INode> = {}): INode {
	return {
		id: 'b7a0c1d2-0000-4000-8000-000000000001',
		name: 'Messaging CRM',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Messaging CRM account' } },
		...extra,
	};
}

/** The forms of a key that count as a leak: bare, JSON-escaped, URL-encoded (written apart from the node's own list). */
export function keyForms(apiKey: string): string[] {
	return [
		...new Set([
			apiKey,
			JSON.stringify(apiKey).slice(1, -1),
			encodeURIComponent(apiKey),
			encodeURIComponent(apiKey).toLowerCase(),
		]),
	];
}

/** Everything an error carries that n8n shows, stores or logs: message, description, context, cause, stack, its JSON. */
export function errorText(error: unknown, depth = 0): string {
	if (!(error instanceof Error) || depth > 4) return JSON.stringify(error) ?? String(error);
	const e = error as Error & {
		description?: unknown;
		context?: unknown;
		cause?: unknown;
		messages?: unknown;
	};
	return [
		e.message,
		String(e.description ?? ''),
		JSON.stringify(e.context ?? {}),
		JSON.stringify(e.messages ?? []),
		e.stack ?? '',
		JSON.stringify(e),
		errorText(e.cause, depth + 1),
	].join('\n');
}

/**
 * Throws when the API key appears, in any of its forms, anywhere in what a run leaves behind:
 * items, errors (message, description, context, cause, stack, JSON) and the whole run data.
 * Every runNode() call goes through it.
 */
export function assertNoSecret(apiKey: string, ...things: unknown[]): void {
	// A key of a few characters would be found by chance in any output: such a check proves nothing.
	if (!apiKey || apiKey.length < 8)
		throw new Error(
			`assertNoSecret needs the run's API key, 8 characters at least (got ${apiKey?.length ?? 0})`,
		);
	const forms = keyForms(apiKey);
	for (const thing of things) {
		const text =
			thing instanceof Error
				? errorText(thing)
				: typeof thing === 'string'
					? thing
					: (JSON.stringify(thing) ?? '');
		if (forms.some((form) => text.includes(form)))
			throw new Error('The API key leaked into a node run (output, error, run data or log)');
	}
}

/** The lines n8n's logger wrote (the node's and n8n-core's about it) since the last node run checked them. */
export const logLines: string[] = [];
const capture = (level: string) => (message: string, meta?: object) =>
	logLines.push(
		`${level} ${message} ${meta ? errorText((meta as { error?: unknown }).error ?? meta) : ''}`,
	);
LoggerProxy.init({
	error: capture('error'),
	warn: capture('warn'),
	info: capture('info'),
	debug: capture('debug'),
} as unknown as Parameters<typeof LoggerProxy.init>[0]);
// A node's own `this.logger` is n8n's Logger from its container: its lines are kept the same way.
const nodeLogger = Container.get(Logger);
for (const level of ['error', 'warn', 'info', 'debug'] as const) {
	// A level the logger has off is a fixed no-op: nothing to keep.
	if (Object.getOwnPropertyDescriptor(nodeLogger, level)?.writable === false) continue;
	const original = nodeLogger[level].bind(nodeLogger);
	nodeLogger[level] = (message: string, meta?: Record<string, unknown>) => {
		capture(level)(message, meta);
		original(message, meta);
	};
}

export interface NodeRun {
	/** Items of the node's first output. */
	items: INodeExecutionData[];
	/** Items of the error output, when the node runs with "Continue (using error output)". */
	errorItems: INodeExecutionData[];
	/** The node's error when the execution failed. */
	error?: ExecutionError;
	/** What the output pane says of the run (n8n's execution hints). */
	hints: NodeExecutionHint[];
	run: IRun;
	/** The lines n8n's logger wrote during the run (the node's own among them). */
	logs?: string[];
}

let executionCounter = 0;

/**
 * Runs an execution's data through n8n's WorkflowExecute, with the Messaging CRM credential, until
 * n8n's own end-of-execution hook gives the run; throws where n8n refuses to start the workflow.
 */
export async function executeToEnd(
	workflow: Workflow,
	workflowData: IWorkflowBase,
	runExecutionData: IRunExecutionData,
	options: { mode: WorkflowExecuteMode; executionId: string; credentials: CrmCredentials },
): Promise<IRun> {
	const { credentialTypes } = await loadPackage();
	const hooks = new ExecutionLifecycleHooks(options.mode, options.executionId, workflowData);
	let finished!: (run: IRun) => void;
	const done = new Promise<IRun>((resolve) => (finished = resolve));
	hooks.addHandler('workflowExecuteAfter', (fullRunData) => finished(fullRunData));
	const data = additionalData(crmCredentials(credentialTypes, options.credentials), hooks);
	(data as unknown as { executionId: string }).executionId = options.executionId;
	await new WorkflowExecute(data, options.mode, runExecutionData).processRunExecutionData(workflow);
	return await done;
}

/**
 * Executes one Messaging CRM node through WorkflowExecute with the given input items.
 */
export async function runNode(options: {
	parameters: INodeParameters;
	credentials: CrmCredentials;
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	errorOutput?: boolean;
	executionId?: string;
	/** n8n's execution mode: 'manual' unless given ('retry' is n8n's Retry of an execution). */
	mode?: WorkflowExecuteMode;
	/** Another node to run instead (e.g. n8n's HTTP Request node in the benchmarks), with its types. */
	node?: Partial<INode>;
	nodeTypes?: INodeTypes;
}): Promise<NodeRun> {
	const loadedPackage = await loadPackage();
	const nodeTypes = options.nodeTypes ?? loadedPackage.nodeTypes;
	const onError = options.errorOutput
		? 'continueErrorOutput'
		: options.continueOnFail
			? 'continueRegularOutput'
			: undefined;
	const node = crmNode(options.parameters, { ...(onError ? { onError } : {}), ...options.node });
	const workflow = new Workflow({
		id: 'test-workflow',
		name: 'test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
		settings: {},
	});
	const executionId = options.executionId ?? `exec-${++executionCounter}`;
	const workflowData = {
		id: 'test-workflow',
		name: 'test',
		nodes: [node],
		connections: {},
		active: false,
		settings: {},
	} as unknown as IWorkflowBase;
	const mode = options.mode ?? 'manual';
	const runExecutionData: IRunExecutionData = {
		version: 1,
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			metadata: {},
			nodeExecutionStack: [
				{ node, data: { main: [options.items ?? [{ json: {} }]] }, source: null },
			],
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	} as unknown as IRunExecutionData;
	let run: IRun;
	try {
		run = await executeToEnd(workflow, workflowData, runExecutionData, {
			mode,
			executionId,
			credentials: options.credentials,
		});
	} catch (error) {
		// n8n refuses to start a workflow whose static parameters have issues (as the editor shows them):
		// its refusal and what was logged meanwhile are checked as any run's, and the lines cleared.
		const logs = logLines.splice(0);
		assertNoSecret(options.credentials.apiKey, error, logs.join('\n'));
		return {
			items: [],
			errorItems: [],
			hints: [],
			error: error as ExecutionError,
			run: { data: runExecutionData } as unknown as IRun,
			logs,
		};
	}
	const task = run.data.resultData.runData[node.name]?.[0];
	const logs = logLines.splice(0);
	assertNoSecret(
		options.credentials.apiKey,
		run,
		task?.error ?? {},
		run.data.resultData.error ?? {},
		logs.join('\n'),
	);
	return {
		items: task?.data?.main?.[0] ?? [],
		errorItems: task?.data?.main?.[1] ?? [],
		hints: task?.hints ?? [],
		error: task?.error ?? run.data.resultData.error,
		run,
		logs,
	};
}
