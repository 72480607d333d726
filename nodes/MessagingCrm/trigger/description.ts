/**
 * The trigger's fields, built from the registry of event families: one Events list (since
 * version 2), each family's fields shown where one of its events is picked, and version 1's Watch
 * with its two lists, kept for saved workflows.
 */
import type { INodeProperties } from 'n8n-workflow';

import { families } from './families';
import type { EventFamily } from './family.type';

const allEventOptions = families.flatMap((family) => family.eventOptions);

/** Each event's name, for the subtitle on the canvas. */
const EVENT_NAMES = Object.fromEntries(allEventOptions.map((o) => [o.value, o.name]));

/**
 * The subtitle on the canvas: the first event's name, "and more" for several, nothing for none or
 * an expression (version 1: the list of its Watch).
 */
const PICKED =
	'($parameter["events"] ?? $parameter[$parameter["watch"] === "deals" ? "dealEvents" : "poolEvents"])';
const NAMES = JSON.stringify(EVENT_NAMES);
export const subtitle = `={{ Array.isArray(${PICKED}) && ${NAMES}[${PICKED}[0]] ? ${NAMES}[${PICKED}[0]] + (${PICKED}.length > 1 ? " and more" : "") : "" }}`;

const byWatch = (watch: 'pools' | 'deals') =>
	families.find((family) => family.v1Watch === watch) as EventFamily;

/** Version 1: what to watch, and the events of that. */
const version1: INodeProperties[] = [
	{
		displayName: 'Watch',
		name: 'watch',
		type: 'options',
		default: 'pools',
		displayOptions: { show: { '@version': [1] } },
		options: [
			{
				name: 'Promo Pools',
				value: 'pools',
				description: "Counters of the company's promo pools: one request per poll",
			},
			{
				name: 'Deals of Watched Customers',
				value: 'deals',
				description: 'The deals of a list of customers: one request per customer',
			},
		],
	},
	{
		displayName: 'Events',
		name: 'poolEvents',
		type: 'multiOptions',
		default: ['poolLow'],
		required: true,
		displayOptions: { show: { '@version': [1], watch: ['pools'] } },
		options: byWatch('pools').eventOptions,
	},
	{
		displayName: 'Events',
		name: 'dealEvents',
		type: 'multiOptions',
		default: ['dealMoved'],
		required: true,
		displayOptions: { show: { '@version': [1], watch: ['deals'] } },
		options: byWatch('deals').eventOptions,
	},
];

/**
 * Each family's fields in the registry's order: first as version 1 shows them (for its two
 * families), then where one of the events of the families listing the field is picked.
 */
export function familyFields(list: readonly EventFamily[] = families): INodeProperties[] {
	const placed = new Set<string>();
	return list.flatMap((family) => {
		const v1 = family.v1Watch
			? family.fields.map((field) => ({
					...field,
					displayOptions: { show: { '@version': [1], watch: [family.v1Watch as string] } },
				}))
			: [];
		const v2 = family.fields
			.filter((field) => !placed.has(field.name))
			.map((field) => {
				placed.add(field.name);
				const events = list
					.filter((other) => other.fields.some((f) => f.name === field.name))
					.flatMap((other) => [...other.events]);
				return { ...field, displayOptions: { show: { events }, hide: { '@version': [1] } } };
			});
		return [...v1, ...v2];
	});
}

export const properties: INodeProperties[] = [
	// First: the node picker lists its options as the trigger's events (since version 2).
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		default: ['poolLow'],
		required: true,
		displayOptions: { hide: { '@version': [1] } },
		options: [...allEventOptions].sort((a, b) => a.name.localeCompare(b.name)),
		description:
			'Pool events read the promo pools and template events the business-chat templates (one request per poll each); deal and messenger events read the deals or the messengers of the customers named below (one request per customer each)',
	},
	...version1,
	...familyFields(),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				// Stored as rateBudgetPercent: a request count per poll (the action node's Share of
				// the Rate Limit, rateShare, is a cap its pacer keeps to).
				displayName: 'Share of the Rate Limit (%)',
				name: 'rateBudgetPercent',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 100 },
				default: 50,
				description:
					"The most of the key's rate limit (read from the API's headers) one poll may use, leaving the rest to your workflows",
			},
		],
	},
];
