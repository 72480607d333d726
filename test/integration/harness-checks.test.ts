/* eslint-disable @n8n/community-nodes/no-restricted-globals -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The harness's own checks, each planted once: a run n8n refuses to start is checked for the key
 * and clears the log lines it captured; a planted function stays planted across an await.
 */
import { logLines } from '../harness/engine';
import { useSandbox } from '../harness/fixtures';
import { planted } from '../harness/planted';
import { least, most } from '../harness/rateModel';
import { holdsFor } from '../e2e/rest';

const env = useSandbox();

describe('the harness checks every run, also one n8n refuses to start', () => {
	// Customer Get with no customer: the editor's issue ("Customer" is required), n8n refuses the run.
	const refused = { resource: 'customer', operation: 'get', customerId: '' };

	it('a refused run is a refusal n8n names, and the check passes on a clean one', async () => {
		const { error, items } = await env.run(refused);
		expect(error?.name).toBe('WorkflowHasIssuesError');
		expect(items).toEqual([]);
		expect(env.sandbox.requests()).toEqual([]);
	});

	it('planted: a key logged during a run n8n refuses is caught in that run, not blamed on the next', async () => {
		logLines.push(`debug planted Authorization: Bearer ${env.apiKey}`);
		await expect(env.run(refused)).rejects.toThrow(/leaked/);
		expect(logLines).toEqual([]);
		const { error } = await env.run(refused);
		expect(error?.name).toBe('WorkflowHasIssuesError');
	});

	it('planted: a key of a few characters is refused by the check, which could not tell a leak from chance', async () => {
		await expect(env.run(refused, { apiKey: 'k3y' })).rejects.toThrow(/8 characters at least/);
	});
});

describe('a lower bound on the model’s figures', () => {
	it('fails on no figures, where Math.min gives Infinity and any bound would pass', () => {
		expect(Math.min(...[])).toBeGreaterThanOrEqual(0.95 * 120);
		expect(() => least([])).toThrow(/No figures to judge/);
		expect(least([120, 114, 119])).toBe(114);
	});
});

describe('an upper bound on the model’s figures', () => {
	it('fails on no figures, where Math.max gives -Infinity and any bound would pass', () => {
		expect(Math.max(...[])).toBeLessThanOrEqual(60);
		expect(() => most([])).toThrow(/No figures to judge/);
		expect(most([58, 61, 60])).toBe(61);
	});
});

describe('a check that nothing more happens (holdsFor, the e2e tests’ second resume)', () => {
	it('planted: a second resume 2 s late is caught by a 3 s hold, where a 1 s look would have passed', async () => {
		let resumes = 1;
		const late = setTimeout(() => resumes++, 2_000);
		try {
			await new Promise((resolve) => setTimeout(resolve, 1_000));
			expect(resumes).toBe(1);
			await expect(holdsFor('one resume', () => resumes === 1)).rejects.toThrow(
				'No longer true: one resume',
			);
		} finally {
			clearTimeout(late);
		}
		await holdsFor('one resume from here on', () => resumes === 2, 500);
	});
});

describe('a planted function', () => {
	class Target {
		value(): string {
			return 'original';
		}
	}

	it('is planted for a test that returns nothing, and put back when it ends', () => {
		planted(
			'value',
			() => 'planted',
			() => expect(new Target().value()).toBe('planted'),
			Target,
		);
		expect(new Target().value()).toBe('original');
	});

	it('stays planted across an await in an async test, and is put back when its promise settles, also when it rejects', async () => {
		await planted(
			'value',
			() => 'planted',
			async () => {
				await new Promise((resolve) => setImmediate(resolve));
				expect(new Target().value()).toBe('planted');
			},
			Target,
		);
		expect(new Target().value()).toBe('original');
		await expect(
			planted(
				'value',
				() => 'planted',
				async () => {
					await Promise.resolve();
					throw new Error('the test failed');
				},
				Target,
			),
		).rejects.toThrow('the test failed');
		expect(new Target().value()).toBe('original');
	});
});
