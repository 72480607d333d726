/**
 * Two end-to-end files that find n8n missing at once install it once (test/e2e/installLock.ts):
 * the second waits for the first; a lock left by a stopped run is taken over.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

import { installOnce } from '../e2e/installLock';

describe('one install at a time into .cache/', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(path.join(tmpdir(), 'mcrm-lock-'));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	/** Two callers at once, as two Jest workers: how many installs ran, and who waited. */
	async function twoAtOnce(lock: string) {
		let installs = 0;
		let done = false;
		const waited: string[] = [];
		const install = async () => {
			installs++;
			await new Promise((resolve) => setTimeout(resolve, 300));
			done = true;
		};
		await Promise.all(
			['first', 'second'].map((who) =>
				installOnce(
					lock,
					() => done,
					install,
					() => waited.push(who),
				),
			),
		);
		return { installs, waited };
	}

	it('the second caller waits for the first and installs nothing', async () => {
		expect(await twoAtOnce(path.join(dir, 'n8n.lock'))).toEqual({
			installs: 1,
			waited: ['second'],
		});
	});

	it('a lock whose process is gone is taken over', async () => {
		const lock = path.join(dir, 'n8n.lock');
		mkdirSync(lock);
		// A process id no process has (above Linux's largest).
		writeFileSync(path.join(lock, 'pid'), '4194305');
		let installs = 0;
		await installOnce(
			lock,
			() => installs > 0,
			async () => {
				installs++;
			},
			() => undefined,
		);
		expect(installs).toBe(1);
	});

	it('planted: without the lock (each caller its own), both install', async () => {
		let installs = 0;
		let done = false;
		await Promise.all(
			['first', 'second'].map((who) =>
				installOnce(
					path.join(dir, `${who}.lock`),
					() => done,
					async () => {
						installs++;
						await new Promise((resolve) => setTimeout(resolve, 300));
						done = true;
					},
					() => undefined,
				),
			),
		);
		expect(installs).toBe(2);
	});
});
