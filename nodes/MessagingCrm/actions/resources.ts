import type { INodeProperties, INodePropertyOptions, NodeHint } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import * as agent from './agent/Agent.resource';
import * as conversation from './conversation/Conversation.resource';
import * as customer from './customer/Customer.resource';
import * as deal from './deal/Deal.resource';
import * as message from './message/Message.resource';
import type { Operation, ResourceDefinition } from './node.type';
import * as pipeline from './pipeline/Pipeline.resource';
import * as promoCode from './promoCode/PromoCode.resource';
import * as promoPool from './promoPool/PromoPool.resource';
import * as template from './template/Template.resource';
import * as variable from './variable/Variable.resource';

/**
 * The one registry of resources and operations: the node's Resource and Operation dropdowns and
 * fields are built from it, the router dispatches through it, and the tests count from it.
 */
export const resources = {
	agent: { name: 'Agent', defaultOperation: 'getMany', operations: agent },
	conversation: { name: 'Conversation', defaultOperation: 'open', operations: conversation },
	customer: { name: 'Customer', defaultOperation: 'upsert', operations: customer },
	deal: { name: 'Deal', defaultOperation: 'create', operations: deal },
	message: { name: 'Message', defaultOperation: 'send', operations: message },
	pipeline: { name: 'Pipeline', defaultOperation: 'getMany', operations: pipeline },
	promoCode: { name: 'Promo Code', defaultOperation: 'upload', operations: promoCode },
	promoPool: { name: 'Promo Pool', defaultOperation: 'getMany', operations: promoPool },
	template: {
		name: 'Template',
		description: 'Business-chat templates',
		defaultOperation: 'getMany',
		operations: template,
	},
	variable: {
		name: 'Variable',
		description: 'Variables of a customer or a deal',
		defaultOperation: 'set',
		operations: variable,
	},
} satisfies Record<string, ResourceDefinition>;

export type Resource = keyof typeof resources;
export type OperationName<R extends Resource> = keyof (typeof resources)[R]['operations'] & string;

const byName = (a: INodePropertyOptions, b: INodePropertyOptions) => a.name.localeCompare(b.name);

/** The operation of a resource, or undefined for a name the registry does not hold. */
export function operationOf(resource: string, operation: string): Operation | undefined {
	const definition = (resources as Record<string, ResourceDefinition | undefined>)[resource];
	return definition && Object.prototype.hasOwnProperty.call(definition.operations, operation)
		? definition.operations[operation]
		: undefined;
}

/** Every `resource.operation` pair, in registry order. */
export function operationKeys(): string[] {
	return Object.entries(resources as Record<string, ResourceDefinition>).flatMap(
		([resource, { operations }]) => Object.keys(operations).map((op) => `${resource}.${op}`),
	);
}

function operationSelector(resource: string, definition: ResourceDefinition): INodeProperties {
	const { defaultOperation } = definition;
	const options = Object.entries(definition.operations)
		.map(([value, { option }]) => ({ ...option, value }))
		.sort(byName);
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		default: defaultOperation,
	};
}

/** The operations' panel hints, each shown only for its own resource and operation. */
export const hints: NodeHint[] = Object.entries(
	resources as Record<string, ResourceDefinition>,
).flatMap(([resource, { operations }]) =>
	Object.entries(operations).flatMap(([operation, { panelHint }]) =>
		panelHint
			? [
					{
						type: 'info' as const,
						location: 'outputPane' as const,
						whenToDisplay: 'beforeExecution' as const,
						displayCondition: `={{ $parameter["resource"] === "${resource}" && $parameter["operation"] === "${operation}" && ${panelHint.when} }}`,
						message: panelHint.message,
					},
				]
			: [],
	),
);

/**
 * The node's subtitle on the canvas: the operation's action in words ("Send a message"), looked
 * up by resource and operation in a map built from the registry.
 */
export const subtitle = `={{ ${JSON.stringify(
	Object.fromEntries(
		Object.entries(resources as Record<string, ResourceDefinition>).flatMap(([resource, r]) =>
			Object.entries(r.operations).map(([op, { option }]) => [`${resource}.${op}`, option.action]),
		),
	),
)}[$parameter["resource"] + "." + $parameter["operation"]] }}`;

/** For every operation, under Options: how much of the key's rate limit this node may take. */
const rateShareOption: INodeProperties = {
	displayName: 'Share of the Rate Limit (%)',
	name: 'rateShare',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 100 },
	default: 100,
	description:
		"The most of the API key's requests per window this node takes. At 100 it takes what the key's other clients leave: alone on the key it goes at the limit, shared it spreads its requests over the window. Lower this to keep headroom for other clients and to spread the requests even when alone.",
};

/**
 * Where workflows saved before it moved under Options keep their share: hidden, so n8n keeps the
 * value instead of dropping an unknown parameter; a share under Options wins.
 */
const legacyRateShare: INodeProperties = {
	displayName: 'Share of the Rate Limit (%)',
	name: 'rateShare',
	type: 'hidden',
	default: 100,
};

/** An operation's fields with the rate share added to its Options (made when it has none). */
function withRateShare(description: INodeProperties[]): INodeProperties[] {
	const index = description.findIndex((p) => p.name === 'options' && p.type === 'collection');
	if (index === -1) {
		return [
			...description,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [rateShareOption],
			},
		];
	}
	const collection = description[index];
	const options = [...((collection.options as INodeProperties[]) ?? []), rateShareOption].sort(
		(a, b) => a.displayName.localeCompare(b.displayName),
	);
	return description.map((p, i) => (i === index ? { ...collection, options } : p));
}

/** The Resource selector, then each resource's Operation selector and every operation's fields. */
export const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: Object.entries(resources as Record<string, ResourceDefinition>)
			.map(([value, { name, description }]) => ({
				name,
				value,
				...(description ? { description } : {}),
			}))
			.sort(byName),
		default: 'customer',
	},
	legacyRateShare,
	...Object.entries(resources as Record<string, ResourceDefinition>).flatMap(
		([resource, definition]) => [
			operationSelector(resource, definition),
			...Object.entries(definition.operations).flatMap(([operation, { description }]) =>
				updateDisplayOptions(
					{ show: { resource: [resource], operation: [operation] } },
					withRateShare(description),
				),
			),
		],
	),
];
