/**
 * `npm run test:unit`: the tests that touch nothing outside the process (no database, server,
 * child process, model or media file) — named `*.test.ts`; those that do are `*.int.test.ts` or
 * `*.e2e.test.ts`. Under a minute on two cores; `npm test` runs everything.
 */
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testPathIgnorePatterns: [...base.testPathIgnorePatterns, '\\.int\\.test\\.ts$', '\\.e2e\\.test\\.ts$'],
};
