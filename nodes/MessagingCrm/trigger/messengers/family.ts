/**
 * Messenger events of watched customers: a customer wrote, and their 24-hour window closes soon
 * or closed (one GET of the customer's messengers per customer, in rotation, apart from the deals).
 */
import type { IDataObject, INodePropertyOptions, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { customerWindows } from '../../shared/reads';
import type { EventFamily, TriggerSettings } from '../family.type';
import { keyLimitOf, readCustomerIds, readInTurn, sample, watchedCustomers } from '../fields';
import { MESSENGER_EVENTS, minutesLeft, pollMessengers } from './state';

/** The filters of messenger events, as `settings` reads them. */
interface MessengerFilters {
	customerIds: string[];
	windowLeadMinutes: number;
}

const eventOptions: INodePropertyOptions[] = [
	{
		name: 'Customer Wrote',
		value: 'customerWrote',
		description:
			'A watched customer sent a message on any messenger (one event per messenger and read, with the latest time)',
	},
	{
		name: 'Window Closing Soon',
		value: 'windowClosingSoon',
		description:
			"A watched customer's 24-hour window on WhatsApp Business, Instagram or Facebook closes within the lead time: once per window",
	},
	{
		name: 'Window Closed',
		value: 'windowClosed',
		description:
			"A watched customer's 24-hour window closed: free-form text needs a new message from them, or a template",
	},
];

/** The customer's messengers and the server's clock when it answered (this host's without a Date). */
async function readWindows(ctx: IPollFunctions, customerId: string) {
	const { messengers, rateLimit } = await customerWindows(ctx, customerId);
	return { messengers, now: rateLimit.serverDate ?? Date.now(), rateLimit: keyLimitOf(rateLimit) };
}

const filtersOf = (settings: TriggerSettings) => settings.filters as unknown as MessengerFilters;

export const messengers: EventFamily = {
	name: 'messengers',
	events: MESSENGER_EVENTS,
	eventOptions,
	fields: [
		watchedCustomers,
		{
			displayName: 'Window Closing Lead Time (Minutes)',
			name: 'windowLeadMinutes',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 1439 },
			default: 60,
			description:
				'For Window Closing Soon: how long before the 24-hour window closes the event comes (it comes once per window, also when a poll is late)',
		},
	],
	reserve: 1,
	takesTheRest: true,

	settings(ctx) {
		const customerIds = readCustomerIds(ctx);
		const lead = ctx.getNodeParameter('windowLeadMinutes', 60) as unknown;
		if (typeof lead !== 'number' || !Number.isFinite(lead) || lead < 1 || lead > 1439)
			throw new NodeOperationError(
				ctx.getNode(),
				`"Window Closing Lead Time (Minutes)" must be a number from 1 to 1439, got ${JSON.stringify(lead)}`,
				{
					description:
						'Set how many minutes before a 24-hour window closes the event comes: a whole number from 1 to 1439, such as 60.',
				},
			);
		return { customerIds, windowLeadMinutes: lead };
	},

	/** The first watched customer's messenger that fits the event best, as it is now. */
	async sample(ctx, settings, event) {
		const customerId = filtersOf(settings).customerIds[0];
		const { messengers, now } = await readWindows(ctx, customerId);
		const windowed = messengers.filter((m) => typeof m.window_expires_at === 'string');
		const open = windowed.filter((m) => m.can_send_freeform === true);
		const pick: IDataObject | undefined =
			event === 'customerWrote'
				? [...messengers]
						.filter((m) => m.last_inbound_at)
						.sort((a, b) => String(b.last_inbound_at).localeCompare(String(a.last_inbound_at)))[0]
				: event === 'windowClosed'
					? windowed.find((m) => m.can_send_freeform === false)
					: open[0];
		const entry = pick ?? messengers[0];
		if (!entry)
			return sample(event, { customer_id: customerId, message: 'This customer has no messenger' });
		const closesAt = Date.parse(String(entry.window_expires_at));
		return sample(event, {
			customer_id: customerId,
			messenger: { type: entry.type, id: entry.id, username: entry.username ?? null },
			last_inbound_at: entry.last_inbound_at ?? null,
			window_expires_at: entry.window_expires_at ?? null,
			can_send_freeform: entry.can_send_freeform ?? null,
			...(event === 'windowClosingSoon' && Number.isFinite(closesAt)
				? { minutes_left: minutesLeft(closesAt, now) }
				: {}),
			sample_matches_event: pick !== undefined,
		});
	},

	/** As many watched customers as its part of the budget allows (at least one), in rotation. */
	async poll(ctx, settings, step) {
		const filters = filtersOf(settings);
		const { reads, rateLimit, nextStart } = await readInTurn(
			step,
			filters.customerIds,
			step.state.messengerRotationStart ?? 0,
			async (customerId) => await readWindows(ctx, customerId),
		);
		return pollMessengers(
			{ ...step.state, rateLimit },
			reads,
			filters.customerIds,
			step.wanted,
			filters.windowLeadMinutes * 60_000,
			nextStart,
		);
	},
};
