#!/usr/bin/env node
/**
 * Whether an n8n release installs from the npm registry this machine reaches: n8n pins its own
 * packages (n8n-core, @n8n/…) to exact versions, and a registry that lacks one of them fails the
 * install after a minute of resolving. This reads n8n's own packages, and theirs, one by one.
 *
 *   node test/dev/installable.js 2.41.3
 *
 * prints each missing package and exits 1, or says that all are there. The version to test is
 * set in test/e2e/n8n.ts (N8N_VERSION).
 */
const { execFileSync } = require('child_process');

/** A package's dependencies, or undefined when the registry does not have that version. */
function dependenciesOf(spec) {
	try {
		const out = execFileSync('npm', ['view', spec, 'version', 'dependencies', '--json'], {
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		});
		const view = JSON.parse(out || 'null');
		return view ? (view.dependencies ?? {}) : undefined;
	} catch {
		return undefined;
	}
}

function main() {
	const version = process.argv[2];
	if (!version) {
		console.error('Usage: node test/dev/installable.js <n8n version>');
		process.exit(2);
	}
	const seen = new Set();
	const missing = [];
	const queue = [`n8n@${version}`];
	while (queue.length) {
		const spec = queue.shift();
		if (seen.has(spec)) continue;
		seen.add(spec);
		const dependencies = dependenciesOf(spec);
		if (!dependencies) {
			missing.push(spec);
			continue;
		}
		for (const [name, range] of Object.entries(dependencies))
			if (/^(@n8n\/|n8n-)/.test(name) && /^\d+\.\d+\.\d+$/.test(range))
				queue.push(`${name}@${range}`);
	}
	if (missing.length) {
		console.log(
			`n8n ${version} does not install from this registry: ${missing.length} of its ${seen.size} own packages are missing:`,
		);
		for (const spec of missing) console.log(`  ${spec}`);
		process.exit(1);
	}
	console.log(`n8n ${version}: all ${seen.size} of its own packages are in the registry.`);
}

main();
