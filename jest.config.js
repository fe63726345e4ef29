/**
 * Unit and in-process integration tests of the mock server. The contract kit has its own config,
 * and so has the package test (test/package/), which `npm test` runs as a part of its own.
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/package/'],
  transform: { '^.+\\.ts$': 'ts-jest', '^.+\\.m?js$': '<rootDir>/contract-tests/esbuild-transform.js' },
  // MSW's dependencies that are ES modules only (see contract-tests/esbuild-transform.js); the rest stay as they are.
  transformIgnorePatterns: ['/node_modules/(?!(rettime|until-async|@open-draft/deferred-promise)/)'],
};
