/**
 * The API's paths, one builder per endpoint or record (whose endpoints follow as a sub-path): no
 * path is written anywhere else. Every value is one encoded segment that cannot bend the path.
 */
import { pathSegment } from '../helpers/url';

/**
 * What follows a record's path: nothing (the record), or one of its endpoints (`'/merge'`,
 * `'/codes/revoke'`), written where an operation calls the builder. Any sub-path is taken, so a new
 * endpoint needs no edit here and no list of them is kept here to drift: a path the API does not
 * have fails against the sandbox, which has only the spec's.
 */
type SubPath = '' | `/${string}`;

export const paths = {
	agents: () => '/agents',
	pipelines: () => '/pipelines',
	customers: () => '/customers',
	customerLookup: () => '/customers/lookup',
	customer: (id: string, endpoint: SubPath = '') => `/customers/${pathSegment(id)}${endpoint}`,
	deal: (id: string, endpoint: SubPath) => `/deals/${pathSegment(id)}${endpoint}`,
	pools: () => '/promo-pools',
	pool: (id: string, endpoint: SubPath = '') => `/promo-pools/${pathSegment(id)}${endpoint}`,
	promoCode: (code: string) => `/promo-codes/${pathSegment(code)}`,
	templates: () => '/bizchat/templates',
};
