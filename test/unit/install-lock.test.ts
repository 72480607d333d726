/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * Two end-to-end files that find n8n missing at once install it once (test/e2e/installLock.ts):
 * the second waits for the first; a lock left by a stopped run is taken over.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

import { installOnce } from '../e2e/installLock';

describe('one install at a time into .cache/', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(path.join(tmpdir(), 'mcrm-lock-'));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	/** Two callers at once, as two Jest workers, each with the lock `lockOf` names: how many installs ran, and who waited. */
	async function twoAtOnce(lockOf: (who: string) => string) {
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
					lockOf(who),
					() => done,
					install,
					() => waited.push(who),
				),
			),
		);
		return { installs, waited };
	}

	/** One caller with the lock `lock`: how many installs ran, and whether it waited. */
	async function oneCaller(lock: string) {
		let installs = 0;
		const waited: string[] = [];
		await installOnce(
			lock,
			() => installs > 0,
			async () => {
				installs++;
			},
			() => waited.push('waited'),
		);
		return { installs, waited };
	}

	it('the second caller waits for the first and installs nothing', async () => {
		expect(await twoAtOnce(() => path.join(dir, 'n8n.lock'))).toEqual({
			installs: 1,
			waited: ['second'],
		});
	});

	it('a lock whose process is gone is taken over', async () => {
		const lock = path.join(dir, 'n8n.lock');
		mkdirSync(lock);
		// A process id no process has (above Linux's largest).
		writeFileSync(path.join(lock, 'pid'), '4194305');
		expect(await oneCaller(lock)).toEqual({ installs: 1, waited: [] });
	});

	it('makes the folder the lock goes in (a fresh clone has no .cache/ yet)', async () => {
		expect(await oneCaller(path.join(dir, 'not-yet', 'n8n.lock'))).toEqual({
			installs: 1,
			waited: [],
		});
	});

	it('a lock with an empty process id, seconds old, is taken over', async () => {
		const lock = path.join(dir, 'n8n.lock');
		mkdirSync(lock);
		// An empty id file, as a process stopped between making the lock and writing its id leaves.
		writeFileSync(path.join(lock, 'pid'), '');
		const old = new Date(Date.now() - 60_000);
		utimesSync(lock, old, old);
		expect(await oneCaller(lock)).toEqual({ installs: 1, waited: [] });
	});

	it('a lock made a moment ago with no process id yet is waited for', async () => {
		const lock = path.join(dir, 'n8n.lock');
		mkdirSync(lock);
		let done = false;
		const waited: string[] = [];
		setTimeout(() => {
			done = true;
			rmSync(lock, { recursive: true, force: true });
		}, 500);
		await installOnce(
			lock,
			() => done,
			async () => undefined,
			() => waited.push('waited'),
		);
		expect(waited).toEqual(['waited']);
	});

	it('planted: without the lock (each caller its own), both install', async () => {
		const { installs } = await twoAtOnce((who) => path.join(dir, `${who}.lock`));
		expect(installs).toBe(2);
	});
});
