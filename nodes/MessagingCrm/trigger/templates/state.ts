/**
 * The template events' state logic, free of n8n and HTTP: each template's key and the events
 * between two reads of the list.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Emitted, TriggerState } from '../state';

export const TEMPLATE_EVENTS = [
	'templateApproved',
	'templateRejected',
	'templateNew',
	'templateStatusChanged',
] as const;
export type TemplateEvent = (typeof TEMPLATE_EVENTS)[number];

declare module '../state' {
	interface TriggerState {
		/** Business-chat templates by name and language: their moderation status. */
		templates?: Record<string, string>;
	}
}

/**
 * Each template's key between polls: its name and language (the list names no ID), and `#2`, `#3`
 * … for a later one with the same name and language (two agents can each have one; the list
 * keeps its order).
 */
export function templateKeys(templates: IDataObject[]): string[] {
	const seen = new Map<string, number>();
	return templates.map((template) => {
		const key = `${String(template.name ?? '')}|${String(template.language ?? '')}`;
		const n = (seen.get(key) ?? 0) + 1;
		seen.set(key, n);
		return n === 1 ? key : `${key}#${n}`;
	});
}

/**
 * The next state and the events of a poll of templates: a template not seen before is New, and
 * also Approved or Rejected when it already is (created and moderated between two polls); a
 * status that differs is Status Changed, and Approved or Rejected when that is the new status.
 * The first poll is a baseline (nothing emitted); a template that disappeared is forgotten.
 */
export function pollTemplates(
	state: TriggerState,
	templates: IDataObject[],
	wanted: ReadonlySet<string>,
): { state: TriggerState; events: Emitted[] } {
	const previous = state.templates;
	const next: Record<string, string> = {};
	const events: Emitted[] = [];
	const emit = (event: TemplateEvent, template: IDataObject, before: string | null) => {
		if (wanted.has(event))
			events.push({ event, template, status_before: before, status_after: template.status });
	};
	const keys = templateKeys(templates);
	templates.forEach((template, i) => {
		const key = keys[i];
		const status = String(template.status ?? '');
		const known = previous !== undefined && key in previous;
		const before = known ? previous[key] : null;
		if (previous && !known) emit('templateNew', template, null);
		else if (known && before !== status) emit('templateStatusChanged', template, before);
		if (previous && before !== status) {
			if (status === 'APPROVED') emit('templateApproved', template, before);
			if (status === 'REJECTED') emit('templateRejected', template, before);
		}
		next[key] = status;
	});
	return { state: { ...state, templates: next }, events };
}
