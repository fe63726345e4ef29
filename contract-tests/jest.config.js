/**
 * The contract kit: black-box tests of a Messaging API server at CONTRACT_BASE_URL. Run it with
 * `npm run contract` or the `messaging-contract` bin, which set the environment and read the verdicts.
 */
/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/**/*.contract.ts'],
  transform: { '^.+\\.ts$': '<rootDir>/esbuild-transform.js' },
  // Each file makes its own data; no file depends on another's.
  testTimeout: 60_000,
};
