/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * What n8n's AI Workflow Builder (n8n 2.x) reads of the package: each node's `builderHint` (a
 * search hint in a user's words, the nodes it works with and why) and the property hints on the
 * parameters a builder gets wrong, as n8n loads the built package. And n8n's lint rule
 * `no-builder-hint-leakage`, run with this package's ESLint configuration, catching n8n's wire
 * format planted in those texts. The hints as n8n serves them to the editor: test/e2e/send-and-wait.e2e.ts.
 */
import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

import type {
	IBuilderHint,
	INodeProperties,
	INodePropertyCollection,
	INodeTypeDescription,
} from 'n8n-workflow';

import { loadPackage, NODE_TYPE, PACKAGE_ROOT } from '../harness/engine';
import { TRIGGER_TYPE } from '../harness/triggerRuns';

async function described(type: string, version?: number): Promise<INodeTypeDescription> {
	const { nodeTypes } = await loadPackage();
	return nodeTypes.getByNameAndVersion(type, version).description;
}

/** Every property of a description, nested ones (collections, fixed collections) included. */
function allProperties(properties: INodeProperties[]): INodeProperties[] {
	return properties.flatMap((p) => [
		p,
		...allProperties(
			(p.options ?? []).flatMap((o) =>
				'values' in o
					? (o as INodePropertyCollection).values
					: 'displayName' in o && 'type' in o
						? [o as INodeProperties]
						: [],
			),
		),
	]);
}

const RELATED = {
	form: 'n8n-nodes-base.formTrigger',
	schedule: 'n8n-nodes-base.scheduleTrigger',
	if: 'n8n-nodes-base.if',
	agent: '@n8n/n8n-nodes-langchain.agent',
	action: NODE_TYPE,
	trigger: TRIGGER_TYPE,
};

function relatedOf(hint: IBuilderHint | undefined): Record<string, string> {
	return Object.fromEntries((hint?.relatedNodes ?? []).map((r) => [r.nodeType, r.relationHint]));
}

describe('the hints of n8n’s AI Workflow Builder, as n8n loads the package', () => {
	it('the action node: a search hint in a user’s words, and the Form Trigger, Schedule Trigger, If, AI Agent and the trigger with why', async () => {
		const { builderHint } = await described(NODE_TYPE, 1);
		const search = builderHint?.searchHint ?? '';
		for (const words of [
			/WhatsApp/,
			/Telegram/,
			/customer \(contact, lead\)/,
			/wait for the answer/,
			/promo codes/,
			/deals/,
			/Messaging CRM Trigger/,
		])
			expect(search).toMatch(words);
		const related = relatedOf(builderHint);
		expect(Object.keys(related).sort()).toEqual(
			[RELATED.form, RELATED.trigger, RELATED.schedule, RELATED.if, RELATED.agent].sort(),
		);
		expect(related[RELATED.form]).toMatch(/Create or Update/);
		expect(related[RELATED.if]).toMatch(/data\.approved/);
		expect(related[RELATED.agent]).toMatch(/as a tool/);
	});

	it.each([1, 2])(
		'the trigger (version %d): what starts it in a user’s words, that it polls on its own, and the action node, If, Schedule Trigger, AI Agent with why',
		async (version) => {
			const { builderHint } = await described(TRIGGER_TYPE, version);
			const search = builderHint?.searchHint ?? '';
			for (const words of [
				/customer wrote/,
				/24-hour reply window/,
				/moved to another pipeline stage/,
				/pool ran low/,
				/template was approved/,
				/no Schedule Trigger/,
				/first check after activation only records/,
			])
				expect(search).toMatch(words);
			const related = relatedOf(builderHint);
			expect(Object.keys(related).sort()).toEqual(
				[RELATED.action, RELATED.if, RELATED.schedule, RELATED.agent].sort(),
			);
			expect(related[RELATED.if]).toMatch(/event field/);
		},
	);

	describe('property hints on the parameters a builder gets wrong, wherever the parameter appears', () => {
		let properties: INodeProperties[] = [];
		beforeAll(async () => {
			properties = allProperties((await described(NODE_TYPE, 1)).properties);
		});
		const hintsOf = (match: (p: INodeProperties) => boolean) => {
			const found = properties.filter(match);
			expect(found.length).toBeGreaterThan(0);
			return found.map((p) => p.builderHint?.propertyHint ?? '');
		};

		it('every customer locator: the locator’s shape, ID mode only for a UUID from an earlier step, phone, email or type:id otherwise', () => {
			const hints = hintsOf(
				(p) => p.type === 'resourceLocator' && !!p.modes?.some((m) => m.name === 'messenger'),
			);
			// Send, Send and Wait, Get, Messengers, Open, Variables, Deals, and both cards of Merge.
			expect(hints.length).toBeGreaterThanOrEqual(8);
			for (const hint of hints) {
				expect(hint).toMatch(/\{ __rl: true, mode, value \}/);
				expect(hint).toMatch(/mode 'id' only with a customer UUID/);
				expect(hint).toMatch(/'messenger' with the value 'type:id'/);
				expect(hint).toMatch(/never invent a UUID/);
			}
		});

		it('the messenger of Send and Send and Wait: a type (or bestAvailable), not an ID, and the 24-hour window', () => {
			const hints = hintsOf(
				(p) => p.name === 'messengerType' && p.displayName === 'Messenger Name or ID',
			);
			expect(hints).toHaveLength(2);
			for (const hint of hints) {
				expect(hint).toMatch(/not the customer's ID/);
				expect(hint).toMatch(/bestAvailable/);
				expect(hint).toMatch(/within 24 hours/);
			}
		});

		it('every template’s variables (the template, the window’s fallback, the follow-up): positional rows for {{1}}, {{2}}', () => {
			const hints = hintsOf((p) => p.displayName === 'Template Variables');
			expect(hints).toHaveLength(3);
			for (const hint of hints) {
				expect(hint).toMatch(/\{ variable: \[\{ value: 'Jane' \}, \{ value: 'A-17' \}\] \}/);
				expect(hint).toMatch(/Not named fields/);
			}
		});

		it('Send and Wait’s response type: what each type gives the next node, and Approve and Decline before an If', () => {
			const [hint] = hintsOf((p) => p.name === 'responseType');
			expect(hint).toMatch(/data\.approved/);
			expect(hint).toMatch(/'double'/);
			expect(hint).toMatch(/data\.text/);
			expect(hint).toMatch(/formFields/);
		});
	});
});

const LEAK_RULE = '@n8n/community-nodes/no-builder-hint-leakage';

/**
 * This package's ESLint (its eslint.config.mjs, as `npm run lint` runs it) over texts given as
 * files of the package: the reports of the leak rule, per text. In a child process, as from a
 * terminal (Jest's NODE_ENV=test turns eslint-plugin-n8n-nodes-base's rules to its own fixtures),
 * with a temporary folder of its own, removed afterwards.
 */
function leakReports(texts: Array<{ file: string; text: string }>): string[][] {
	const script = `
const { ESLint } = require('eslint');
const path = require('path');
const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));
(async () => {
	const eslint = new ESLint({ cwd: ${JSON.stringify(PACKAGE_ROOT)} });
	const out = [];
	for (const { file, text } of texts) {
		const [result] = await eslint.lintText(text, { filePath: path.join(${JSON.stringify(PACKAGE_ROOT)}, file) });
		out.push(result.messages.filter((m) => m.ruleId === ${JSON.stringify(LEAK_RULE)}).map((m) => m.message));
	}
	process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });`;
	const env = { ...process.env };
	delete env.NODE_ENV;
	delete env.JEST_WORKER_ID;
	const temp = mkdtempSync(path.join(tmpdir(), 'lint-'));
	try {
		const result = spawnSync(process.execPath, ['-e', script], {
			cwd: PACKAGE_ROOT,
			input: JSON.stringify(texts),
			encoding: 'utf8',
			env: { ...env, TMPDIR: temp },
			timeout: 120_000,
		});
		if (result.status !== 0) throw new Error(`ESLint failed: ${result.stderr}`);
		return JSON.parse(result.stdout) as string[][];
	} finally {
		rmSync(temp, { recursive: true, force: true });
	}
}

describe('the lint rule no-builder-hint-leakage, with this package’s ESLint configuration', () => {
	const source = (file: string) => readFileSync(path.join(PACKAGE_ROOT, file), 'utf8');
	const plant = (file: string, from: string, to: string) => {
		const text = source(file);
		expect(text).toContain(from);
		return { file, text: text.replace(from, to) };
	};

	it('passes the hints as they are, and catches a wire expression or a connection type planted in them', () => {
		const NODE = 'nodes/MessagingCrm/MessagingCrm.node.ts';
		const CUSTOMER = 'nodes/MessagingCrm/shared/customer.ts';
		const reports = leakReports([
			{ file: NODE, text: source(NODE) },
			{ file: CUSTOMER, text: source(CUSTOMER) },
			plant(NODE, 'Attach this node to an AI Agent as a tool', 'Connect this node as ai_tool'),
			plant(CUSTOMER, "value: expr('{{ $json.id }}')", "value: '={{ $json.id }}'"),
			// The same expression outside a builderHint is not the rule's business (the subtitle has one).
			plant(
				CUSTOMER,
				"'The customer card. Anything",
				"'={{ $json.id }} The customer card. Anything",
			),
		]);
		expect(reports[0]).toEqual([]);
		expect(reports[1]).toEqual([]);
		expect(reports[2]).toEqual([expect.stringContaining('"ai_tool" leaks wire format')]);
		expect(reports[3]).toEqual([expect.stringContaining('Wire-format expression syntax leaks')]);
		expect(reports[4]).toEqual([]);
	}, 180_000);
});
