import { dealEvents, pollDeals } from '../../nodes/MessagingCrm/trigger/deals/state';
import type { PoolSnapshot } from '../../nodes/MessagingCrm/trigger/pools/state';
import { pollPools, poolEvents } from '../../nodes/MessagingCrm/trigger/pools/state';
import { parseCustomerIds, planReads, requestBudget } from '../../nodes/MessagingCrm/trigger/state';

const snap = (over: Partial<PoolSnapshot> = {}): PoolSnapshot => ({
	total: 10,
	issued: 2,
	remaining: 8,
	low_threshold: 3,
	exhausted_requests: 0,
	is_enabled: true,
	...over,
});
const ALL = new Set([
	'poolLow',
	'poolEmpty',
	'poolRestocked',
	'codesIssued',
	'exhaustedRequestsRose',
	'poolDisabled',
	'poolEnabled',
	'anyCounterChanged',
]);

describe('pool events', () => {
	it('finds low and issued when remaining falls to the threshold', () => {
		const events = poolEvents(snap(), { id: 'p', ...snap({ issued: 7, remaining: 3 }) }, ALL);
		expect(events.map((e) => e.event)).toEqual(['poolLow', 'codesIssued', 'anyCounterChanged']);
		expect(events[1]).toMatchObject({
			count: 5,
			deltas: { issued: 5, remaining: -5 },
			before: { issued: 2 },
		});
	});
	it('does not repeat low while it stays low, and reports empty once', () => {
		expect(
			poolEvents(
				snap({ remaining: 2, issued: 8 }),
				{ ...snap({ remaining: 1, issued: 9 }) },
				new Set(['poolLow', 'poolEmpty']),
			),
		).toEqual([]);
		expect(
			poolEvents(snap({ remaining: 1 }), { ...snap({ remaining: 0 }) }, new Set(['poolEmpty'])).map(
				(e) => e.event,
			),
		).toEqual(['poolEmpty']);
	});
	it('reports restock, disable and enable, and only what was asked for', () => {
		expect(
			poolEvents(snap(), { ...snap({ remaining: 20, total: 22 }) }, new Set(['poolRestocked'])).map(
				(e) => e.event,
			),
		).toEqual(['poolRestocked']);
		expect(poolEvents(snap(), { ...snap({ is_enabled: false }) }, ALL).map((e) => e.event)).toEqual(
			['poolDisabled'],
		);
		expect(
			poolEvents(snap({ is_enabled: false }), { ...snap() }, new Set(['poolDisabled'])),
		).toEqual([]);
	});
	it('baselines new pools quietly and forgets vanished ones', () => {
		const first = pollPools({ config: 'c' }, [{ id: 'a', ...snap() }], ALL);
		expect(first.events).toEqual([]);
		const second = pollPools(first.state, [{ id: 'b', ...snap() }], ALL);
		expect(second.events).toEqual([]);
		expect(Object.keys(second.state.pools!)).toEqual(['b']);
	});
});

describe('deal events', () => {
	const deal = (stage: string, status = 'active', code: string | null = stage) => ({
		id: 'd1',
		pipeline_id: 'p1',
		stage_id: stage,
		stage_code: code,
		status,
		moved_at: 't',
	});
	const before = { d1: { stage_id: 's1', stage_code: 's1', status: 'active', moved_at: null } };
	const all = new Set(['dealCreated', 'dealMoved', 'dealWon', 'dealLost']);
	it('reports a move with the stage before and after, filtered by pipeline and stage codes', () => {
		expect(dealEvents('c', before, [deal('s2')], all, { pipelineId: '', stageCodes: [] })).toEqual([
			expect.objectContaining({
				event: 'dealMoved',
				stage_before: { id: 's1', code: 's1' },
				stage_after: { id: 's2', code: 's2' },
			}),
		]);
		expect(
			dealEvents('c', before, [deal('s2')], all, { pipelineId: 'p1', stageCodes: ['s3'] }),
		).toEqual([]);
		expect(
			dealEvents('c', before, [deal('s2')], all, { pipelineId: 'p2', stageCodes: [] }),
		).toEqual([]);
	});
	it('reports created, won and lost once', () => {
		expect(
			dealEvents('c', {}, [deal('s1')], all, { pipelineId: '', stageCodes: [] }).map(
				(e) => e.event,
			),
		).toEqual(['dealCreated']);
		expect(
			dealEvents('c', before, [deal('s1', 'won')], all, { pipelineId: '', stageCodes: [] }).map(
				(e) => e.event,
			),
		).toEqual(['dealWon']);
		const closed = { d1: { ...before.d1, status: 'lost' } };
		expect(
			dealEvents('c', closed, [deal('s1', 'lost')], all, { pipelineId: '', stageCodes: [] }),
		).toEqual([]);
	});
	it('baselines a customer read for the first time, and drops customers no longer watched', () => {
		const first = pollDeals(
			{ config: 'c' },
			[{ customerId: 'a', deals: [deal('s1')] }],
			['a', 'b'],
			all,
			{ pipelineId: '', stageCodes: [] },
			0,
		);
		expect(first.events).toEqual([]);
		const second = pollDeals(first.state, [], ['b'], all, { pipelineId: '', stageCodes: [] }, 0);
		expect(second.state.deals).toEqual({});
	});
});

describe('budget and rotation', () => {
	it('takes a share of the limit, at least one request', () => {
		expect(requestBudget(120, 50)).toBe(60);
		expect(requestBudget(undefined, 50)).toBe(60);
		expect(requestBudget(1, 10)).toBe(1);
	});
	it('reads everyone when they fit, otherwise rotates so every customer is read within ceil(n / budget) polls', () => {
		expect(planReads(['a', 'b'], 5, 3)).toEqual({
			read: ['a', 'b'],
			nextStart: 0,
			rotating: false,
		});
		const ids = Array.from({ length: 500 }, (_, i) => `c${i}`);
		const seen = new Set<string>();
		let start = 0;
		for (let poll = 0; poll < Math.ceil(500 / 60); poll++) {
			const plan = planReads(ids, start, 60);
			expect(plan.read).toHaveLength(60);
			plan.read.forEach((id) => seen.add(id));
			start = plan.nextStart;
		}
		expect(seen.size).toBe(500);
	});
	it('parses customer IDs from text or a list, without repeats', () => {
		expect(parseCustomerIds('a, b\nc;a')).toEqual(['a', 'b', 'c']);
		expect(parseCustomerIds(['x', ' y ', '', 'x'])).toEqual(['x', 'y']);
	});
});
