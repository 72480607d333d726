import { createHash } from 'crypto';
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../../helpers/validate';

export const idempotencyKeyOption: INodeProperties = {
	displayName: 'Idempotency Key',
	name: 'idempotencyKey',
	type: 'string',
	default: '',
	placeholder: '={{ $json.submissionId }}',
	description:
		'Sent as Idempotency-Key: a repeat with the same key within 24 hours returns the first answer and does nothing again. Leave empty for a key derived from this execution and item (safe against retries and re-runs of the same execution); map something stable, such as a form submission ID, to make re-running the whole workflow safe too.',
};

// Per node run (the context object), the part of the derived key that all its items share.
const runPrefixes = new WeakMap<object, string>();

function runPrefix(ctx: IExecuteFunctions): string {
	let prefix = runPrefixes.get(ctx);
	if (prefix === undefined) {
		const runIndex = ctx.getWorkflowDataProxy(0).$runIndex;
		prefix = [ctx.getWorkflow().id ?? '', ctx.getExecutionId(), ctx.getNode().id, runIndex].join(
			':',
		);
		runPrefixes.set(ctx, prefix);
	}
	return prefix;
}

/** The user's key from the node's options, or one derived from the execution, node, run and item. */
export function idempotencyKey(
	ctx: IExecuteFunctions,
	itemIndex: number,
	custom: unknown,
	purpose: string,
): string {
	if (typeof custom === 'string' && custom.trim() !== '') {
		const key = custom.trim();
		if (key.length > 255) {
			throw invalidInput(
				ctx.getNode(),
				itemIndex,
				'Idempotency Key',
				'is longer than 255 characters',
				'Use a shorter key, for example an ID or a hash of the submission.',
			);
		}
		return key;
	}
	const digest = createHash('sha256')
		.update(`${runPrefix(ctx)}:${itemIndex}:${purpose}`)
		.digest('hex');
	return `n8n-${digest.slice(0, 40)}`;
}
