/**
 * Prints one plain closing line, "Tests: N passed, N failed, N skipped", that CI tooling reads
 * regardless of the runner (jest's own summary has a different shape).
 *
 * Tests skipped for want of something on the machine are titled "<what>: skipped, <reason>"
 * (the real-speech suites without the speech recogniser's OS packages): before the closing line,
 * one line per reason names it and what it skipped, so a full run says once what is missing.
 */
const SKIPPED_FOR = /^(.*): skipped, (.+)$/;

class SummaryReporter {
  constructor() {
    /** reason → what it skipped */
    this.skippedFor = new Map();
  }

  onTestResult(_test, result) {
    for (const test of result.testResults) {
      const match = test.status === 'pending' ? SKIPPED_FOR.exec(test.title) : null;
      if (!match) continue;
      const [, what, reason] = match;
      this.skippedFor.set(reason, [...(this.skippedFor.get(reason) ?? []), what]);
    }
  }

  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    const skipped = [...this.skippedFor].map(([reason, what]) => `Skipped (${what.join('; ')}): ${reason}`);
    const line = `Tests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped`;
    // Written now: with forceExit, jest leaves without running 'exit' listeners' writes (a line
    // written on exit never appeared). Reporters run in order, so this follows jest's own summary.
    process.stdout.write(`\n${[...skipped, line].join('\n')}\n`);
  }
}

module.exports = SummaryReporter;
