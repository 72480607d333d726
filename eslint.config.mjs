// The rules n8n's community-package scanner runs: eslint-plugin-n8n-nodes-base (community on
// package.json, credentials, nodes) and @n8n/eslint-plugin-community-nodes (recommended).
// Inline disable comments are not honoured (noInlineConfig), as in the scanner.
import tsParser from '@typescript-eslint/parser';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';

const base = { 'n8n-nodes-base': n8nNodesBase };

export default [
	{ ignores: ['dist/**', 'node_modules/**', '.cache/**', 'coverage/**'] },
	{ linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'error' } },
	{
		files: ['**/*.ts'],
		languageOptions: { parser: tsParser, parserOptions: { sourceType: 'module' } },
	},
	{
		files: ['package.json'],
		languageOptions: { parser: tsParser, parserOptions: { extraFileExtensions: ['.json'] } },
		plugins: base,
		rules: n8nNodesBase.configs.community.rules,
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: base,
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// Wants a camelCase slug and says itself it is "only applicable to nodes in the main
			// repository"; @n8n/community-nodes/credential-documentation-url (the scanner's rule)
			// wants a full URL for a community package. The scanner's rule wins.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: base,
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// These two want the string 'main', which @n8n/community-nodes/node-connection-type-literal
			// (the rule n8n's scanner runs) forbids in favour of NodeConnectionTypes.Main. The newer
			// rule wins; they cannot both pass.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
	{
		...n8nCommunityNodesPlugin.configs.recommended,
		files: ['package.json', 'credentials/**/*.ts', 'nodes/**/*.ts'],
	},
];
