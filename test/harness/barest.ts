import type { INodeParameters, INodePropertyOptions } from 'n8n-workflow';

import { createDeal } from '../sandbox/crm';
import type { Sandbox } from '../sandbox/server';
import { DEMO } from '../sandbox/store';
import { byId } from './fixtures';
import { loadPackage, NODE_TYPE } from './n8n';

/** The records the barest configurations point at, made in the sandbox. */
export interface BarestWorld {
	customerId: string;
	/** A second customer, as a merge donor. */
	donorId: string;
	/** A customer with no deal yet, for Deal Create. */
	dealFreeId: string;
}

export function barestWorld(sandbox: Sandbox): BarestWorld {
	const customerId = sandbox.demoCustomer('Barest customer');
	// A deal in the default pipeline: Close, Move to Stage and deal variables need one.
	const pipeline = sandbox.store.defaultPipeline()!;
	createDeal(
		sandbox.store,
		customerId,
		pipeline,
		pipeline.stages[0],
		null,
		new Date().toISOString(),
	);
	return {
		customerId,
		donorId: sandbox.demoCustomer('Barest donor'),
		dealFreeId: sandbox.demoCustomer('Barest newcomer'),
	};
}

/**
 * Every operation of the node in its barest configuration: only the fields it cannot do without.
 * Keyed `resource.operation`; tests check the keys against the node's own list of operations.
 */
export function barestParameters(w: BarestWorld): Record<string, INodeParameters> {
	const pool = byId(DEMO.welcomePool);
	return {
		'agent.getMany': {},
		'conversation.open': { customerId: byId(w.customerId), agentId: DEMO.supportBot },
		'customer.upsert': { phone: '+15550100001' },
		'customer.find': { phone: '+15550100001' },
		'customer.get': { customerId: byId(w.customerId) },
		'customer.getMessengers': { customerId: byId(w.customerId) },
		'customer.merge': { customerId: byId(w.customerId), donorId: byId(w.donorId) },
		'deal.close': { customerId: byId(w.customerId), pipelineId: DEMO.salesPipeline },
		'deal.create': { customerId: byId(w.dealFreeId) },
		'deal.getMany': { customerId: byId(w.customerId) },
		'deal.moveStage': { customerId: byId(w.customerId), stageCode: 'proposal' },
		'message.send': { customerId: byId(w.customerId), messengerType: 'telegram', text: 'Hello' },
		'pipeline.getMany': {},
		'promoCode.findOwner': { code: 'WELCOME-001' },
		'promoCode.getMany': { poolId: pool },
		'promoCode.revoke': { poolId: pool, codes: 'WELCOME-050' },
		'promoCode.upload': { poolId: pool, codes: 'BAREST-1' },
		'promoPool.get': { poolId: pool },
		'promoPool.getMany': {},
		'promoPool.update': { poolId: pool, updateFields: { isEnabled: true } },
		'template.create': { name: 'barest_notice', bodyText: 'Hello' },
		'template.getMany': {},
		'variable.get': { customerId: byId(w.customerId) },
		'variable.set': {
			customerId: byId(w.customerId),
			variablesUi: { variable: [{ name: 'plan', value: 'pro' }] },
		},
	};
}

/** `resource.operation` for every operation the built node offers, read from its description. */
export async function operationKeys(): Promise<string[]> {
	const type = (await loadPackage()).nodeTypes.getByNameAndVersion(NODE_TYPE, 1);
	const keys: string[] = [];
	for (const selector of type.description.properties.filter((p) => p.name === 'operation')) {
		const resource = String(selector.displayOptions?.show?.resource?.[0]);
		for (const option of (selector.options ?? []) as INodePropertyOptions[])
			keys.push(`${resource}.${String(option.value)}`);
	}
	return keys.sort();
}
