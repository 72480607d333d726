/**
 * What more than one family of events uses: the agent filter (pools and templates), the watched
 * customers and their reading in turn (deals and messengers), the key's limit as an answer gives
 * it, and the shape of a sample (Fetch Test Event).
 */
import type {
	IDataObject,
	INodeExecutionData,
	INodeProperties,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isUuid } from '../helpers/validate';
import type { RateLimitReading } from '../transport/rateHeaders';
import { agentSelect } from '../shared/descriptions';
import type { PollStep } from './family.type';
import { parseCustomerIds, planReads } from './state';

/** Only this agent's pools and templates. */
export const agentFilter: INodeProperties = agentSelect(
	{
		description:
			'Only this agent\'s pools and templates. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	'allAgents',
);

/** The agent filter's value: empty for all agents. */
export function readAgentFilter(ctx: IPollFunctions): string {
	const agentId = String(ctx.getNodeParameter('agentId', '') ?? '').trim();
	if (agentId && !isUuid(agentId))
		throw new NodeOperationError(
			ctx.getNode(),
			`"Agent" must be a UUID, got ${JSON.stringify(agentId)}`,
			{
				description:
					'Pick the agent from the list, or give its ID (a UUID, as Agent → Get Many lists them); leave it empty for every agent.',
			},
		);
	return agentId;
}

/**
 * Whose deals and messengers: deal events and messenger events read each of these customers,
 * one request each, and share nothing but the request budget.
 */
export const watchedCustomers: INodeProperties = {
	displayName: 'Customer IDs',
	name: 'customerIds',
	type: 'string',
	typeOptions: { rows: 3 },
	default: '',
	required: true,
	placeholder: 'e.g. 3f1c0a52-5d2e-4a7b-9c41-0e8d2b6f7a10, one ID per line',
	hint: 'The API has no company-wide list of deals or messages, so each customer is read with one request (one for deals, one for messengers, for the events picked). When they do not fit the request budget of one poll, they are read in rotation: every customer at least once every ⌈customers ÷ budget⌉ polls (the budget is the share of the rate limit set below, 60 requests at 120 per minute and 50%, split between deal and messenger events when both are picked).',
};

/** Watched customer IDs, checked: at least one, each a UUID. */
export function readCustomerIds(ctx: IPollFunctions): string[] {
	const node = ctx.getNode();
	const customerIds = parseCustomerIds(ctx.getNodeParameter('customerIds', ''));
	if (customerIds.length === 0) {
		throw new NodeOperationError(node, '"Customer IDs" is empty', {
			description:
				'Give the IDs of the customers whose deals or messengers to watch: a list, or text with one ID per line or separated by commas.',
		});
	}
	const bad = customerIds.find((id: string): boolean => !isUuid(id));
	if (bad)
		throw new NodeOperationError(
			node,
			`"Customer IDs" holds ${JSON.stringify(bad.slice(0, 60))}, which is not a customer ID (a UUID)`,
			{
				description:
					'Give customer IDs only, one per line or separated by commas: the id field of a customer as Customer → Get or Create or Update returns it, not a phone number or a name.',
			},
		);
	return customerIds;
}

/**
 * Watched customers read one request each, in turn from `start`, as many as the family's budget
 * allows (at least one); the key's limit as the last answer named it.
 */
export async function readInTurn<T>(
	step: PollStep,
	customerIds: string[],
	start: number,
	read: (customerId: string) => Promise<T & { rateLimit: number | undefined }>,
): Promise<{ reads: Array<T & { customerId: string }>; rateLimit?: number; nextStart: number }> {
	const plan = planReads(customerIds, start, Math.max(1, step.budget(step.state)));
	const reads: Array<T & { customerId: string }> = [];
	let rateLimit = step.state.rateLimit;
	for (const customerId of plan.read) {
		const answer = await read(customerId);
		step.spent(1);
		rateLimit = answer.rateLimit ?? rateLimit;
		reads.push({ ...answer, customerId });
	}
	return { reads, rateLimit, nextStart: plan.nextStart };
}

/** The key's limit from an answer's rate-limit reading, when the API sent one. */
export const keyLimitOf = (reading: RateLimitReading): number | undefined =>
	reading.limit && reading.limit > 0 ? reading.limit : undefined;

const SAMPLE_NOTE =
	'A sample for building the workflow, not an event: nothing happened. Steps after this one run for real on its data. Real events come once the workflow is active.';

/** Fetch Test Event's one item: the event, marked as a sample in its own fields. */
export function sample(event: string, data: IDataObject): INodeExecutionData[] {
	return [{ json: { event, sample: true, sample_note: SAMPLE_NOTE, ...data } }];
}
