// `npm run lint`'s second pass, `eslint -c test/eslint.config.mjs --max-warnings 0 .`, after
// `n8n-node lint`. The root eslint.config.mjs must stay n8n's default file word for word (n8n's
// strict mode, which n8n Cloud's verification asks for), and ESLint 9 reads no other file for
// `eslint .`, so this one is named on the command line. It is n8n's configuration, as the root
// file's, with this project's stricter options on top (warnings fail through --max-warnings 0):
// - in the package's own files (nodes/, credentials/, package.json) no inline disable is honoured,
//   as in n8n's scanner: each one is reported, and the problem it hid with it;
// - everywhere else (test/ and the top-level tool configurations) a disable that disables nothing
//   is an error. A file under test/ that must do what a node may not (Node's modules and globals,
//   child processes, the console, the sandbox's keys) says so in one disable of those of n8n's
//   rules for nodes at its top; `npx n8n-node lint`, which lints test/ too, honours it;
// - the JavaScript files (the top-level tool configurations, test/dev/, the run's guard in
//   test/harness/), for which n8n's configuration has no rules, get ESLint's recommended ones
//   (from ESLint's own @eslint/js), as CommonJS under Node.
import { createRequire } from 'node:module';

import { config } from '@n8n/node-cli/eslint';

const js = createRequire(import.meta.resolve('eslint'))('@eslint/js');
/** Node's globals that the JavaScript files may use. */
const node = Object.fromEntries(
	[
		'__dirname',
		'__filename',
		'Buffer',
		'clearInterval',
		'clearTimeout',
		'console',
		'process',
		'setImmediate',
		'setInterval',
		'setTimeout',
		'URL',
	].map((name) => [name, 'readonly']),
);

export default [
	// Made by runs, not written: Jest's coverage report, the tools' caches and installs.
	{ ignores: ['coverage/', '.cache/'] },
	...config,
	{
		files: ['**/*.js'],
		...js.configs.recommended,
		languageOptions: { sourceType: 'commonjs', globals: node },
	},
	{ linterOptions: { reportUnusedDisableDirectives: 'error' } },
	{
		files: ['nodes/**', 'credentials/**', 'package.json'],
		linterOptions: { noInlineConfig: true },
	},
];
