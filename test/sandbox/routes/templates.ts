import { asBody } from '../crm';
import { validation } from '../errors';
import { isUuid, newId } from '../ids';
import type { Route } from '../server';
import type { TemplateRow } from '../store';

function agentFilter(query: URLSearchParams): string | null {
	const agentId = query.get('agent_id');
	if (agentId !== null && !isUuid(agentId))
		throw validation('agent_id must be a UUID', { field: 'agent_id' });
	return agentId;
}

function templateOut(t: TemplateRow) {
	return {
		name: t.name,
		status: t.status,
		category: t.category,
		language: t.language,
		variables: [...t.variables],
		has_buttons: t.has_buttons,
	};
}

const CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'];

export const templateRoutes: Route[] = [
	{
		method: 'GET',
		path: '/bizchat/templates',
		scope: ['messages:template', 'agents:read'],
		handler: ({ store, query }) => {
			const agentId = agentFilter(query);
			return {
				status: 200,
				body: {
					templates: store.templates
						.filter((t) => !agentId || t.agent_id === agentId)
						.map(templateOut),
				},
			};
		},
	},
	{
		method: 'POST',
		path: '/bizchat/templates',
		scope: 'templates:manage',
		handler: ({ store, query, body }) => {
			const agentId =
				agentFilter(query) ??
				[...store.agents.values()].find((a) => a.messengers.includes('whatsapp'))?.id;
			if (!agentId || !store.agents.has(agentId))
				throw validation('No agent with the business chat to create the template on', {
					field: 'agent_id',
				});
			const b = asBody(body);
			if (typeof b.name !== 'string' || !/^[a-z0-9_]{1,512}$/.test(b.name)) {
				throw validation('name is required: lowercase letters, digits and underscores', {
					field: 'name',
				});
			}
			if (typeof b.category !== 'string' || !CATEGORIES.includes(b.category)) {
				throw validation(`category must be one of ${CATEGORIES.join(', ')}`, { field: 'category' });
			}
			if (typeof b.language !== 'string' || !b.language.trim())
				throw validation('language is required', { field: 'language' });
			if (
				!Array.isArray(b.components) ||
				b.components.length === 0 ||
				!b.components.every((c) => typeof c === 'object' && c !== null)
			) {
				throw validation('components must be a non-empty array of objects', {
					field: 'components',
				});
			}
			if (
				store.templates.some(
					(t) => t.agent_id === agentId && t.name === b.name && t.language === b.language,
				)
			) {
				throw validation(`A template "${b.name}" in ${b.language} already exists`, {
					field: 'name',
				});
			}
			const components = b.components as Array<Record<string, unknown>>;
			const bodyText = String(
				components.find((c) => String(c.type).toUpperCase() === 'BODY')?.text ?? '',
			);
			const variables = [...bodyText.matchAll(/\{\{(\d+)\}\}/g)].map((m) => `var${m[1]}`);
			const row: TemplateRow = {
				agent_id: agentId,
				id: newId(),
				name: b.name,
				status: 'PENDING',
				category: b.category,
				language: b.language,
				variables,
				has_buttons: components.some((c) => String(c.type).toUpperCase() === 'BUTTONS'),
				components,
			};
			store.templates.push(row);
			// The fields of this answer are not given by the spec; the sandbox answers like the platform owner's registry.
			return {
				status: 201,
				body: {
					id: row.id,
					name: row.name,
					status: row.status,
					category: row.category,
					language: row.language,
				},
			};
		},
	},
];
