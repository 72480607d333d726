/** Template events: the moderation of business-chat templates (by the platform owner, outside the API). */
import type { INodePropertyOptions } from 'n8n-workflow';

import { listTemplates } from '../../shared/reads';
import type { EventFamily } from '../family.type';
import { agentFilter, readAgentFilter, sample } from '../fields';
import { pollTemplates, TEMPLATE_EVENTS } from './state';

const eventOptions: INodePropertyOptions[] = [
	{ name: 'New Template', value: 'templateNew', description: 'A template appeared in the list' },
	{
		name: 'Template Approved',
		value: 'templateApproved',
		description: 'A template became APPROVED: it can be sent now',
	},
	{
		name: 'Template Rejected',
		value: 'templateRejected',
		description: 'A template became REJECTED',
	},
	{
		name: 'Template Status Changed',
		value: 'templateStatusChanged',
		description: "A template's status changed, whatever to",
	},
];

export const templates: EventFamily = {
	name: 'templates',
	events: TEMPLATE_EVENTS,
	eventOptions,
	fields: [agentFilter],
	reserve: 1,

	settings: (ctx) => ({ agentId: readAgentFilter(ctx) }),

	/** A template in the status the event leads to where there is one, as it is now. */
	async sample(ctx, settings, event) {
		const templates = await listTemplates(ctx, { agentId: String(settings.filters.agentId) });
		const wantedStatus =
			event === 'templateApproved' ? 'APPROVED' : event === 'templateRejected' ? 'REJECTED' : null;
		const template =
			templates.find((t) => wantedStatus === null || t.status === wantedStatus) ?? templates[0];
		if (!template)
			return sample(event, { message: 'The list of business-chat templates is empty' });
		return sample(event, {
			sample_template: `${String(template.name)} (${String(template.language)}): ${String(template.status)}`,
			template,
			status_before: null,
			status_after: template.status,
		});
	},

	/** One read of the list. */
	async poll(ctx, settings, step) {
		const templates = await listTemplates(ctx, { agentId: String(settings.filters.agentId) });
		step.spent(1);
		return pollTemplates(step.state, templates, step.wanted);
	},
};
