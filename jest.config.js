/**
 * One jest run over every workspace. Tests import workspace packages from their TypeScript
 * sources (swc strips types; `npm test` type-checks first through its `pretest` build).
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/charts', '<rootDir>/scripts'],
  testMatch: ['**/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  moduleNameMapper: {
    '^@vus/grpc/types/(.*)$': '<rootDir>/libs/grpc/src/generated/vus/$1',
    // Test helpers live beside their lib but outside its entry point.
    '^@vus/(db|events)/testing$': '<rootDir>/libs/$1/src/testing',
    '^@vus/(core|grpc|db|events|limits|blob|media|models|testing|clients|fetch)$': '<rootDir>/libs/$1/src',
    '^@vus/(gateway|index-service|task-service|billing-service|search-service|embedded)$': '<rootDir>/services/$1/src/main.ts',
  },
  testTimeout: 30000,
  // A suite that fails mid-way can leave a client (Kafka, Redis, gRPC) reconnecting forever; CI must
  // end with the results rather than hang.
  forceExit: true,
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.js'],
};
