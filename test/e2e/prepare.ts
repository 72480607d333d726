/**
 * Before the end-to-end suite (`npm run test:e2e`): both n8n releases it runs, installed side by
 * side when missing (each a few minutes on a fresh clone, mostly downloading), instead of one
 * after the other by whichever file needs it first.
 */
import { ensureN8n, N8N_V1_VERSION, N8N_VERSION } from './n8n';

const since = Date.now();
Promise.all([N8N_VERSION, N8N_V1_VERSION].map((version) => ensureN8n(version))).then(
	() =>
		console.log(
			`n8n ${N8N_VERSION} and ${N8N_V1_VERSION} ready (${Math.round((Date.now() - since) / 1000)} s)`,
		),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
