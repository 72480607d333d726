/**
 * What leaving an optional dropdown empty does, in the dropdown's own first choice ("(All
 * Agents)"), so that nobody has to hover over the field's "?" to learn it. Each has its own
 * loadOptions method (methods/loadOptions.ts) that the field's factory (descriptions.ts) names.
 */
export const EMPTY_CHOICES = {
	allAgents: { name: 'All Agents', description: 'No filter: every agent of the company' },
	messengerAgent: {
		name: 'The Agent With This Messenger',
		description: "Sent from whichever agent is connected to the customer's messenger",
	},
	inheritedAgent: {
		name: "The Customer's Current Agent",
		description:
			"The agent of the customer's dialog or deal; fails if the customer has neither and the company has several agents",
	},
	defaultAgent: { name: 'Company Default', description: "The company's default agent" },
	allPipelines: { name: 'All Pipelines', description: 'No filter: every pipeline' },
	defaultPipeline: {
		name: "The Agent's Default Pipeline",
		description: 'The default pipeline of the agent (or of the company)',
	},
	noPipeline: {
		name: 'None',
		description: 'Used only to list its stages here; the stage can also be given by code or ID',
	},
	firstStage: { name: 'The First Stage', description: "The pipeline's first stage" },
} as const;
