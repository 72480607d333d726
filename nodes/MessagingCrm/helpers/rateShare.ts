import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/**
 * The node's Share of the Rate Limit (%) as set: under Options, or where a workflow saved before it
 * moved there keeps it (the hidden top-level `rateShare`); 100 when neither is set. Unchecked.
 */
export function rateShareOf(ctx: IExecuteFunctions): unknown {
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	if (options && typeof options === 'object' && options.rateShare !== undefined)
		return options.rateShare;
	return ctx.getNodeParameter('rateShare', 0, 100);
}
