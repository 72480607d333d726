/**
 * A waiting message's links, the one place they are made and read: each is n8n's signed resume
 * URL to this node with the answer it gives (`approved`), the customer and the messenger; the
 * message carries them under the question, one Markdown link a line. The links' webhook
 * (webhook.ts) reads the same query parameters back.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { WaitConfig } from './config';
import { WAIT_INDEFINITELY } from './config';

/**
 * The query parameters of a waiting message's links (beside n8n's signature); `until`, the end of
 * Limit Wait Time (ISO), only on a wait that has one.
 */
export const LINK = {
	approved: 'approved',
	customer: 'customer',
	messenger: 'messenger',
	until: 'until',
} as const;

/**
 * The link that answers `query`: n8n's signed resume URL to this node (n8n 1.107 and later), or its
 * resume URL before signatures.
 */
function resumeUrl(ctx: IExecuteFunctions, query: Record<string, string>): string {
	if (typeof ctx.getSignedResumeUrl === 'function') return ctx.getSignedResumeUrl(query);
	const base = String(ctx.evaluateExpression('{{ $execution.resumeUrl }}', 0));
	return `${base}/${ctx.getNode().id}?${new URLSearchParams(query).toString()}`;
}

/**
 * The message as it goes to `messenger`: the question, then each choice's link on a line of its
 * own, each naming its answer, the customer and the messenger, and until when it takes an answer.
 */
export function withLinks(
	ctx: IExecuteFunctions,
	wait: WaitConfig,
	customerId: string,
	messenger: string,
): string {
	const links = wait.choices.map((choice) => {
		const url = resumeUrl(ctx, {
			[LINK.approved]: String(choice.approved),
			[LINK.customer]: customerId,
			[LINK.messenger]: messenger,
			...(wait.waitTill.getTime() !== WAIT_INDEFINITELY.getTime() && {
				[LINK.until]: wait.waitTill.toISOString(),
			}),
		});
		return `[${choice.label}](${url})`;
	});
	return `${wait.message.trimEnd()}\n\n${links.join('\n')}`;
}
