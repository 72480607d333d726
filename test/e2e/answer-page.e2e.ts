/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The answer page in Chromium, served with the headers the node sends (its Content-Security-Policy
 * included) by a server that answers a press as n8n does in each case:
 * - the node's page "recorded", 800 ms later (as n8n takes to resume an execution): a double press
 *   sends the form once, because the page's own script, allowed by its hash, sends it once;
 * - n8n's own answers when the question no longer takes answers (its 409 JSON "running already",
 *   its "No action required" page, its 500 when another answer's resume won, a refused connection),
 *   each shown as a page of the package's that says the answer was not recorded, and why: never
 *   JSON, never n8n's name;
 * - the form shown again with what is wrong, answered from there;
 * - without JavaScript, the plain form post and the page that comes back.
 * Planted: the same page without the script, and with the script under a policy that does not name
 * its hash, sends a double press twice, and shows n8n's 409 JSON as it is; so the checks can fail.
 */
import type { AddressInfo } from 'net';
import { createServer } from 'http';
import type { IncomingMessage, Server, ServerResponse } from 'http';

import type { Browser, Page } from 'playwright-core';

import {
	choicePage,
	formPage,
	outcomePage,
	PAGE_HEADERS,
	PAGE_SCRIPT,
} from '../../nodes/MessagingCrm/wait/pages';
import { launchChromium, pressTwice } from './browser';

const CSP = 'Content-Security-Policy';
const asker = { sender: 'Northside Dental' };
const question = choicePage(
	'Your appointment is on **Tuesday at 10:00**.',
	{ label: 'Approve', approved: true },
	asker,
);
const dayForm = (error?: string) =>
	formPage(
		{
			title: '',
			description: 'Which day suits you?',
			fields: [{ label: 'Day', type: 'text', required: true, placeholder: '', choices: [] }],
			button: 'Submit',
			error,
		},
		asker,
	);

/** n8n's answers, as n8n 2.x sends them. */
const N8N = {
	busy: {
		status: 409,
		json: '{"code":409,"message":"The execution \\"32\\" is running already."}',
	},
	lost: { status: 500, json: '{"code":0,"message":"There was a problem executing the workflow"}' },
	done: '<!doctype html><html><head><title>No action required</title></head><body><h1>No action required</h1><p>Form automated with n8n</p></body></html>',
};

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const html =
	(body: string, status = 200, headers = PAGE_HEADERS): Handler =>
	(_, res) =>
		res.writeHead(status, headers).end(body);
const json =
	({ status, json: body }: { status: number; json: string }): Handler =>
	(_, res) =>
		res.writeHead(status, { 'Content-Type': 'application/json' }).end(body);
const recorded: Handler = (_, res) => {
	setTimeout(() => res.writeHead(200, PAGE_HEADERS).end(outcomePage('recorded', asker)), 800);
};

