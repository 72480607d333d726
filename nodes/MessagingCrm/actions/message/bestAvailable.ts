import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../../helpers/validate';
import { BEST_AVAILABLE, MESSENGER_TYPE_OPTIONS } from '../../shared/messengers';
import { customerMessengers } from '../../shared/reads';
import { apiFailureOf } from '../../transport/errors';

/** The bot messenger, tried first in the default order: it has no 24-hour window. */
const BOT_MESSENGER = 'telegram';

/**
 * Refusals that name the customer or the window on one messenger, so the next may take the
 * message. Not these: `channel_unavailable` (the company's connection is broken: sending
 * elsewhere would hide an outage the operator must fix, and the run after the reconnect delivers
 * on the preferred messenger), `send_rejected` (refused without a reason: another messenger may
 * deliver what this platform deemed unacceptable), `send_failed` or any transient failure (the
 * messenger may yet deliver, or the transport retries it: sending elsewhere could deliver twice).
 */
const FALLS_THROUGH = new Set(['no_peer', 'recipient_unreachable', 'bizchat_window_closed']);

export function fallsThrough(error: unknown): boolean {
	return FALLS_THROUGH.has(apiFailureOf(error)?.code ?? '');
}

/** Its field, shown only for it. */
export const messengerOrderField: INodeProperties = {
	displayName: 'Try Messengers In Order',
	name: 'messengerOrder',
	type: 'multiOptions',
	options: MESSENGER_TYPE_OPTIONS,
	default: [],
	displayOptions: { show: { messengerType: [BEST_AVAILABLE] } },
	description:
		"The messengers to try, first to last; those the customer lacks are left out. Empty: the customer's messengers, the bot messenger (Telegram Bot) first, then in the order the API lists them. Each is tried by sending, and the API's answer decides: the next is tried after no_peer, recipient_unreachable or bizchat_window_closed, never after channel_unavailable, send_rejected or send_failed. No messenger is skipped on the 24-hour window the messengers list shows (nor by Check 24-Hour Window First): a skip is stored nowhere, so a run again after the customer wrote would send there too.",
};

/** The order as given: a list, or a comma-separated text from an expression. */
function chosenOrder(ctx: IExecuteFunctions, itemIndex: number): string[] {
	const raw = ctx.getNodeParameter('messengerOrder', itemIndex, []) as unknown;
	const list = typeof raw === 'string' ? raw.split(',') : raw;
	if (!Array.isArray(list) || list.some((t) => typeof t !== 'string'))
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			'Try Messengers In Order',
			`must be a list of messenger types, got ${JSON.stringify(raw)?.slice(0, 60)}`,
			'Pick the messengers from the list, or map a list such as ["telegram", "whatsapp"].',
		);
	return [...new Set((list as string[]).map((t) => t.trim()).filter(Boolean))];
}

/**
 * The messengers to try for this item (one read of the customer's messengers): the chosen order,
 * without the types the customer lacks; or, none chosen, the customer's own, the bot first.
 */
export async function messengersToTry(
	ctx: IExecuteFunctions,
	itemIndex: number,
	customerId: string,
): Promise<{ chosen: string[]; order: string[] }> {
	const chosen = chosenOrder(ctx, itemIndex);
	const types = [
		...new Set((await customerMessengers(ctx, customerId, itemIndex)).map((m) => String(m.type))),
	];
	const theirs = types.length ? types.join(', ') : 'none';
	if (chosen.length) {
		const order = chosen.filter((t) => types.includes(t));
		if (!order.length)
			throw invalidInput(
				ctx.getNode(),
				itemIndex,
				'Try Messengers In Order',
				`names none of the customer's messengers (${chosen.join(', ')}; the customer has ${theirs})`,
				"Add one of the customer's messengers, or leave the field empty to try all of theirs.",
			);
		return { chosen, order };
	}
	if (!types.length)
		throw invalidInput(
			ctx.getNode(),
			itemIndex,
			'Messenger',
			'is Best Available, but the customer has no messengers',
			'Add a messenger to the customer (Customer → Create or Update) first.',
			{
				problem: 'the customer has no messengers to send on',
				next: 'Nothing was sent: the customer must be given a messenger first, or reached another way.',
			},
		);
	const bot = types.filter((t) => t === BOT_MESSENGER);
	return { chosen, order: [...bot, ...types.filter((t) => t !== BOT_MESSENGER)] };
}
