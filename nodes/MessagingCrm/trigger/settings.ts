/**
 * The trigger's settings, from a node of version 1 or 2: the events picked, their families, each
 * family's filters (checked before any request) and the poll's share of the rate limit.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { families, familyOf } from './families';
import type { EventFamily, TriggerSettings } from './family.type';

/**
 * The events picked and their families. Version 1: its Watch (pools or deals) and that family's
 * list; since version 2: one list of every family's events (the first property, which the node
 * picker reads).
 */
function readEvents(ctx: IPollFunctions): { watched: EventFamily[]; picked: string[] } {
	const list = (name: string) => [...((ctx.getNodeParameter(name, []) as string[]) ?? [])];
	if (ctx.getNode().typeVersion === 1) {
		const watch = ctx.getNodeParameter('watch', 'pools') as 'pools' | 'deals';
		return {
			watched: families.filter((family) => family.v1Watch === watch),
			picked: list(watch === 'pools' ? 'poolEvents' : 'dealEvents'),
		};
	}
	const picked = list('events');
	const watched = families.filter((family) => picked.some((event) => familyOf(event) === family));
	// Nothing picked is refused below; an unknown event alone reads the pools, as it always did.
	return { watched: watched.length ? watched : families.filter((f) => f.name === 'pools'), picked };
}

export function readSettings(ctx: IPollFunctions): TriggerSettings {
	const { watched, picked } = readEvents(ctx);
	const node = ctx.getNode();
	if (picked.length === 0) {
		throw new NodeOperationError(node, 'No event is selected', {
			description: 'Pick at least one event to trigger on.',
		});
	}
	const filters: IDataObject = {};
	for (const family of watched) Object.assign(filters, family.settings(ctx));
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	// Stored as rateBudgetPercent (saved workflows hold the name).
	const share = typeof options.rateBudgetPercent === 'number' ? options.rateBudgetPercent : 50;
	if (!Number.isFinite(share) || share < 1 || share > 100) {
		throw new NodeOperationError(node, '"Share of the Rate Limit" must be from 1 to 100', {
			description:
				"Under Options, set it to a number from 1 to 100: 50 leaves half of the key's requests to its other clients.",
		});
	}
	return {
		families: watched,
		events: [...picked].sort(),
		picked,
		pollSharePercent: share,
		filters,
	};
}

/**
 * The filters a baseline belongs to, in the order saved baselines hold them (a state stored under
 * another key starts a new baseline); watched customers are not among them (each is baselined on
 * its own), and a later family's filters follow these.
 */
const KEYED_FILTERS: Array<[name: string, empty: unknown]> = [
	['agentId', ''],
	['poolIds', []],
	['pipelineId', ''],
	['stageCodes', []],
];
/** Not in the key, or in it in the order above. */
const NOT_LATER = new Set(['customerIds', ...KEYED_FILTERS.map(([name]) => name)]);

/** The key of the settings a baseline belongs to. */
export function configKey(s: TriggerSettings): string {
	const watch = s.families
		.map((family) => family.name)
		.sort()
		.join('+');
	const later = Object.keys(s.filters)
		.filter((name) => !NOT_LATER.has(name))
		.sort()
		.map((name) => [name, s.filters[name]]);
	return JSON.stringify([
		watch,
		s.events,
		...KEYED_FILTERS.map(([name, empty]) => s.filters[name] ?? empty),
		...later,
	]);
}
