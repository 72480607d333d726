/* eslint-disable @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * Workflow 1 run by `n8n execute` in real n8n: the newest 2.x tested here and the newest 1.x (for
 * self-hosters who have not moved to 2.x).
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import path from 'path';

import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { ensureN8n, n8nCli, N8N_V1_VERSION, N8N_VERSION, prepareUserFolder } from './n8n';
import type { WorkflowJson } from './setup';
import {
	crmCredential,
	exampleWorkflows,
	importCredentials,
	importWorkflows,
	privateFolder,
} from './setup';
import { N8N_PORTS } from './ports';

/**
 * Example 1 as `n8n execute` can run it: the CLI starts a workflow only from a Manual Trigger, so
 * its Form Trigger (whose sample submission the editor runs, pinned) becomes a Manual Trigger
 * and a Set node giving that same submission.
 */
function forTheCli(example: WorkflowJson): WorkflowJson {
	const workflow = JSON.parse(JSON.stringify(example)) as WorkflowJson;
	const form = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.formTrigger')!;
	const sample = workflow.pinData![form.name][0].json;
	const connections = workflow.connections as Record<string, unknown>;
	const next = connections[form.name];
	delete connections[form.name];
	delete workflow.pinData;
	workflow.nodes = workflow.nodes.filter((n) => n !== form);
	workflow.nodes.push(
		{
			name: 'Run',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			parameters: {},
			position: [-220, 0],
		},
		{
			name: 'Sample submission',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [0, 0],
			parameters: {
				assignments: {
					assignments: Object.entries(sample).map(([name, value], i) => ({
						id: `s${i}`,
						name,
						value: String(value),
						type: 'string',
					})),
				},
				options: {},
			},
		},
	);
	connections.Run = { main: [[{ node: 'Sample submission', type: 'main', index: 0 }]] };
	connections['Sample submission'] = next;
	return workflow;
}

describe.each([N8N_VERSION, N8N_V1_VERSION])(
	'workflow 1 in n8n %s, run with n8n execute',
	(version) => {
		let sandbox: Sandbox;
		let apiKey: string;
		const options = {
			userFolder: privateFolder(`n8n-e2e-cli-${version}-`),
			version,
			port: N8N_PORTS.cli,
		};

		beforeAll(async () => {
			await ensureN8n(version);
			sandbox = await startSandbox();
			prepareUserFolder(options.userFolder, true, options.version);
			apiKey = sandbox.mintKey();
			await importCredentials(options, [
				crmCredential({ baseUrl: sandbox.url, apiKey }),
				crmCredential(
					{ baseUrl: sandbox.url, apiKey: sandbox.mintKey(['customers:read', 'customers:write']) },
					'mcrmNoSendCred01',
					'Messaging CRM without messages:send',
				),
			]);
			const welcome = forTheCli(exampleWorkflows()[0]);
			const withoutSend: WorkflowJson = JSON.parse(JSON.stringify(welcome));
			withoutSend.id = 'mcrmNoSendFlow001';
			withoutSend.name = 'Welcome flow with a key that cannot send';
			for (const node of withoutSend.nodes)
				if (node.credentials)
					node.credentials = {
						messagingCrmApi: {
							id: 'mcrmNoSendCred01',
							name: 'Messaging CRM without messages:send',
						},
					};
			await importWorkflows(options, [welcome, withoutSend]);
		});
		afterAll(async () => sandbox?.stop());

		it('creates the customer with a deal, opens the dialog and sends the welcome message', async () => {
			const result = await n8nCli(['execute', '--id=mcrmWelcomeFlow01'], options);
			expect(result.stdout).toContain('Execution was successful');
			const customers = [...sandbox.store.customers.values()];
			expect(customers).toHaveLength(1);
			expect(customers[0]).toMatchObject({
				full_name: 'Jane Doe',
				phone: '+15550107788',
				email: 'jane@example.com',
			});
			expect(customers[0].variables.get('interest')?.value).toBe('sneakers');
			const deal = sandbox.store.currentDeal(customers[0].id)!;
			expect(sandbox.store.pipelines.get(deal.pipeline_id)?.name).toBe('Sales');
			const dialogs = [...sandbox.store.conversations.values()];
			expect(dialogs).toHaveLength(1);
			const messages = [...sandbox.store.messages.values()];
			expect(messages.map((m) => [m.messenger_type, m.status, m.rendered])).toEqual([
				[
					'telegram',
					'sent',
					'Hi <b>Jane Doe</b>, thanks for writing to us! We will reply here shortly.',
				],
			]);
			expect(dialogs[0].timeline.map((e) => e.kind)).toEqual(['system', 'outgoing']);
		});

		it('fails with the missing scope named when the key cannot send', async () => {
			const result = await n8nCli(['execute', '--id=mcrmNoSendFlow001'], options);
			const output = `${result.stdout}\n${result.stderr}`;
			expect(output).not.toContain('Execution was successful');
			expect(output).toContain('insufficient_scope');
			expect(output).toContain('messages:send');
		});

		it("keeps the key out of n8n's output, its database and its logs when the server echoes it back", async () => {
			sandbox.injectFault({
				path: '*',
				count: 1_000_000,
				kind: 'echo',
				status: 500,
				format: 'envelope',
			});
			sandbox.clearRequests();
			const result = await n8nCli(['execute', '--id=mcrmWelcomeFlow01'], options);
			sandbox.clearFaults();
			// The server did echo the key, and n8n says what went wrong.
			expect(sandbox.requests().filter((r) => r.fault === 'echo').length).toBeGreaterThan(0);
			const output = `${result.stdout}\n${result.stderr}`;
			expect(output).toContain('internal_error: Upstream failed (key [redacted])');
			// Everything n8n wrote: its output, and every file of its user folder (database, event log).
			const folder = path.join(options.userFolder, '.n8n');
			const filesOf = (p: string): string[] =>
				statSync(p).isDirectory() ? readdirSync(p).flatMap((f) => filesOf(path.join(p, f))) : [p];
			const forms = [apiKey, encodeURIComponent(apiKey), JSON.stringify(apiKey).slice(1, -1)];
			const holding = (text: string) => forms.some((form) => text.includes(form));
			const leaking = () => filesOf(folder).filter((f) => holding(readFileSync(f, 'latin1')));
			expect(holding(output)).toBe(false);
			expect(leaking()).toEqual([]);
			// Not vacuous: the failed execution, with the redacted error, is in what was scanned.
			expect(
				filesOf(folder).filter((f) =>
					readFileSync(f, 'latin1').includes('Upstream failed (key [redacted])'),
				).length,
			).toBeGreaterThan(0);
			// Planted once: a file of n8n's folder holding the key, URL-encoded, is found by the same scan.
			const planted = path.join(folder, 'planted.log');
			writeFileSync(planted, `GET /x?key=${encodeURIComponent(apiKey)}`, { mode: 0o600 });
			try {
				expect(leaking()).toEqual([planted]);
			} finally {
				rmSync(planted);
			}
			expect(leaking()).toEqual([]);
		});
	},
);
