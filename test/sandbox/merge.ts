/** POST /customers/{id}/merge, rules 1 to 6 of the spec. */
import { isUuid } from './ids';
import { validation } from './errors';
import { optionalUuid } from './crm';
import type { CustomerRow, Store } from './store';

export function merge(
	store: Store,
	winner: CustomerRow,
	body: Record<string, unknown>,
	now: string,
) {
	const fromId = optionalUuid(body, 'from_customer_id');
	const code = body.promo_code ?? null;
	if (code !== null && (typeof code !== 'string' || code.length > 255 || code.trim() === '')) {
		throw validation('promo_code must be a string of 1 to 255 characters', { field: 'promo_code' });
	}
	if ((fromId === null) === (code === null)) {
		throw validation('Name the donor with exactly one of from_customer_id and promo_code', {
			field: 'from_customer_id',
		});
	}
	const keepId = optionalUuid(body, 'keep_conversation_id');
	const absorb = body.absorb_conversations ?? false;
	if (typeof absorb !== 'boolean')
		throw validation('absorb_conversations must be a boolean', { field: 'absorb_conversations' });
	if (!winner.is_active)
		throw validation('The winner card has itself been merged into another card', {
			field: 'customer_id',
		});

	let donor: CustomerRow | undefined;
	if (fromId) {
		donor = store.customers.get(fromId);
		if (!donor)
			throw validation(`from_customer_id ${fromId} is not a customer`, {
				field: 'from_customer_id',
			});
	} else {
		const rows = [...store.promoCodes.values()]
			.flat()
			.filter((r) => r.code === code && r.customer_id);
		const row = rows[0];
		if (!row)
			throw validation(`No customer was issued the code "${code}"`, { field: 'promo_code' });
		if (row.customer_id === winner.id && row.moved_from) {
			// Rule 6: the code now belongs to the winner because of an earlier merge.
			return report(winner.id, row.moved_from, { already_merged: true });
		}
		donor = store.customers.get(row.customer_id!);
	}
	if (!donor) throw validation('The donor was not found', { field: 'from_customer_id' });
	if (donor.id === winner.id)
		throw validation('A card cannot be merged into itself', { field: 'from_customer_id' });
	if (donor.merged_into) return report(winner.id, donor.id, { already_merged: true });

	const counters = { ...ZERO };
	const warnings: string[] = [];

	// Rule 2: only gaps are filled from the donor.
	for (const field of [
		'full_name',
		'phone',
		'email',
		'avatar_url',
		'source',
		'language',
	] as const) {
		if (winner[field] === null && donor[field] !== null) winner[field] = donor[field];
	}
	// Messengers.
	for (const m of donor.messengers) {
		if (!winner.messengers.some((w) => w.type === m.type && w.id === m.id)) {
			winner.messengers.push(m);
			counters.messengers_moved++;
		}
	}
	donor.messengers = [];

	// Conversations (rule 4).
	const winnerDialogs = () =>
		[...store.conversations.values()].filter(
			(c) => c.customer_id === winner.id && c.status === 'active',
		);
	const donorDialogs = [...store.conversations.values()].filter(
		(c) => c.customer_id === donor!.id && c.status === 'active',
	);
	if (keepId && !store.conversations.has(keepId))
		throw validation('keep_conversation_id is not a dialog of either card', {
			field: 'keep_conversation_id',
		});
	const absorbInto = (from: (typeof donorDialogs)[number], into: (typeof donorDialogs)[number]) => {
		const moved = from.timeline.filter((e) => e.kind !== 'system');
		into.timeline.push(...moved);
		counters.messages_moved += moved.length;
		from.timeline = from.timeline.filter((e) => e.kind === 'system');
		if (moved.length === 0) {
			store.conversations.delete(from.id);
			counters.conversations_dropped++;
		} else {
			from.status = 'archived';
			counters.conversations_archived++;
		}
	};
	for (const dialog of donorDialogs) {
		const sameAgent = winnerDialogs().find((w) => w.agent_id === dialog.agent_id);
		if (sameAgent) {
			// Always merged into the surviving dialog; keep_conversation_id picks which survives.
			const [survivor, absorbed] = keepId === dialog.id ? [dialog, sameAgent] : [sameAgent, dialog];
			survivor.customer_id = winner.id;
			absorbInto(absorbed, survivor);
			continue;
		}
		const target = absorb
			? (winnerDialogs().find((w) => w.id === keepId) ?? winnerDialogs()[0])
			: undefined;
		if (target) {
			absorbInto(dialog, target);
		} else {
			dialog.customer_id = winner.id;
			counters.conversations_moved++;
		}
	}

	// Deals (rule 5: a second active deal in the same pipeline is closed as a duplicate).
	for (const deal of [...store.deals.values()].filter((d) => d.customer_id === donor!.id)) {
		const clash =
			deal.status === 'active' &&
			store.activeDeals(winner.id).some((w) => w.pipeline_id === deal.pipeline_id);
		if (clash) {
			deal.status = 'lost';
			deal.closed_reason = 'duplicate: closed by merge';
			counters.deals_closed_as_duplicate++;
			const pipeline = store.pipelines.get(deal.pipeline_id);
			warnings.push(
				`Deal ${deal.id} was closed as a duplicate: the winner already has an active deal in pipeline "${pipeline?.name}"`,
			);
		}
		deal.customer_id = winner.id;
		counters.deals_moved++;
	}

	// Variables: same-named ones stay with the winner.
	for (const [name, variable] of donor.variables) {
		if (winner.variables.has(name)) {
			warnings.push(`Variable "${name}" stayed with the winner`);
			continue;
		}
		winner.variables.set(name, variable);
		counters.variables_moved++;
	}
	donor.variables = new Map(
		[...donor.variables].filter(
			([name]) => winner.variables.get(name) !== donor!.variables.get(name),
		),
	);

	// Issued codes: one code per customer per pool.
	for (const row of store.codesOf(donor.id)) {
		if (store.codesOf(winner.id).some((w) => w.pool_id === row.pool_id)) {
			warnings.push(
				`Code "${row.code}" stayed with the donor: the winner already holds a code from the same pool`,
			);
			continue;
		}
		row.customer_id = winner.id;
		row.moved_from = donor.id;
		counters.promo_codes_moved++;
	}

	counters.notes_moved = donor.notes;
	winner.notes += donor.notes;
	donor.notes = 0;
	donor.merged_into = winner.id;
	donor.is_active = false;
	void now;
	return report(winner.id, donor.id, { ...counters, warnings });
}

/** The counters of the merge report, all 0 by default (api-spec: CustomerMergeOut). */
const ZERO = {
	messengers_moved: 0,
	conversations_moved: 0,
	conversations_archived: 0,
	conversations_dropped: 0,
	messages_moved: 0,
	deals_moved: 0,
	deals_closed_as_duplicate: 0,
	variables_moved: 0,
	promo_codes_moved: 0,
	notes_moved: 0,
};

function report(winnerId: string, donorId: string, fields: Record<string, unknown>) {
	if (!isUuid(donorId)) throw validation('Invalid donor', { field: 'from_customer_id' });
	return {
		winner_id: winnerId,
		donor_id: donorId,
		already_merged: false,
		...ZERO,
		warnings: [],
		...fields,
	};
}
