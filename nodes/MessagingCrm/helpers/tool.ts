import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * Whether this run is a call from n8n's AI Agent: n8n derives a tool variant of the node
 * (`messagingCrmTool`) from `usableAsTool` and runs that type for the agent.
 */
export function runsAsTool(ctx: IExecuteFunctions): boolean {
	return ctx.getNode().type.endsWith('Tool');
}