/** Each path's page (GET) and its answer to a press (POST). */
const PATHS: Record<string, { get: Handler; post: Handler }> = {
	'/approve': { get: html(question), post: recorded },
	'/form': {
		get: html(dayForm()),
		post: (req, res) => {
			let body = '';
			req.on('data', (c: Buffer) => (body += c.toString()));
			req.on('end', () => {
				if (body.includes('Wednesday')) recorded(req, res);
				else html(dayForm('Please choose a weekday.'), 400)(req, res);
			});
		},
	},
	// n8n answered before the node: the execution is being resumed by another answer.
	'/busy': { get: html(question), post: json(N8N.busy) },
	// ...or has ended (n8n's page, with its name).
	'/done': { get: html(question), post: html(N8N.done, 200, { 'Content-Type': 'text/html' }) },
	// Another answer's resume won (n8n's 500); the link opened again: n8n's 409.
	'/lost': { get: html(question), post: json(N8N.lost) },
	// A 500, and the question still asks: nothing was recorded.
	'/unsure': { get: html(question), post: json(N8N.lost) },
	// The deadline the links carry has passed: n8n's page, after the time-out resumed the execution.
	'/late': {
		get: html(
			choicePage(
				'Tuesday?',
				{ label: 'Approve', approved: true },
				{ ...asker, until: new Date(0) },
			),
		),
		post: html(N8N.done, 200, { 'Content-Type': 'text/html' }),
	},
	// The connection drops.
	'/down': { get: html(question), post: (req) => req.socket.destroy() },
	'/planted-no-script': { get: html(question.replace(PAGE_SCRIPT, '')), post: recorded },
	'/planted-wrong-hash': {
		get: html(question, 200, {
			...PAGE_HEADERS,
			[CSP]: PAGE_HEADERS[CSP].replace(/sha256-[^']+/, 'sha256-AAAA'),
		}),
		post: recorded,
	},
};
// The link opened again after a lost resume: n8n's 409.
let lostOpened = 0;

describe('the answer page in Chromium', () => {
	let server: Server;
	let base: string;
	let browser: Browser;
	const posts: string[] = [];

	beforeAll(async () => {
		server = createServer((req, res) => {
			const path = PATHS[req.url ?? ''];
			if (!path) return res.writeHead(404).end();
			if (req.method === 'POST') {
				posts.push(req.url ?? '');
				return path.post(req, res);
			}
			if (req.url === '/lost' && lostOpened++ > 0) return json(N8N.busy)(req, res);
			path.get(req, res);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		browser = await launchChromium();
	});

	afterAll(async () => {
		await browser?.close();
		await new Promise((resolve) => server?.close(resolve));
	});

	/** Opens `path` in a browser context of its own, collecting the page's errors. */
	async function open(path: string, javaScriptEnabled = true) {
		const context = await browser.newContext({ javaScriptEnabled });
		const page = await context.newPage();
		const errors: string[] = [];
		// The script's errors and the policy's refusals; a status other than 2xx is the browser's
		// note of a response, not an error of the page.
		page.on('pageerror', (e) => errors.push(e.message));
		page.on(
			'console',
			(m) =>
				m.type() === 'error' &&
				!m.text().startsWith('Failed to load resource') &&
				errors.push(m.text()),
		);
		await page.goto(`${base}${path}`);
		return { page, errors, close: () => context.close() };
	}

	/** What the page shows after a press: its outcome, and the text a person reads. */
	async function shown(page: Page, outcome: string) {
		await page.locator(`main[data-outcome="${outcome}"]`).waitFor();
		return await page.locator('body').innerText();
	}

	/** Opens `path`, fills its text field if it has one, presses its button twice: the POSTs sent. */
	async function doublePress(path: string): Promise<{ posts: number; errors: string[] }> {
		posts.length = 0;
		const { page, errors, close } = await open(path);
		if (path === '/form') await page.locator('input').fill('Wednesday');
		await pressTwice(page, page.locator('button'));
		await page.getByText('Your answer was recorded').waitFor();
		await close();
		return { posts: posts.length, errors };
	}

	it('a double press on Approve sends one answer; the page names who asks and shows the message as the messenger did', async () => {
		const { page, close } = await open('/approve');
		expect(await page.locator('h1').innerText()).toBe('Northside Dental');
		expect(await page.title()).toBe('Approve · Northside Dental');
		expect(await page.locator('b').innerText()).toBe('Tuesday at 10:00');
		await close();
		expect(await doublePress('/approve')).toEqual({ posts: 1, errors: [] });
	});

	it('a double press on a form’s Submit sends one answer', async () => {
		expect(await doublePress('/form')).toEqual({ posts: 1, errors: [] });
	});

	it('the form shown again with what is wrong is answered from there', async () => {
		const { page, errors, close } = await open('/form');
		await page.locator('input').fill('Sunday');
		await page.locator('button').click();
		await page.getByText('Please choose a weekday.').waitFor();
		await page.locator('input').fill('Wednesday');
		await page.locator('button').click();
		expect(await shown(page, 'recorded')).toContain('Your answer was recorded');
		await close();
		expect(errors).toEqual([]);
	});

	it.each([
		['/busy', "n8n's 409 (another answer is being recorded)", 'taken'],
		['/done', 'n8n\'s "No action required" page', 'taken'],
		['/lost', "n8n's 500 when another answer's resume won (the link again: 409)", 'taken'],
		['/late', "n8n's page after the deadline the links carry", 'late'],
		['/unsure', "n8n's 500 while the question still asks", 'failed'],
		['/down', 'a dropped connection', 'failed'],
	])(
		'%s: %s is shown as the package\'s page "%s", saying the answer was not recorded; no JSON, no n8n',
		async (path, _, outcome) => {
			const { page, errors, close } = await open(path);
			await page.locator('button').click();
			const text = await shown(page, outcome);
			expect(text).toContain('Northside Dental');
			expect(text).toMatch(/(Your answer was not recorded|Nothing was recorded)/);
			expect(text).not.toMatch(/n8n|"code"|No action required/i);
			await close();
			expect(errors).toEqual([]);
		},
	);

	it('without JavaScript the form posts as a plain form, and the page that comes back is shown', async () => {
		posts.length = 0;
		const { page, close } = await open('/approve', false);
		await page.locator('button').click();
		await page.getByText('Your answer was recorded').waitFor();
		await close();
		expect(posts).toEqual(['/approve']);
	});

	it('planted: without the script, a double press sends two answers, and n8n’s 409 shows as JSON', async () => {
		expect((await doublePress('/planted-no-script')).posts).toBe(2);
		const { page, close } = await open('/busy', false);
		await page.locator('button').click();
		await page.getByText('"code":409').waitFor();
		await close();
	});

	it('planted: under a policy without its hash, the script is blocked and a double press sends two', async () => {
		const { posts: sent, errors } = await doublePress('/planted-wrong-hash');
		expect(sent).toBe(2);
		expect(errors.join('\n')).toContain('Content Security Policy');
	});
});
