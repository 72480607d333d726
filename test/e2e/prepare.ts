/**
 * The n8n releases the end-to-end suite runs, installed when missing (each a few minutes on a
 * fresh clone, mostly downloading): `2.x`, `1.x`, or both when none is named, side by side.
 * `.ci/run` starts one for each release beside `npm test`, and the suite begins once 2.x is there;
 * a file that needs 1.x before its install ends waits for it (installLock.ts).
 */
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
Promise.all(versions.map((version) => ensureN8n(version))).then(
	() =>
		console.log(
			`n8n ${versions.join(' and ')} ready (${Math.round((Date.now() - since) / 1000)} s)`,
		),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
