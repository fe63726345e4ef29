/**
 * The contract kit: black-box tests of a Messaging API server at CONTRACT_BASE_URL. Run it with
 * `npm run contract` or the `messaging-contract` bin, which set the environment and read the verdicts.
 *
 * The same file serves the kit in a clone (TypeScript, stripped by esbuild as it loads) and the kit
 * compiled by `npm run build` into dist/contract-tests (plain JavaScript, no transform), which is
 * what an installed package runs.
 */
const fs = require('node:fs');
const path = require('node:path');

const fromSource = fs.existsSync(path.join(__dirname, 'run.ts'));

/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  // Node's, with the kit's HTTP client loaded once per process (environment.js).
  testEnvironment: path.join(__dirname, 'environment.js'),
  testMatch: [`<rootDir>/**/*.contract.${fromSource ? 'ts' : 'js'}`],
  transform: fromSource ? { '^.+\\.ts$': '<rootDir>/esbuild-transform.js' } : {},
  // An installed kit lives under node_modules/, which jest leaves out of its search by default.
  testPathIgnorePatterns: [],
  haste: { retainAllFiles: true },
  // Each file makes its own data; no file depends on another's.
  testTimeout: 60_000,
};
