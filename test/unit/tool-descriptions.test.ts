/**
 * What n8n makes of each operation when the node is an AI Agent's tool, computed with n8n's own
 * functions: the node name it suggests ("<action> in Messaging CRM"), the tool name it derives
 * from that, and the automatic tool description. Each must stay whole and tell operations apart.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { NodeHelpers, nodeNameToToolName } from 'n8n-workflow';

import { MessagingCrm } from '../../nodes/MessagingCrm/MessagingCrm.node';
import { SCOPES } from '../../nodes/MessagingCrm/helpers/scopes';

const description = new MessagingCrm().description;
const operations = description.properties
	.filter((p: INodeProperties) => p.name === 'operation')
	.flatMap((p) =>
		(p.options as INodePropertyOptions[]).map((o) => ({
			resource: String(p.displayOptions?.show?.resource?.[0]),
			...o,
		})),
	);
// What n8n derives: the tool variant's type name and its automatic description.
const toolType = { ...description, name: `${description.name}Tool`, outputs: ['ai_tool'] };

describe('the operations as AI Agent tools', () => {
	it.each(operations.map((o) => [`${o.resource}.${String(o.value)}`, o]))(
		'%s: a whole tool name and an automatic description of its own',
		(_key, o) => {
			const parameters = { resource: o.resource, operation: o.value };
			const nodeName = NodeHelpers.makeNodeName(parameters, toolType as never);
			expect(nodeName).toBe(`${String(o.action)} in Messaging CRM`);
			// OpenAI refuses tool names over 64 characters; n8n cuts them, which would lose words.
			expect(nodeName.replace(/[^a-zA-Z0-9_-]+/g, '_').length).toBeLessThanOrEqual(64);
			expect(nodeNameToToolName(nodeName)).toBe(nodeName.replace(/[^a-zA-Z0-9_-]+/g, '_'));
		},
	);

	it('no two operations share an action (the automatic tool description)', () => {
		const actions = operations.map((o) => o.action);
		expect(new Set(actions).size).toBe(actions.length);
	});

	it("every operation's description names the scope it needs (Create or Update keeps n8n's fixed upsert wording)", () => {
		const scope = new RegExp(`Scope: (${SCOPES.join('|')})( or (${SCOPES.join('|')}))*`);
		const missing = operations
			.filter((o) => o.value !== 'upsert' && !scope.test(String(o.description)))
			.map((o) => `${o.resource}.${String(o.value)}`);
		expect(missing).toEqual([]);
	});
});
