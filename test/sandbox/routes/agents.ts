import type { Route } from '../server';

export const agentRoutes: Route[] = [
	{
		method: 'GET',
		path: '/agents',
		scope: 'agents:read',
		handler: ({ store }) => ({
			status: 200,
			body: [...store.agents.values()].map((a) => ({ ...a, messengers: [...a.messengers] })),
		}),
	},
];
