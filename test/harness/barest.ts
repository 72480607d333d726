import type { INodeParameters, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { Operation, ResourceDefinition } from '../../nodes/MessagingCrm/actions/node.type';
import { resources } from '../../nodes/MessagingCrm/actions/resources';

import { createDeal } from '../sandbox/crm';
import type { Sandbox } from '../sandbox/server';
import { DEMO } from '../sandbox/store';
import { byId } from './fixtures';
import { loadPackage, NODE_TYPE } from './engine';

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

/** What a required field gets in a derived configuration, by its name. */
function conventionalValues(w: BarestWorld): INodeParameters {
	return {
		customerId: byId(w.customerId),
		donorId: byId(w.donorId),
		poolId: byId(DEMO.welcomePool),
		agentId: DEMO.supportBot,
		pipelineId: DEMO.salesPipeline,
		messengerType: 'telegram',
		text: 'Hello',
		message: 'Can you make it on Tuesday?',
		code: 'WELCOME-001',
		codes: 'BAREST-1',
	};
}

/** Whether a field shows, given the values (or defaults) of the fields its display options name. */
function shows(field: INodeProperties, values: INodeParameters): boolean {
	const matches = (conditions: Record<string, unknown[] | undefined> | undefined, want: boolean) =>
		Object.entries(conditions ?? {}).every(
			([name, allowed]) => (allowed ?? []).includes(values[name] as never) === want,
		);
	return matches(field.displayOptions?.show, true) && matches(field.displayOptions?.hide, false);
}

/**
 * An operation's barest configuration from its own fields: every required field that shows by
 * default gets the value its name conventionally takes. A new operation whose required fields all
 * have such names needs no line below; one that does not is named by the error.
 */
export function derivedParameters(
	key: string,
	operation: Operation,
	w: BarestWorld,
): INodeParameters {
	const conventional = conventionalValues(w);
	const values: INodeParameters = {};
	for (const field of operation.description) values[field.name] = field.default as never;
	const parameters: INodeParameters = {};
	for (const field of operation.description) {
		if (!field.required || !shows(field, values)) continue;
		if (!(field.name in conventional))
			throw new Error(
				`${key}: no barest value for the required field "${field.name}"; add the operation to barestParameters (test/harness/barest.ts)`,
			);
		parameters[field.name] = conventional[field.name];
	}
	return parameters;
}

/**
 * Every operation of the node in its barest configuration: only the fields it cannot do without.
 * Keyed `resource.operation`; tests check the keys against the node's own list of operations.
 * Derived from the operation's required fields unless written below.
 */
export function barestParameters(w: BarestWorld): Record<string, INodeParameters> {
	const byHand = written(w);
	const derived: Record<string, INodeParameters> = {};
	for (const [resource, { operations }] of Object.entries(
		resources as Record<string, ResourceDefinition>,
	))
		for (const [name, operation] of Object.entries(operations)) {
			const key = `${resource}.${name}`;
			if (!(key in byHand)) derived[key] = derivedParameters(key, operation, w);
		}
	return { ...derived, ...byHand };
}

/**
 * The configurations that cannot be derived: a required field with no conventional value, a field
 * that must be set although optional (Deal Create on a customer with no deal, an update with one
 * field), or another value than the convention's.
 */
function written(w: BarestWorld): Record<string, INodeParameters> {
	const pool = byId(DEMO.welcomePool);
	return {
		'conversation.open': { customerId: byId(w.customerId), agentId: DEMO.supportBot },
		'customer.upsert': { phone: '+15550100001' },
		'customer.find': { phone: '+15550100001' },
		'deal.create': { customerId: byId(w.dealFreeId) },
		'deal.moveStage': { customerId: byId(w.customerId), stageCode: 'proposal' },
		'promoCode.revoke': { poolId: pool, codes: 'WELCOME-050' },
		'promoPool.update': { poolId: pool, updateFields: { isEnabled: true } },
		'template.create': { name: 'barest_notice', bodyText: 'Hello' },
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
