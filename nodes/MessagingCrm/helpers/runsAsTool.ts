import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * Whether this run is a tool call (from n8n's AI Agent, or an MCP client through the MCP Server
 * Trigger): n8n derives a tool variant of the node (`messagingCrmTool`) from `usableAsTool` and
 * runs that type for them.
 */
export function runsAsTool(ctx: IExecuteFunctions): boolean {
	return ctx.getNode().type.endsWith('Tool');
}
