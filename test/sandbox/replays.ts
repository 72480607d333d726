/* eslint-disable @n8n/community-nodes/require-node-api-error -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The sandbox's idempotency (step 7 of its pipeline, server.ts): a repeat with the same key
 * within 24 hours returns the stored answer and does nothing, the same key with another body is
 * refused, and the first answer is stored (a refusal too, where the route says it is final).
 */
import { createHash } from 'crypto';

import type { Answer, LoggedRequest, Route, StoredAnswer } from './contract';
import { Halt } from './contract';
import { ApiError } from './errors';

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

function hashBody(body: unknown): string {
	return createHash('sha256')
		.update(JSON.stringify(body ?? null))
		.digest('hex');
}

/** One request under an Idempotency-Key (its place in `answers`: `storeKey`), answered once. */
export interface KeyedRequest {
	storeKey: string;
	route: Route;
	body: unknown;
	/** The rate-limit headers its answer carries. */
	rate: Record<string, string>;
	entry: Omit<LoggedRequest, 'seq' | 'at'>;
	now: number;
	/** Whether a replay says so (Idempotent-Replayed: true). */
	mark: boolean;
}

export function answerOnce(
	answers: Map<string, StoredAnswer>,
	{ storeKey, route, body, rate, entry, now, mark }: KeyedRequest,
	operate: () => Answer,
): Answer {
	const bodyHash = hashBody(body);
	const stored = answers.get(storeKey);
	if (stored && now - stored.at < IDEMPOTENCY_TTL_MS) {
		if (stored.bodyHash !== bodyHash)
			throw new Halt(
				new ApiError(
					422,
					'idempotency_key_reused',
					'This Idempotency-Key was used with a different body',
					{
						field: 'Idempotency-Key',
					},
				),
				rate,
			);
		entry.replayed = true;
		return {
			status: stored.status,
			body: stored.body,
			headers: mark ? { ...rate, 'Idempotent-Replayed': 'true' } : rate,
		};
	}
	const store = ({ status, body: answerBody }: Answer) =>
		answers.set(storeKey, { status, body: answerBody, bodyHash, at: now });
	try {
		const answer = operate();
		store(answer);
		return answer;
	} catch (error) {
		if (error instanceof Halt && error.cause instanceof ApiError && route.storeError?.(error.cause))
			store(error.answer);
		throw error;
	}
}
