import type { INodeProperties } from 'n8n-workflow';

import * as agent from './agent/Agent.resource';
import * as conversation from './conversation/Conversation.resource';
import * as customer from './customer/Customer.resource';
import * as deal from './deal/Deal.resource';
import * as message from './message/Message.resource';
import * as pipeline from './pipeline/Pipeline.resource';
import * as promoCode from './promoCode/PromoCode.resource';
import * as promoPool from './promoPool/PromoPool.resource';
import * as template from './template/Template.resource';
import * as variable from './variable/Variable.resource';

/** The Resource selector and every resource's operations and fields. */
export const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Agent', value: 'agent' },
			{ name: 'Conversation', value: 'conversation' },
			{ name: 'Customer', value: 'customer' },
			{ name: 'Deal', value: 'deal' },
			{ name: 'Message', value: 'message' },
			{ name: 'Pipeline', value: 'pipeline' },
			{ name: 'Promo Code', value: 'promoCode' },
			{ name: 'Promo Pool', value: 'promoPool' },
			{ name: 'Template', value: 'template', description: 'Business-chat templates' },
			{ name: 'Variable', value: 'variable', description: 'Variables of a customer or a deal' },
		],
		default: 'customer',
	},
	...agent.description,
	...conversation.description,
	...customer.description,
	...deal.description,
	...message.description,
	...pipeline.description,
	...promoCode.description,
	...promoPool.description,
	...template.description,
	...variable.description,
];
