/**
 * The Messaging CRM Trigger's polls as n8n runs them: as an active workflow ('trigger') or as
 * Fetch Test Event ('manual'), its static data kept across polls and restarts.
 */
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import type { CrmCredentials } from './engine';
import { additionalData, crmCredentials, crmNode, loadPackage } from './engine';

export const TRIGGER_TYPE = 'n8n-nodes-messaging-crm.messagingCrmTrigger';

export interface TriggerHandle {
	/** One poll as n8n's active workflow runs it ('trigger') or as "Fetch test event" does ('manual'). */
	poll(mode?: 'trigger' | 'manual'): Promise<Array<Record<string, unknown>> | null>;
	/** The node's static data, as n8n stores it. */
	staticData(): IDataObject;
	/** A restart: the static data serialized and restored into a fresh workflow, as n8n does. */
	restart(): void;
	setParameters(parameters: INodeParameters): void;
}

/** A Messaging CRM Trigger in a workflow whose static data lives across polls. */
export async function createTrigger(
	parameters: INodeParameters,
	credentials: CrmCredentials,
	/** The node's version: 1 (Watch and its own Events list) unless given. */
	version = 1,
): Promise<TriggerHandle> {
	const { nodeTypes, credentialTypes } = await loadPackage();
	const { PollContext } = await import('n8n-core');
	const helper = crmCredentials(credentialTypes, credentials);
	let node: INode = {
		...crmNode(parameters),
		name: 'Trigger',
		type: TRIGGER_TYPE,
		typeVersion: version,
	};
	let staticData: IDataObject = {};
	let workflow = new Workflow({
		id: 'trigger-workflow',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		staticData,
	});
	const build = () => {
		workflow = new Workflow({
			id: 'trigger-workflow',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes,
			staticData: JSON.parse(JSON.stringify(staticData)) as IDataObject,
		});
	};
	return {
		async poll(mode = 'trigger') {
			const context = new PollContext(
				workflow,
				workflow.getNode('Trigger')!,
				additionalData(helper),
				mode,
				'activate',
			);
			const type = nodeTypes.getByNameAndVersion(TRIGGER_TYPE, version);
			const out = await type.poll!.call(context);
			staticData = workflow.staticData as IDataObject;
			return out ? out[0].map((i) => i.json as Record<string, unknown>) : null;
		},
		staticData: () => JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject,
		restart() {
			staticData = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
			build();
		},
		setParameters(next: INodeParameters) {
			staticData = workflow.staticData as IDataObject;
			node = { ...node, parameters: next };
			build();
		},
	};
}
