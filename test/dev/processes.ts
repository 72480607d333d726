/**
 * The processes `npm run dev` started, found through /proc (Linux): to stop every one of them
 * whatever state the start was in, and for the test that checks nothing is left and every port
 * is on loopback.
 */
import { spawnSync } from 'child_process';
import { readdirSync, readFileSync } from 'fs';

/** Every living descendant of `pid` (children, their children, ...). */
export function descendants(pid: number): number[] {
	const parents = new Map<number, number[]>();
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			// The command name, in parentheses, may hold spaces: the fields after it are fixed.
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			if (fields[0] === 'Z') continue;
			const ppid = Number(fields[1]);
			parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
		} catch {
			// Ended while being read.
		}
	}
	const out: number[] = [];
	const walk = (p: number) => {
		for (const child of parents.get(p) ?? []) {
			out.push(child);
			walk(child);
		}
	};
	walk(pid);
	return out;
}

export function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** The TCP ports these processes listen on, with the address of each (from `ss`). */
export function listening(pids: number[]): Array<{ pid: number; address: string; port: number }> {
	const ss = spawnSync('ss', ['-ltnpH'], { encoding: 'utf8' });
	const wanted = new Set(pids);
	const out: Array<{ pid: number; address: string; port: number }> = [];
	for (const line of ss.stdout.split('\n')) {
		const columns = line.trim().split(/\s+/);
		if (columns.length < 6) continue;
		const local = columns[3];
		const at = local.lastIndexOf(':');
		for (const m of line.matchAll(/pid=(\d+)/g)) {
			const pid = Number(m[1]);
			if (wanted.has(pid))
				out.push({ pid, address: local.slice(0, at), port: Number(local.slice(at + 1)) });
		}
	}
	return out;
}

/** Whether anything listens on this TCP port (any address). */
export function portInUse(port: number): boolean {
	const ss = spawnSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' });
	return ss.stdout.trim() !== '';
}

/**
 * Ends every descendant of this process: SIGTERM, then SIGKILL for what is still there after
 * `graceMs` (the last resort after a stop that did not finish, or a signal during the start).
 */
export async function endDescendants(graceMs = 10_000): Promise<void> {
	let pids = descendants(process.pid);
	for (const pid of pids) {
		try {
			process.kill(pid, 'SIGTERM');
		} catch {
			// Gone already.
		}
	}
	const deadline = Date.now() + graceMs;
	while ((pids = pids.filter(alive)).length && Date.now() < deadline)
		await new Promise((resolve) => setTimeout(resolve, 200));
	for (const pid of pids) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// Gone already.
		}
	}
}

/**
 * Whether a line of a process's log reports an error: n8n's "Error:" and "QueryFailedError: …"
 * lines and its error level, PostgreSQL's FATAL and PANIC (its ERROR lines are a client's SQL).
 */
export function isErrorLine(who: string, line: string): boolean {
	return who.startsWith('postgres') ? /\b(FATAL|PANIC)\b/.test(line) : /error\b/i.test(line);
}
