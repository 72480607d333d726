/** What the dropdown methods share; not methods themselves. */
import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import type { Agent } from '../helpers/apiShapes';
import { isUuid } from '../helpers/validate';
import { messengerName } from '../shared/messengers';

export function byName(a: INodePropertyOptions, b: INodePropertyOptions): number {
	return a.name.localeCompare(b.name);
}

/**
 * A first choice for an optional dropdown that says, in its own name, what leaving it empty does
 * there (without it, n8n flags the empty default as a value missing from the list).
 */
export function withEmptyChoice(
	options: INodePropertyOptions[],
	empty: EmptyChoice,
): INodePropertyOptions[] {
	return [{ name: `(${empty.name})`, value: '', description: empty.description }, ...options];
}

export interface EmptyChoice {
	name: string;
	description: string;
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
	const messengers = agent.messengers?.length
		? agent.messengers.map(messengerName).join(', ')
		: 'no messengers';
	return {
		name: agent.is_active ? agent.name : `${agent.name} (inactive)`,
		value: agent.id,
		description: messengers,
	};
}
