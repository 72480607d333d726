/**
 * The trigger's registry of event families: every event in one family, the baseline's key as
 * saved states hold it, a state that holds its rotation as `cursor`, and a family added by one line.
 */
import type { IDataObject } from 'n8n-workflow';

import { families, familyOf } from '../../nodes/MessagingCrm/trigger/families';
import type { EventFamily, TriggerSettings } from '../../nodes/MessagingCrm/trigger/family.type';
import { familyFields } from '../../nodes/MessagingCrm/trigger/description';
import { agentFilter } from '../../nodes/MessagingCrm/trigger/fields';
import { configKey } from '../../nodes/MessagingCrm/trigger/settings';
import { loadState } from '../../nodes/MessagingCrm/trigger/state';

const settingsOf = (names: string[], events: string[], filters: IDataObject): TriggerSettings => ({
	families: families.filter((family) => names.includes(family.name)),
	events,
	picked: events,
	pollSharePercent: 50,
	filters,
});

describe('the registry of event families', () => {
	it('each event is in exactly one family, and its Events entry is the family state module’s own', () => {
		const all = families.flatMap((family) => [...family.events]);
		expect(new Set(all).size).toBe(all.length);
		for (const family of families) {
			expect(family.eventOptions.map((o) => String(o.value)).sort()).toEqual(
				[...family.events].sort(),
			);
			for (const event of family.events) expect(familyOf(event)).toBe(family);
		}
	});

	it('the baseline key is the one saved states hold (a changed key would start every trigger from a new baseline)', () => {
		const pool = '11111111-1111-4111-8111-111111111111';
		const pipeline = '22222222-2222-4222-8222-222222222222';
		const settings = settingsOf(['pools', 'deals'], ['dealMoved', 'poolLow'], {
			agentId: '',
			poolIds: [pool],
			customerIds: ['33333333-3333-4333-8333-333333333333'],
			pipelineId: pipeline,
			stageCodes: ['proposal'],
		});
		// As the trigger before its families wrote it (watch, events, agent, pools, pipeline, stages).
		expect(configKey(settings)).toBe(
			JSON.stringify(['deals+pools', ['dealMoved', 'poolLow'], '', [pool], pipeline, ['proposal']]),
		);
		expect(configKey(settingsOf(['templates'], ['templateNew'], { agentId: '' }))).toBe(
			JSON.stringify(['templates', ['templateNew'], '', [], '', []]),
		);
		// A later family's own filter joins the key after these, and only where it is set.
		expect(
			JSON.parse(
				configKey(settingsOf(['templates'], ['templateNew'], { agentId: '', leadMinutes: 60 })),
			),
		).toEqual(['templates', ['templateNew'], '', [], '', [], ['leadMinutes', 60]]);
	});

	it('a state saved before rotationStart was named so keeps its rotation (stored as cursor); another configuration starts anew', () => {
		const stored = { config: 'k', deals: { c: {} }, cursor: 7, rateLimit: 120 };
		expect(loadState(stored, 'k')).toEqual({
			config: 'k',
			deals: { c: {} },
			rotationStart: 7,
			rateLimit: 120,
		});
		expect(loadState({ config: 'k', rotationStart: 2 }, 'k')).toEqual({
			config: 'k',
			rotationStart: 2,
		});
		expect(loadState(stored, 'other')).toEqual({ config: 'other' });
		expect(loadState(undefined, 'k')).toEqual({ config: 'k' });
	});

	it('a family added to the list gets its events and fields in the panel; a field two families list is shown for both', () => {
		const toy: EventFamily = {
			name: 'agents',
			events: ['agentAdded'],
			eventOptions: [{ name: 'Agent Added', value: 'agentAdded' }],
			fields: [agentFilter, { displayName: 'Label', name: 'label', type: 'string', default: '' }],
			reserve: 1,
			settings: () => ({}),
			sample: async () => [],
			poll: async (_ctx, _settings, step) => ({ state: step.state, events: [] }),
		};
		const before = familyFields();
		const after = familyFields([...families, toy]);
		const shownFor = (fields: typeof before, name: string) =>
			fields
				.filter((f) => f.name === name && f.displayOptions?.hide)
				.flatMap((f) => f.displayOptions?.show?.events ?? []);
		expect(shownFor(after, 'label')).toEqual(['agentAdded']);
		expect(shownFor(after, 'agentId')).toEqual([...shownFor(before, 'agentId'), 'agentAdded']);
		// Nothing else moves: the fields before are all still there, in their order.
		expect(after.map((f) => f.name)).toEqual([...before.map((f) => f.name), 'label']);
	});
});
