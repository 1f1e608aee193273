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
  // Two workers on CI's two cores: most suites spend their time waiting on servers (PostgreSQL,
  // gRPC, child processes), so the run takes about half as long as one worker's. Each worker is
  // a process of its own, recycled between files once it holds more than 1.5 GB: one process for
  // every file grew to 6.8 GB, and its collections slowed the later suites past their timeouts.
  maxWorkers: 2,
  workerIdleMemoryLimit: '1.5GB',
  // Hooks and tests under two workers' load: a stack's start took over 30 s once.
  testTimeout: 60000,
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.js'],
};
