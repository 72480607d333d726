import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * Whether this run is a tool call (from n8n's AI Agent, or an MCP client through the MCP Server
 * Trigger): n8n derives a tool variant of the node (`messagingCrmTool`) from `usableAsTool` and
 * runs that type for them. Not the human review step n8n 2.x derives from Send and Wait for
 * Response (`messagingCrmHitlTool`): that one runs as the node does, and waits.
 */
export function runsAsTool(ctx: IExecuteFunctions): boolean {
	const type = ctx.getNode().type;
	return type.endsWith('Tool') && !type.endsWith('HitlTool');
}
