/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * The n8n releases the end-to-end suite runs, installed when missing (each a few minutes on a
 * fresh clone, mostly downloading): `2.x`, `1.x`, or both side by side when none is named, as
 * `npm run test:e2e` does before Jest starts (its files would otherwise install them one after
 * the other, whichever needs one first; installLock.ts keeps two from installing the same).
 */
import { endDescendants } from '../dev/processes';
import { ensureN8n, N8N_V1_VERSION, N8N_VERSION } from './n8n';

const RELEASES: Record<string, string> = { '2.x': N8N_VERSION, '1.x': N8N_V1_VERSION };
const named = process.argv.slice(2);
const unknown = named.filter((name) => !(name in RELEASES));
if (unknown.length) {
	console.error(`Unknown release ${unknown.join(', ')}: name 2.x, 1.x or none for both`);
	process.exit(2);
}
const versions = (named.length ? named : Object.keys(RELEASES)).map((name) => RELEASES[name]);
const since = Date.now();
// Stopped (Ctrl-C, or SIGTERM from a script that started it in the background): the npm processes
// under it are stopped too. The next run installs again (a release is ready only once it ends).
for (const [signal, code] of [
	['SIGINT', 130],
	['SIGTERM', 143],
	['SIGHUP', 129],
] as const)
	process.once(signal, () => void endDescendants().then(() => process.exit(code)));
// Each install to its end, so that a failed one leaves no other running or holding its lock.
void Promise.allSettled(versions.map((version) => ensureN8n(version))).then((results) => {
	const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
	for (const failure of failed) console.error(failure.reason);
	if (failed.length) process.exit(1);
	console.log(`n8n ${versions.join(' and ')} ready (${Math.round((Date.now() - since) / 1000)} s)`);
});
