/** Step 1 of the sandbox's pipeline (server.ts): the request's API key, from its Authorization header. */
import type { KeyRecord } from './contract';
import { Halt } from './contract';
import { ApiError } from './errors';

/** The key a request's `Authorization: Bearer <API_KEY>` names, or a 401 that says what is wrong. */
export function authenticate(
	keys: Map<string, KeyRecord>,
	auth: string | string[] | undefined,
): KeyRecord {
	const match = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
	if (!match) {
		const message = auth
			? 'The Authorization header is not "Bearer <API_KEY>"'
			: 'No API key was sent';
		throw new Halt(new ApiError(401, 'unauthorized', message));
	}
	const key = keys.get(match[1]);
	if (!key || key.revoked) {
		const message = key ? 'This API key has been revoked' : 'Unknown API key';
		throw new Halt(new ApiError(401, 'unauthorized', message));
	}
	return key;
}
