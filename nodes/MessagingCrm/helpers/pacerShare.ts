import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * The action node's Share of the Rate Limit (%) as set (stored as `rateShare`): the most of the
 * key's requests per window its pacer lets this node take. Under Options, or where a workflow
 * saved before it moved there keeps it (the hidden top-level `rateShare`); 100 when neither is
 * set. Unchecked. (The trigger's option of the same label, `rateBudgetPercent`, is a count of
 * requests per poll: trigger/settings.ts, `pollSharePercent`.)
 */
export function pacerSharePercentOf(ctx: IExecuteFunctions): unknown {
	// The one value, not the whole collection: another option's expression (an Idempotency Key
	// mapped from the item) must not be evaluated, or fail, here.
	const underOptions = ctx.getNodeParameter('options.rateShare', 0, null) as unknown;
	return underOptions ?? ctx.getNodeParameter('rateShare', 0, 100);
}
