import { asBody, conflict, dealOut, isoNow } from '../crm';
import { notFound, validation } from '../errors';
import type { Route } from '../server';
import { variableRoutes } from './variables';
import type { DealRow, Store } from '../store';

function requireDeal(store: Store, id: string): DealRow {
	const deal = store.deals.get(id);
	if (!deal) throw notFound('deal', id);
	return deal;
}

export const dealRoutes: Route[] = [
	{
		method: 'POST',
		path: '/deals/:deal_id/close',
		scope: 'customers:write',
		uuidParams: ['deal_id'],
		handler: ({ store, params, body, sandbox }) => {
			const deal = requireDeal(store, params.deal_id);
			const b = asBody(body);
			const status = b.status;
			if (typeof status !== 'string' || !/^(won|lost)$/.test(status))
				throw validation('status must be "won" or "lost"', { field: 'status' });
			const reason = b.reason ?? null;
			if (reason !== null && (typeof reason !== 'string' || reason.length > 500)) {
				throw validation('reason must be a string of at most 500 characters', { field: 'reason' });
			}
			if (deal.status !== 'active') {
				// Closing again with the same status is a no-op; another status is refused.
				if (deal.status === status) return { status: 200, body: dealOut(store, deal) };
				throw conflict(
					`The deal is already closed as ${deal.status}`,
					{ deal_id: deal.id, status: deal.status },
					'deal_closed',
				);
			}
			deal.status = status as 'won' | 'lost';
			deal.closed_reason = reason as string | null;
			deal.moved_at = isoNow(sandbox.now());
			return { status: 200, body: dealOut(store, deal) };
		},
	},
	...variableRoutes('/deals/:deal_id', 'deal_id', (store, id) => requireDeal(store, id).variables),
];
