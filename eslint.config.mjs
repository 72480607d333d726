// n8n's own configuration for community packages (the one `n8n-node lint` and the verification
// scanner use: eslint-plugin-n8n-nodes-base's community, credentials and nodes rules and
// @n8n/eslint-plugin-community-nodes), and this project's stricter rules on top:
// - inline disable comments are not honoured, as in the scanner, and unused ones are errors;
// - `npm run lint` allows no warnings.
// The tests, the sandbox and the tools under test/ are not part of the package and are type-checked
// instead (`npm run typecheck`); package.json `n8n.strict` is false because strict mode demands the
// default configuration file, with nothing on top (what that file would break: docs/development.md,
// "n8n's verification, and why `n8n.strict` is false").
import { config } from '@n8n/node-cli/eslint';

export default [
	{
		ignores: ['dist/**', 'node_modules/**', '.cache/**', 'coverage/**', 'test/**', '*.js', '*.mjs'],
	},
	...config,
	{ linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'error' } },
];
