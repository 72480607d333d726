/**
 * THE REGISTRY of the trigger's event families (pool counters, deals and messengers of watched
 * customers, template moderation): the node's Events list and fields, the settings,
 * Fetch Test Event and the poll are built from it. A new family is one folder (`family.ts`, and
 * its pure `state.ts`) and one line here; its place is where its fields appear in the panel.
 */
import { deals } from './deals/family';
import type { EventFamily } from './family.type';
import { messengers } from './messengers/family';
import { pools } from './pools/family';
import { templates } from './templates/family';

export const families: readonly EventFamily[] = [pools, deals, messengers, templates];

/** The family an event belongs to. */
export function familyOf(event: string): EventFamily | undefined {
	return families.find((family) => family.events.includes(event));
}
