/**
 * One jest run over every workspace. Tests import workspace packages from their TypeScript
 * sources (swc strips types; `npm test` type-checks first through its `pretest` build).
 */
const { readdirSync } = require('node:fs');
const { join } = require('node:path');

/** The package folders under libs/ or services/, as a regex alternation. */
const workspaces = (dir) =>
  readdirSync(join(__dirname, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .join('|');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/charts', '<rootDir>/scripts', '<rootDir>/web'],
  testMatch: ['**/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  moduleNameMapper: {
    '^@vus/grpc/types/(.*)$': '<rootDir>/libs/grpc/src/generated/vus/$1',
    // Test helpers live beside their lib but outside its entry point.
    '^@vus/(db|events|telemetry)/testing$': '<rootDir>/libs/$1/src/testing',
    // Every workspace package by its folder: a new lib or service needs no line here.
    [`^@vus/(${workspaces('libs')})$`]: '<rootDir>/libs/$1/src',
    [`^@vus/(${workspaces('services')})$`]: '<rootDir>/services/$1/src/main.ts',
  },
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.js'],
};
