/**
 * The order in which Jest starts the end-to-end files, two at a time (jest.e2e.config.js), each
 * worker taking the next file when its last one ends: queue mode first, beside the server file,
 * which mostly waits on n8n's polls, so that its measure of the rate limit does not share the two
 * cores with another queue-mode stack (`npm run dev:queue` in dev.e2e.ts, the longest file, which
 * comes next); then the longest first, so that both workers end near the same time. The seconds
 * are each file's time in one run of the suite this way on a 2-core machine (docs/development.md);
 * a file not listed goes last.
 */
const path = require('path');

const ORDER = [
	['queue.e2e.ts', 297],
	['server.e2e.ts', 362],
	['dev.e2e.ts', 546],
	['send-and-wait.e2e.ts', 223],
	['builder.e2e.ts', 160],
	['retry.e2e.ts', 119],
	['agent.e2e.ts', 96],
	['mcp.e2e.ts', 99],
	['cli.e2e.ts', 78],
	['answer-page.e2e.ts', 18],
];

class EndToEndSequencer {
	sort(tests) {
		const rank = (test) => {
			const i = ORDER.findIndex(([name]) => name === path.basename(test.path));
			return i === -1 ? ORDER.length : i;
		};
		return [...tests].sort((a, b) => rank(a) - rank(b) || (a.path > b.path ? 1 : -1));
	}

	cacheResults() {}
}

module.exports = EndToEndSequencer;
module.exports.ORDER = ORDER;
