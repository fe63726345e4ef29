/**
 * The package test (`npm run test:package`, and a part of `npm test`): slow (it packs, installs
 * from the registry and runs both bins), so it is not part of the main jest run.
 */
/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/*.test.ts'],
  transform: { '^.+\\.ts$': '<rootDir>/../../contract-tests/esbuild-transform.js' },
  testTimeout: 120_000,
};
