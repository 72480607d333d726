// Prints how long each test file took (slowest first) and the plain closing line
// "N passed, N failed, N skipped" that CI reads after Jest's own summary.
const path = require('path');

class SummaryReporter {
	constructor() {
		this.files = [];
	}

	onTestResult(_test, result) {
		const { start, end } = result.perfStats;
		this.files.push([path.relative(process.cwd(), result.testFilePath), (end - start) / 1000]);
	}

	onRunComplete(_contexts, results) {
		const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
		const slowest = this.files.sort((a, b) => b[1] - a[1]).slice(0, 12);
		const lines = slowest.map(([file, s]) => `  ${s.toFixed(0).padStart(5)} s  ${file}`);
		process.stdout.write(`\nSlowest test files:\n${lines.join('\n')}\n`);
		process.stdout.write(
			`\nTests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped\n`,
		);
	}
}
module.exports = SummaryReporter;
