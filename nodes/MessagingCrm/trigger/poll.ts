/**
 * One poll of the trigger: Fetch Test Event's sample, or, in an active workflow, each watched
 * family read in turn within the poll's request budget, compared with the stored state, stored,
 * and the events emitted.
 */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { familyOf } from './families';
import type { TriggerSettings } from './family.type';
import { configKey, readSettings } from './settings';
import type { Emitted } from './state';
import { loadState, requestBudget } from './state';

/**
 * Marks a poll in flight on the node's static data: n8n 2.x starts a poll on each tick without
 * waiting for the one before, with the same static data, and two polls at once would report every
 * change twice. A symbol key, because n8n stores static data as JSON, which leaves it out: no mark
 * survives a restart of n8n.
 */
const POLL_IN_FLIGHT = Symbol.for('n8n-nodes-messaging-crm.pollInFlight');

/** A mark older than this is taken as left by a poll that never ended. */
const POLL_MARK_STALE_MS = 30 * 60_000;

export async function poll(ctx: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const settings = readSettings(ctx);
	const staticData = ctx.getWorkflowStaticData('node');
	if (ctx.getMode() === 'manual') {
		// A realistic sample of the first event picked, from the current state; nothing stored.
		const event = settings.picked[0];
		return [await (familyOf(event) ?? settings.families[0]).sample(ctx, settings, event)];
	}
	const marks = staticData as unknown as Record<symbol, number | undefined>;
	const since = marks[POLL_IN_FLIGHT];
	if (since !== undefined && Date.now() - since < POLL_MARK_STALE_MS) {
		ctx.logger.info(
			`Messaging CRM Trigger: the poll started ${Math.round((Date.now() - since) / 1000)} s ago is still running; this one is skipped (nothing emitted, nothing changed)`,
		);
		return null;
	}
	const mine = Date.now();
	marks[POLL_IN_FLIGHT] = mine;
	try {
		return await pollChanges(ctx, settings, staticData);
	} finally {
		if (marks[POLL_IN_FLIGHT] === mine) delete marks[POLL_IN_FLIGHT];
	}
}

/**
 * Read, compare with the stored state, store, emit. The families read in the registry's order,
 * those that take what is left of the budget last. A family of a fixed cost may spend the poll's
 * budget less what was spent and what the families after it need (`reserve`); those that take the
 * rest share it evenly, and what one leaves goes to the next.
 */
async function pollChanges(
	ctx: IPollFunctions,
	settings: TriggerSettings,
	staticData: IDataObject,
): Promise<INodeExecutionData[][] | null> {
	let state = loadState(staticData.state, configKey(settings));
	const wanted = new Set(settings.events);
	const order = [
		...settings.families.filter((family) => !family.takesTheRest),
		...settings.families.filter((family) => family.takesTheRest),
	];
	const events: Emitted[] = [];
	// Requests this poll has spent, against its budget (read from the API's headers).
	let spent = 0;
	// Everything is read before anything is stored: a failure here leaves the state as it was.
	for (const [i, family] of order.entries()) {
		const later = order.slice(i + 1);
		const reserved = family.takesTheRest ? 0 : later.reduce((sum, next) => sum + next.reserve, 0);
		const sharing = family.takesTheRest ? 1 + later.length : 1;
		const result = await family.poll(ctx, settings, {
			state,
			wanted,
			budget: (current) =>
				Math.floor(
					(requestBudget(current.rateLimit, settings.pollSharePercent) - spent - reserved) /
						sharing,
				),
			spent: (requests) => {
				spent += requests;
			},
		});
		state = result.state;
		events.push(...result.events);
	}
	staticData.state = state;
	if (events.length === 0) return null;
	// When this poll noticed it: two events that read alike (a template approved, rejected and
	// approved again) stay two, while a Retry of the execution reuses the items n8n stored.
	const detectedAt = new Date().toISOString();
	return [
		events.map((event) => ({ json: { ...(event as IDataObject), detected_at: detectedAt } })),
	];
}
