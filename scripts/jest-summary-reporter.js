/**
 * Prints one plain closing line, "Tests: N passed, N failed, N skipped", that CI tooling reads
 * regardless of the runner (jest's own summary has a different shape).
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    const line = `Tests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped`;
    // On exit, so that it is the very last line, after jest's own summary.
    process.once('exit', () => process.stdout.write(`\n${line}\n`));
  }
}

module.exports = SummaryReporter;
