/** What the dropdown methods share; not methods themselves. */
import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import type { Agent } from '../helpers/types';
import { isUuid } from '../helpers/validate';

export function byName(a: INodePropertyOptions, b: INodePropertyOptions): number {
	return a.name.localeCompare(b.name);
}

/**
 * A first "(Not Set)" choice for optional dropdowns: without it, n8n flags the empty default as a
 * value missing from the list.
 */
export function withNotSet(options: INodePropertyOptions[]): INodePropertyOptions[] {
	return [
		{
			name: '(Not Set)',
			value: '',
			description: "Leave empty: see the field's description for what that means",
		},
		...options,
	];
}

/** Reads an ID parameter of the node being edited, whether a plain value or a resource locator. */
export function currentId(ctx: ILoadOptionsFunctions, name: string): string | undefined {
	const raw = ctx.getCurrentNodeParameter(name) as unknown;
	const value =
		typeof raw === 'object' && raw !== null && 'value' in raw
			? (raw as { value: unknown }).value
			: raw;
	return isUuid(value) ? value : undefined;
}

/** An agent as a dropdown choice: its name (marked when inactive), its messengers. */
export function agentOption(agent: Agent): INodePropertyOptions {
	const messengers = agent.messengers?.length ? agent.messengers.join(', ') : 'no messengers';
	return {
		name: agent.is_active ? agent.name : `${agent.name} (inactive)`,
		value: agent.id,
		description: messengers,
	};
}
