/** `npm run bench -- trigger`. The trigger's polls: what it costs to notice events. */
import { createTrigger } from '../harness/triggerRuns';
import {
	BASE,
	control,
	fresh,
	LIMIT,
	percent,
	repeated,
	requestLog,
	row,
	show,
	WINDOW_MS,
} from './runner';

export async function trigger() {
	const s = await repeated('trigger', 'pools and 500 watched customers', async () => {
		const apiKey = await fresh({ enabled: true, limit: LIMIT, windowMs: WINDOW_MS });
		const pools = await createTrigger(
			{ watch: 'pools', poolEvents: ['codesIssued'] },
			{ baseUrl: BASE, apiKey },
		);
		await pools.poll();
		await control('DELETE', '/requests');
		await pools.poll();
		const poolRequests = (await requestLog()).length;
		const { ids } = (await control('POST', '/customers/bulk', { count: 500, withDeals: true })) as {
			ids: string[];
		};
		const deals = await createTrigger(
			{ watch: 'deals', dealEvents: ['dealMoved'], customerIds: ids.join('\n') },
			{ baseUrl: BASE, apiKey },
		);
		const seen = new Set<string>();
		const perPoll: number[] = [];
		let polls = 0;
		while (seen.size < ids.length && polls < 50) {
			await control('DELETE', '/requests');
			await deals.poll();
			polls++;
			const log = await requestLog();
			perPoll.push(log.length);
			for (const r of log) seen.add(r.path.split('/')[2]);
		}
		return {
			pool_requests_per_poll: poolRequests,
			deal_requests_per_poll: Math.max(...perPoll),
			polls_to_read_every_customer: polls,
			share_of_rate_limit: Math.max(...perPoll) / LIMIT,
		};
	});
	row(
		'Trigger: pools',
		'Messaging CRM Trigger',
		`${show(s.pool_requests_per_poll, 0)} request/poll`,
		'',
		'',
		'',
		'',
	);
	row(
		'Trigger: 500 watched customers',
		'Messaging CRM Trigger',
		`${show(s.deal_requests_per_poll, 0)} requests/poll`,
		`${show(s.polls_to_read_every_customer, 0)} polls to read all`,
		`${percent(s.share_of_rate_limit)} of limit per poll`,
		'',
		'',
	);
}
