import type { INode, INodeExecutionData, INodeParameters, WorkflowExecuteMode } from 'n8n-workflow';

import type { Sandbox, SandboxOptions } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import type { CrmCredentials } from './engine';
import { runNode } from './engine';

export interface Env {
	sandbox: Sandbox;
	apiKey: string;
	creds(extra?: Partial<CrmCredentials>): CrmCredentials;
	run(
		parameters: INodeParameters,
		options?: {
			items?: INodeExecutionData[];
			continueOnFail?: boolean;
			errorOutput?: boolean;
			apiKey?: string;
			executionId?: string;
			scopes?: string[];
			mode?: WorkflowExecuteMode;
			node?: Partial<INode>;
		},
	): ReturnType<typeof runNode>;
	/** Runs and expects success; returns the output items' json. */
	ok(
		parameters: INodeParameters,
		items?: INodeExecutionData[],
	): Promise<Array<Record<string, unknown>>>;
}

/** One sandbox per test file, reset with the demo company and a fresh all-scopes key before each test. */
export function useSandbox(options: SandboxOptions = {}): Env {
	const env = {} as Env;
	beforeAll(async () => {
		env.sandbox = await startSandbox({ logBodies: true, ...options });
	});
	afterAll(async () => env.sandbox.stop());
	beforeEach(() => {
		env.sandbox.reset('demo');
		env.apiKey = env.sandbox.mintKey();
	});
	env.creds = (extra = {}) => ({ baseUrl: env.sandbox.url, apiKey: env.apiKey, ...extra });
	env.run = (parameters, opts = {}) =>
		runNode({
			parameters,
			credentials: env.creds({
				...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
				...(opts.scopes ? { scopes: opts.scopes } : {}),
			}),
			items: opts.items,
			continueOnFail: opts.continueOnFail,
			errorOutput: opts.errorOutput,
			executionId: opts.executionId,
			mode: opts.mode,
			node: opts.node,
		});
	env.ok = async (parameters, items) => {
		const { items: out, error } = await env.run(parameters, { items });
		if (error) throw new Error(`Node failed: ${error.message} ${error.description ?? ''}`);
		return out.map((i) => i.json as Record<string, unknown>);
	};
	return env;
}

export const byId = (value: string) => ({ __rl: true, mode: 'id', value });
export const byMode = (mode: string, value: string) => ({ __rl: true, mode, value });
