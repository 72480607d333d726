/**
 * The answer pages (wait/pages.ts) as HTML: each names who asks in its heading; the question page
 * carries the outcomes its script may show instead of n8n's answer, the deadline, and a typed
 * field's limit; one script, the one the Content-Security-Policy allows by its hash, which may
 * send the form back to its own origin only. What the script does in a browser is
 * test/e2e/answer-page.e2e.ts's.
 */
import { createHash } from 'crypto';

import type { FormField } from '../../nodes/MessagingCrm/wait/config';
import { MAX_ANSWER_LENGTH } from '../../nodes/MessagingCrm/wait/config';
import type { Outcome } from '../../nodes/MessagingCrm/wait/pages';
import {
	choicePage,
	formPage,
	NO_SENDER_HEADING,
	outcomePage,
	PAGE_HEADERS,
	PAGE_SCRIPT,
} from '../../nodes/MessagingCrm/wait/pages';

const asker = { sender: 'Northside <Dental>', until: new Date('2026-12-08T10:00:00.000Z') };
const approve = { label: 'Approve', approved: true };
const field = (type: FormField['type'], required = false): FormField => ({
	label: type,
	type,
	required,
	placeholder: '',
	choices: type === 'dropdown' ? ['A'] : [],
});
const form = (fields: FormField[], values?: string[]) =>
	formPage({ title: '', description: 'Which day?', fields, button: 'Submit', values }, asker);

/** The `main` elements of a page, as [outcome, its HTML]. */
const mains = (html: string) =>
	[...html.matchAll(/<main data-outcome="(\w+)"[^>]*>([\s\S]*?)<\/main>/g)].map((m) => [
		m[1],
		m[2],
	]);

const AFTER: Array<Exclude<Outcome, 'question'>> = ['recorded', 'taken', 'late', 'failed', 'fault'];

describe('the answer pages', () => {
	it.each([
		['the approval', choicePage('Tuesday?', approve, asker)],
		['a form', form([field('text')])],
		...AFTER.map((o) => [o, outcomePage(o, asker)]),
	])('%s: who asks is the heading of every main, escaped, and the tab says it', (_, html) => {
		for (const [, body] of mains(html))
			expect(body.startsWith('\n<h1>Northside &lt;Dental&gt;</h1>\n')).toBe(true);
		expect(html).toMatch(/<title>[^<]+ · Northside &lt;Dental&gt;<\/title>/);
		expect(html).not.toContain('<Dental>');
	});

	it('without a Sender Name the heading says so and the tab names the page', () => {
		const html = choicePage('Tuesday?', approve, { sender: '' });
		expect(html).toContain(`<h1>${NO_SENDER_HEADING}</h1>`);
		expect(html).toContain('<title>Approve</title>');
		expect(html).not.toContain('data-until');
	});

	it('the question carries the deadline and the three outcomes its script may show, each a main of its own; a page after a press carries none', () => {
		const html = choicePage('Tuesday?', approve, asker);
		expect(mains(html).map(([o]) => o)).toEqual(['question', 'taken', 'late', 'failed']);
		expect(html).toContain('data-until="2026-12-08T10:00:00.000Z"');
		for (const k of ['taken', 'late', 'failed'])
			expect(html).toContain(`<template id="outcome-${k}"><main data-outcome="${k}"`);
		expect(mains(outcomePage('recorded', asker)).map(([o]) => o)).toEqual(['recorded']);
	});

	it.each([
		['recorded', 'Your answer was recorded.'],
		['taken', 'Someone already answered'],
		['taken', 'Your answer was not recorded.'],
		['late', 'The time to answer has run out'],
		['late', 'Your answer was not recorded.'],
		['failed', 'Nothing was recorded.'],
	] as const)('%s says "%s"', (outcome, words) => {
		expect(outcomePage(outcome, asker)).toContain(words);
	});

	it("the only script is the page's own, allowed by its hash; it may fetch its own origin only", () => {
		const csp = PAGE_HEADERS['Content-Security-Policy'];
		const hash = createHash('sha256').update(PAGE_SCRIPT).digest('base64');
		expect(csp).toContain(`script-src 'sha256-${hash}';`);
		expect(csp).toContain("connect-src 'self';");
		expect(csp).toContain("default-src 'none';");
		for (const html of [
			choicePage('<script>x()</script>', approve, asker),
			form([field('text')]),
		]) {
			const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
			expect(scripts).toEqual([PAGE_SCRIPT]);
		}
	});

	it(`a typed field stops at ${MAX_ANSWER_LENGTH} characters, and a text area says so; other fields have no such limit`, () => {
		const html = form(
			['textarea', 'text', 'email', 'number', 'date', 'dropdown'].map((t) =>
				field(t as FormField['type']),
			),
		);
		const limited = [...html.matchAll(/<(?:textarea|input|select) ([^>]*)>/g)].map(([, tag]) => [
			/id="([^"]+)"/.exec(tag)?.[1],
			/maxlength="(\d+)"/.exec(tag)?.[1],
		]);
		expect(limited).toEqual([
			['field-0', String(MAX_ANSWER_LENGTH)],
			['field-1', String(MAX_ANSWER_LENGTH)],
			['field-2', String(MAX_ANSWER_LENGTH)],
			['field-3', undefined],
			['field-4', undefined],
			['field-5', undefined],
		]);
		expect(html).toContain('aria-describedby="field-0-hint"');
		expect(html).toContain('<p class="hint" id="field-0-hint">Up to 2,000 characters.</p>');
		expect(html.match(/class="hint"/g)).toHaveLength(1);
	});

	it('a value shown again is escaped, in its field', () => {
		const html = form([field('textarea'), field('text')], ['</textarea><b>', '"><b>']);
		expect(html).toContain('>&lt;/textarea&gt;&lt;b&gt;</textarea>');
		expect(html).toContain('value="&quot;&gt;&lt;b&gt;"');
	});
});
