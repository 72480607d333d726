/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The answer page in Chromium, served with the headers the node sends (its Content-Security-Policy
 * included) by a server that takes 800 ms to record a press, as n8n takes to resume an execution:
 * a double press sends the form once, because the page's own script, allowed by its hash, disables
 * the button once pressed. Planted: the same page without the script, and with the script under a
 * policy that does not name its hash, sends it twice; so the check can fail.
 */
import type { AddressInfo } from 'net';
import { createServer } from 'http';
import type { Server } from 'http';

import type { Browser } from 'playwright-core';

import {
	choicePage,
	formPage,
	ONCE_SCRIPT,
	PAGE_HEADERS,
	RECORDED_PAGE,
} from '../../nodes/MessagingCrm/wait/pages';
import { launchChromium, pressTwice } from './browser';

const CSP = 'Content-Security-Policy';

/** The pages by path: as the node makes them, and the two planted failures. */
const PAGES: Record<string, { html: string; headers: Record<string, string> }> = {
	'/approve': {
		html: choicePage('Your appointment is on **Tuesday at 10:00**.', {
			label: 'Approve',
			approved: true,
		}),
		headers: PAGE_HEADERS,
	},
	'/form': {
		html: formPage({
			title: '',
			description: 'Which day suits you?',
			fields: [{ label: 'Day', type: 'text', required: true, placeholder: '', choices: [] }],
			button: 'Submit',
		}),
		headers: PAGE_HEADERS,
	},
};
PAGES['/planted-no-script'] = {
	html: PAGES['/approve'].html.replace(ONCE_SCRIPT, ''),
	headers: PAGE_HEADERS,
};
PAGES['/planted-wrong-hash'] = {
	html: PAGES['/approve'].html,
	headers: { ...PAGE_HEADERS, [CSP]: PAGE_HEADERS[CSP].replace(/sha256-[^']+/, 'sha256-AAAA') },
};

describe('the answer page in Chromium', () => {
	let server: Server;
	let base: string;
	let browser: Browser;
	const posts: string[] = [];

	beforeAll(async () => {
		server = createServer((req, res) => {
			const page = PAGES[req.url ?? ''];
			if (!page) res.writeHead(404).end();
			else if (req.method === 'POST') {
				posts.push(req.url ?? '');
				req.resume();
				setTimeout(() => res.writeHead(200, PAGE_HEADERS).end(RECORDED_PAGE), 800);
			} else res.writeHead(200, page.headers).end(page.html);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		browser = await launchChromium();
	});

	afterAll(async () => {
		await browser?.close();
		await new Promise((resolve) => server?.close(resolve));
	});

	/** Opens `path`, fills its text field if it has one, presses its button twice: the POSTs sent. */
	async function doublePress(path: string): Promise<{ posts: number; errors: string[] }> {
		posts.length = 0;
		const page = await browser.newPage();
		const errors: string[] = [];
		page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
		await page.goto(`${base}${path}`);
		if (path === '/form') await page.locator('input').fill('Wednesday');
		await pressTwice(page, page.locator('button'));
		await page.getByText('Your answer has been recorded').waitFor();
		await page.close();
		return { posts: posts.length, errors };
	}

	it('a double press on Approve sends one answer; the page shows the message as the messenger did', async () => {
		const page = await browser.newPage();
		await page.goto(`${base}/approve`);
		expect(await page.locator('b').innerText()).toBe('Tuesday at 10:00');
		await page.close();
		expect(await doublePress('/approve')).toEqual({ posts: 1, errors: [] });
	});

	it('a double press on a form’s Submit sends one answer', async () => {
		expect(await doublePress('/form')).toEqual({ posts: 1, errors: [] });
	});

	it('planted: without the script, a double press sends two answers', async () => {
		expect((await doublePress('/planted-no-script')).posts).toBe(2);
	});

	it('planted: under a policy without its hash, the script is blocked and a double press sends two', async () => {
		const { posts: sent, errors } = await doublePress('/planted-wrong-hash');
		expect(sent).toBe(2);
		expect(errors.join('\n')).toContain('Content Security Policy');
	});
});
