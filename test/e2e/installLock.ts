/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * One install at a time into a folder of .cache/: Jest runs two end-to-end files at once, and both
 * may find n8n missing on a fresh clone. The first takes the lock (a folder made atomically, with
 * its process id inside); the others wait for it to go, then look again. A lock whose process is
 * gone (a run stopped with Ctrl-C) is taken over.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import path from 'path';

const POLL_MS = 2000;

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** The process holding the lock folder `lock`, if it is still running. */
function holder(lock: string): number | undefined {
	const file = `${lock}/pid`;
	const pid = existsSync(file) ? parseInt(readFileSync(file, 'utf8'), 10) : NaN;
	// Just made, its id not written yet: running, unless that was seconds ago.
	if (!(pid > 0)) {
		const made = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
		return made !== undefined && Date.now() - made < 10_000 ? -1 : undefined;
	}
	return alive(pid) ? pid : undefined;
}

/**
 * Runs `install` holding the lock `lock` unless `done()` says another process already did it;
 * `waiting` is told once when another process holds the lock.
 */
export async function installOnce(
	lock: string,
	done: () => boolean,
	install: () => Promise<void>,
	waiting: () => void,
): Promise<void> {
	let told = false;
	mkdirSync(path.dirname(lock), { recursive: true });
	for (;;) {
		if (done()) return;
		try {
			mkdirSync(lock);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
			if (holder(lock) === undefined) {
				rmSync(lock, { recursive: true, force: true });
				continue;
			}
			if (!told) waiting();
			told = true;
			await new Promise((resolve) => setTimeout(resolve, POLL_MS));
			continue;
		}
		try {
			writeFileSync(`${lock}/pid`, String(process.pid));
			if (!done()) await install();
			return;
		} finally {
			rmSync(lock, { recursive: true, force: true });
		}
	}
}
