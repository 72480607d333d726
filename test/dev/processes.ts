/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The processes `npm run dev` started, found through /proc (Linux; no tool needed): to stop every one of them
 * whatever state the start was in, and for the test that checks nothing is left and every port
 * is on loopback.
 */
import { readdirSync, readFileSync, readlinkSync } from 'fs';

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

interface Listener {
	address: string;
	port: number;
	inode: string;
}

/** The listening TCP sockets of this machine, from /proc/net/tcp and tcp6 (no tool needed). */
function listeners(): Listener[] {
	const out: Listener[] = [];
	for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
		let text = '';
		try {
			text = readFileSync(file, 'utf8');
		} catch {
			continue;
		}
		for (const line of text.split('\n').slice(1)) {
			const columns = line.trim().split(/\s+/);
			if (columns.length < 10 || columns[3] !== '0A') continue; // 0A: LISTEN
			const [hex, port] = columns[1].split(':');
			out.push({ address: addressOf(hex), port: parseInt(port, 16), inode: columns[9] });
		}
	}
	return out;
}

/** An address as /proc writes it (32-bit words in host order, little-endian here) in plain text. */
function addressOf(hex: string): string {
	const bytes = (word: string) => [6, 4, 2, 0].map((i) => parseInt(word.slice(i, i + 2), 16));
	if (hex.length === 8) return bytes(hex).join('.');
	const all = [0, 8, 16, 24].flatMap((i) => bytes(hex.slice(i, i + 8)));
	if (all.slice(0, 10).every((b) => b === 0) && all[10] === 255 && all[11] === 255)
		return all.slice(12).join('.'); // an IPv4 address on an IPv6 socket
	const groups = Array.from({ length: 8 }, (_, i) => (all[2 * i] << 8) | all[2 * i + 1]);
	if (groups.slice(0, 7).every((g) => g === 0)) return groups[7] === 1 ? '[::1]' : '[::]';
	return `[${groups.map((g) => g.toString(16)).join(':')}]`;
}

/** The TCP ports these processes listen on, with the address of each. */
export function listening(pids: number[]): Array<{ pid: number; address: string; port: number }> {
	const byInode = new Map(listeners().map((l) => [l.inode, l]));
	const out: Array<{ pid: number; address: string; port: number }> = [];
	for (const pid of pids) {
		let fds: string[] = [];
		try {
			fds = readdirSync(`/proc/${pid}/fd`);
		} catch {
			continue;
		}
		for (const fd of fds) {
			let target = '';
			try {
				target = readlinkSync(`/proc/${pid}/fd/${fd}`);
			} catch {
				continue;
			}
			const socket = byInode.get(/^socket:\[(\d+)\]$/.exec(target)?.[1] ?? '');
			if (socket) out.push({ pid, address: socket.address, port: socket.port });
		}
	}
	return out;
}

/** Whether anything listens on this TCP port (any address). */
export function portInUse(port: number): boolean {
	return listeners().some((l) => l.port === port);
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
 * A stack frame ("    at …") is not a line of its own: the line above it said what failed.
 */
export function isErrorLine(who: string, line: string): boolean {
	if (who.startsWith('postgres')) return /\b(FATAL|PANIC)\b/.test(line);
	if (/^\s*at /.test(line)) return false;
	return /error\b/i.test(line);
}

/**
 * The one line this package's node logs for each item that failed (actions/errorItems.ts): the
 * API's refusal ("failed: no_peer (HTTP 409): …"), or the node's own, saying when it refused
 * ("refused before any request: validation_error: …").
 */
const NODE_FAILURE = /^Messaging CRM ".*"(?:, item \d+)? (?:failed|refused [^:]+): /;

/** What n8n says in words a newcomer may not know, and what it means here. */
const EXPLAINED: Array<[RegExp, string]> = [
	[
		/job stalled more than maxStalledCount/,
		'(n8n: the worker that ran this execution died; main marks it failed and runs it no more. Run the same event again: only what had not gone through is sent. See docs/queue-mode.md.)',
	],
];

/**
 * What `npm run dev` shows in the terminal of a process's log line (the log keeps every line):
 * error lines, each item the node refused with its code (an operator tells no_peer from a key
 * problem without opening the log), and a word after what n8n says in its own terms; nothing for
 * the rest.
 */
export function terminalLines(who: string, line: string): string[] {
	const text = line.trim();
	if (!text) return [];
	if (NODE_FAILURE.test(text)) return [`[${who}] ${text}`];
	if (!isErrorLine(who, line)) return [];
	const explained = EXPLAINED.find(([said]) => said.test(text));
	return explained ? [`[${who}] ${text}`, `[${who}] ${explained[1]}`] : [`[${who}] ${text}`];
}
