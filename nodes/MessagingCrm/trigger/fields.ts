/**
 * What more than one family of events uses: the agent filter (pools and templates), the key's
 * limit as an answer gives it, and the shape of a sample (Fetch Test Event).
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
		);
	return agentId;
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
