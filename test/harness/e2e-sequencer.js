/**
 * The order in which Jest starts the end-to-end files, three at a time (jest.e2e.config.js), each
 * worker taking the next file when its last one ends: queue mode first, beside the server file,
 * which mostly waits on n8n's polls, and the CLI file (about three minutes beside them), so that
 * queue mode has measured the rate limit before `npm run dev:queue` (dev.e2e.ts, the longest file,
 * next in line) starts another queue-mode stack on the same two cores; then the longest first. The
 * seconds are each file's time in one run of the suite two at a time on a 2-core machine
 * (docs/development.md); a file not listed goes last.
 */
const path = require('path');

const ORDER = [
	['queue.e2e.ts', 292],
	['server.e2e.ts', 255],
	['cli.e2e.ts', 81],
	['dev.e2e.ts', 561],
	['send-and-wait.e2e.ts', 234],
	['builder.e2e.ts', 173],
	['retry.e2e.ts', 140],
	['mcp.e2e.ts', 109],
	['agent.e2e.ts', 108],
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
