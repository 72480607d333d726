import type {
	ILoadOptionsFunctions,
	INodeListSearchResult,
	INodePropertyOptions,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../transport/request';
import * as searches from './listSearch';
import * as options from './loadOptions';
import type { Loader } from './loadOptions';
import { withEmptyChoice } from './utils';

/**
 * Whether the node being edited has its credential yet. The editor may ask for a dropdown of a
 * node just added before it has picked the credential for it (n8n 2.40 then does not ask again
 * once it has: see withoutCredential).
 */
export function credentialSelected(ctx: ILoadOptionsFunctions): boolean {
	return ctx.getNode().credentials?.[CREDENTIAL_TYPE] !== undefined;
}

type Search = (this: ILoadOptionsFunctions, filter?: string) => Promise<INodeListSearchResult>;

/** What a dropdown of a node without its credential yet says, in place of its list. */
export const NO_CREDENTIAL_YET =
	"n8n asked for this list before it had set the node's credential: choose Refresh List in this field's ⋮ menu, or reopen the node.";

/**
 * The answer of a dropdown for a node without its credential: the field's empty choice (which
 * says what leaving it empty does, so the field reads as it will), or for a field without one a
 * placeholder; either says how to get the list. n8n 2.40 asks before it has set the credential of
 * a node just added and does not ask again once it has: an error there ("Error fetching options")
 * would blame someone who has done nothing wrong.
 */
export function withoutCredential(method: Loader): INodePropertyOptions[] {
	return withEmptyChoice([], {
		name: method.emptyChoice?.name ?? 'List Not Loaded Yet',
		description: NO_CREDENTIAL_YET,
	});
}

/** Each method answers a node without its credential so, with no request and no error. */
function quietWithoutCredential<M extends Loader | Search>(
	methods: Record<string, M>,
	empty: (method: M) => Awaited<ReturnType<M>>,
): Record<string, M> {
	const guarded: Record<string, M> = {};
	for (const [name, method] of Object.entries(methods)) {
		guarded[name] = async function (this: ILoadOptionsFunctions, filter?: string) {
			if (!credentialSelected(this)) return empty(method);
			return await (method as Search).call(this, filter);
		} as M;
	}
	return guarded;
}

export const loadOptions = quietWithoutCredential<Loader>({ ...options }, withoutCredential);
// A resource locator's list loads when it is opened, by then with the credential.
export const listSearch = quietWithoutCredential<Search>({ ...searches }, () => ({
	results: [],
}));
