/**
 * The API's paths, one builder per endpoint (a sub-path is one of the endpoints the spec lists):
 * no path is written anywhere else. Every value is one encoded segment that cannot bend the path.
 */
import { pathSegment } from '../helpers/url';

/** What follows /customers/{id}: the card itself, or one of its endpoints. */
type CustomerEndpoint =
	| ''
	| '/conversations'
	| '/deals'
	| '/merge'
	| '/messages'
	| '/messengers'
	| '/stage'
	| '/variables';
type DealEndpoint = '/close' | '/variables';
type PoolEndpoint = '' | '/codes' | '/codes/revoke';

export const paths = {
	agents: () => '/agents',
	pipelines: () => '/pipelines',
	customers: () => '/customers',
	customerLookup: () => '/customers/lookup',
	customer: (id: string, endpoint: CustomerEndpoint = '') =>
		`/customers/${pathSegment(id)}${endpoint}`,
	deal: (id: string, endpoint: DealEndpoint) => `/deals/${pathSegment(id)}${endpoint}`,
	pools: () => '/promo-pools',
	pool: (id: string, endpoint: PoolEndpoint = '') => `/promo-pools/${pathSegment(id)}${endpoint}`,
	promoCode: (code: string) => `/promo-codes/${pathSegment(code)}`,
	templates: () => '/bizchat/templates',
};
