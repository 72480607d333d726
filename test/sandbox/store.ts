import { stableId } from './ids';

/** Everything the sandbox knows about one company. Later issues add their collections here. */

export interface AgentRow {
	id: string;
	name: string;
	is_active: boolean;
	messengers: string[];
}

export interface StageRow {
	id: string;
	name: string;
	stage_code: string | null;
	position: number;
}

export interface PipelineRow {
	id: string;
	name: string;
	agent_id: string;
	is_default: boolean;
	stages: StageRow[];
}

export class Store {
	agents = new Map<string, AgentRow>();

	pipelines = new Map<string, PipelineRow>();

	addAgent(agent: AgentRow): AgentRow {
		this.agents.set(agent.id, agent);
		return agent;
	}

	addPipeline(pipeline: PipelineRow): PipelineRow {
		this.pipelines.set(pipeline.id, pipeline);
		return pipeline;
	}

	stageById(stageId: string): { pipeline: PipelineRow; stage: StageRow } | undefined {
		for (const pipeline of this.pipelines.values()) {
			const stage = pipeline.stages.find((s) => s.id === stageId);
			if (stage) return { pipeline, stage };
		}
		return undefined;
	}
}

function pipeline(name: string, agentId: string, isDefault: boolean, stages: Array<[string, string]>): PipelineRow {
	const id = stableId(`pipeline:${name}`);
	return {
		id,
		name,
		agent_id: agentId,
		is_default: isDefault,
		stages: stages.map(([stageName, code], position) => ({
			id: stableId(`stage:${name}:${code}`),
			name: stageName,
			stage_code: code,
			position,
		})),
	};
}

/** Demo ids, stable across restarts, for tests and example workflows. */
export const DEMO = {
	supportBot: stableId('agent:support-bot'),
	salesChat: stableId('agent:sales-chat'),
	salesPipeline: stableId('pipeline:Sales'),
	onboardingPipeline: stableId('pipeline:Onboarding'),
	chatSalesPipeline: stableId('pipeline:Chat Sales'),
};

/** The demo company: two agents with different messengers, pipelines with coded stages. */
export function seedDemo(store: Store): void {
	store.addAgent({
		id: DEMO.supportBot,
		name: 'Support Bot',
		is_active: true,
		messengers: ['telegram', 'web_widget', 'vk', 'max'],
	});
	store.addAgent({
		id: DEMO.salesChat,
		name: 'Sales Chat',
		is_active: true,
		messengers: ['whatsapp', 'instagram', 'facebook'],
	});
	store.addPipeline(
		pipeline('Sales', DEMO.supportBot, true, [
			['New lead', 'new'],
			['Qualified', 'qualified'],
			['Proposal sent', 'proposal'],
			['Negotiation', 'negotiation'],
		]),
	);
	store.addPipeline(
		pipeline('Onboarding', DEMO.supportBot, false, [
			['Signed up', 'signup'],
			['Activated', 'activated'],
		]),
	);
	store.addPipeline(
		pipeline('Chat Sales', DEMO.salesChat, true, [
			['Lead', 'lead'],
			['Contacted', 'contacted'],
			['Paid', 'paid'],
		]),
	);
}
