/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/** The editor in headless Chromium (Debian's), logged in as the n8n owner, for the e2e tests. */
import { existsSync } from 'fs';

import type { Browser, Locator, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

import { privateFolder } from './setup';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Chromium with the flags this machine's closed network needs (no background connections). */
export async function launchChromium(): Promise<Browser> {
	if (!existsSync(CHROMIUM))
		throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium`);
	// Chromium keeps its certificate store (~/.pki) and caches in the home folder whatever its
	// profile: a private one of its own, removed with the test file's other folders.
	const home = privateFolder('chromium-home-');
	return await chromium.launch({
		executablePath: CHROMIUM,
		env: { ...process.env, HOME: home, XDG_CONFIG_HOME: home, XDG_CACHE_HOME: home },
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
	});
}

/** Chromium and a page whose cookie is the owner's session (`cookie` as setupOwner returns it). */
export async function openEditor(cookie: string): Promise<{ browser: Browser; page: Page }> {
	const browser = await launchChromium();
	const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
	const [name, value] = cookie.split('=');
	await context.addCookies([{ name, value, domain: 'localhost', path: '/' }]);
	return { browser, page: await context.newPage() };
}

/** The texts of an open dropdown's choices, first lines only, after clicking its field. */
export async function optionsOf(page: Page, parameter: string): Promise<string[]> {
	return (await choicesOf(page, parameter)).map((t) => t.split('\n')[0].trim());
}

/** The whole texts of a dropdown's choices (name, then description), closed again after. */
export async function choicesOf(page: Page, parameter: string): Promise<string[]> {
	const field = page.locator(`[data-test-id="parameter-input-${parameter}"]`).first();
	const items = page.locator('.el-select-dropdown:visible .el-select-dropdown__item');
	await field.click();
	// A cold editor can miss the first click while it still loads the node's options: once more.
	if (
		!(await items
			.first()
			.waitFor({ timeout: 20_000 })
			.then(
				() => true,
				() => false,
			))
	) {
		await page.keyboard.press('Escape');
		await field.click();
		await items.first().waitFor({ timeout: 30_000 });
	}
	const texts = await items.allInnerTexts();
	// On a loaded machine (two end-to-end files at once) an Escape can come before the dropdown
	// takes the keyboard: then a click on its field (which toggles it), then Escape again.
	const closed = () =>
		items
			.first()
			.waitFor({ state: 'hidden', timeout: 3_000 })
			.then(
				() => true,
				() => false,
			);
	await page.keyboard.press('Escape');
	for (let attempt = 1; attempt <= 2 && !(await closed()); attempt++) {
		if (attempt === 1) await field.click();
		else await page.keyboard.press('Escape');
	}
	await items.first().waitFor({ state: 'hidden', timeout: 10_000 });
	return texts;
}

/**
 * A person's double press of `target`: two clicks at its middle, the second 200 ms after the
 * first, while the first is being recorded (a click at a point, not on the element, so that a
 * disabled button takes it as a person's click does: nothing happens).
 */
export async function pressTwice(page: Page, target: Locator): Promise<void> {
	const box = (await target.boundingBox())!;
	const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
	await page.mouse.click(x, y);
	await page.waitForTimeout(200);
	await page.mouse.click(x, y);
}
