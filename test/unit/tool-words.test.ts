import type { INode } from 'n8n-workflow';

import { failureAnswer, inClientWords } from '../../nodes/MessagingCrm/actions/asTool';
import type { ApiFailure } from '../../nodes/MessagingCrm/transport/errors';
import { toNodeApiError } from '../../nodes/MessagingCrm/transport/errors';

const node: INode = {
	id: 'n',
	name: 'Send_text',
	type: 'n8n-nodes-messaging-crm.messagingCrmTool',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** Every kind of failure the transport writes a hint for (transport/errors.ts). */
const failures: ApiFailure[] = [
	...[
		'no_peer',
		'recipient_unreachable',
		'channel_unavailable',
		'send_rejected',
		'bizchat_window_closed',
		'send_failed',
	].map((code) => ({ code, message: 'refused', details: {}, status: 409 })),
	{ code: 'insufficient_scope', message: 'no', details: {}, status: 403 },
	{ code: 'idempotency_key_reused', message: 'no', details: {}, status: 422 },
	{ code: 'unauthorized', message: 'no', details: {}, status: 401 },
	{ code: 'forbidden', message: 'no', details: {}, status: 403 },
	...['customer', 'deal', 'pool', 'agent', 'pipeline', 'stage', 'thing'].map((resource) => ({
		code: 'not_found',
		message: 'not found',
		details: { resource },
		status: 404,
	})),
	{ code: 'conflict', message: 'no', details: {}, status: 409 },
	{ code: 'state', message: 'no', details: {}, status: 409 },
	{ code: 'validation_error', message: 'no', details: {}, status: 422 },
	{ code: 'rate_limited', message: 'no', details: {}, status: 429 },
	{ code: 'internal', message: 'no', details: {}, status: 500 },
	{ code: 'timeout', message: 'no', details: {} },
];

/** Words that name a workflow builder's things, not a tool caller's. */
const BUILDER_WORDS =
	/\bworkflows?\b|\bitems?\b|\bnodes?\b|Options →|\bmap\b|\bstep\b|\bfrom (?:the|its) \w+ list\b|\bBy (?:Phone|Email|Messenger)\b/i;

describe('a failure in the words of a tool caller (AI agent, MCP client)', () => {
	it.each(failures.map((f) => [`${f.code} ${String(f.details.resource ?? f.status ?? '')}`, f]))(
		'%s: what to do next names no workflow, item, node, option or step',
		(_name, failure) => {
			const error = toNodeApiError(node, failure as ApiFailure, 'customers:write', 0);
			const answer = failureAnswer(error);
			expect(String(answer.error)).not.toMatch(BUILDER_WORDS);
			// The hint itself is there, not dropped.
			if (error.description)
				expect(String(answer.error).length).toBeGreaterThan(error.message.length + 20);
		},
	);

	it('catches a hint written for a builder (planted)', () => {
		expect(inClientWords('Fix it, then rerun the workflow.')).toMatch(BUILDER_WORDS);
		expect(inClientWords('Once they have, run the workflow again: this item is tried anew.')).toBe(
			'Once they have, call this tool again: the same call is tried anew.',
		);
	});
});
