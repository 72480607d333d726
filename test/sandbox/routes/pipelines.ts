import { validation } from '../errors';
import { isUuid } from '../ids';
import type { Route } from '../server';

export const pipelineRoutes: Route[] = [
	{
		method: 'GET',
		path: '/pipelines',
		scope: 'pipelines:read',
		handler: ({ store, query }) => {
			const agentId = query.get('agent_id');
			if (agentId !== null && !isUuid(agentId)) {
				throw validation('agent_id must be a UUID', { field: 'agent_id' });
			}
			const pipelines = [...store.pipelines.values()].filter(
				(p) => !agentId || p.agent_id === agentId,
			);
			return {
				status: 200,
				body: pipelines.map((p) => ({ ...p, stages: p.stages.map((s) => ({ ...s })) })),
			};
		},
	},
];
