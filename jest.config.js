/**
 * Unit and in-process integration tests of the mock server. The contract kit has its own config,
 * and so has the package test (test/package/), which `npm test` runs as a part of its own.
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // A worker per core, where jest keeps one for itself: on a 2-core machine (CI's) that is one
  // worker, and the other core stayed idle through every file that does not run the kit (those that
  // do keep both busy with the kit's processes). On this 2-core machine the whole run took 1,272 s
  // with two workers, against 1,430 to 1,530 s with one.
  maxWorkers: '100%',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/package/'],
  // esbuild strips the types (the typecheck part of `npm test` checks them): ts-jest compiled every
  // file again in each worker of a fresh clone, with a language service of its own.
  transform: { '^.+\\.(ts|m?js)$': '<rootDir>/contract-tests/esbuild-transform.js' },
  // MSW's dependencies that are ES modules only (see contract-tests/esbuild-transform.js); the rest stay as they are.
  transformIgnorePatterns: ['/node_modules/(?!(rettime|until-async|@open-draft/deferred-promise)/)'],
};
