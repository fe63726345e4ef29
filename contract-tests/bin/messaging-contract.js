#!/usr/bin/env node
// The kit's bin. Built (dist/contract-tests/bin/, what the package installs), it runs the
// compiled kit beside it. In a clone it runs the TypeScript sources through tsx's require hook,
// so that it works straight after `npm ci` with nothing to build first. (A namespaced hook would
// also tag the paths jest resolves for its own runtime, which jest then cannot open.)
const fs = require('node:fs');
const path = require('node:path');

function loadCli() {
  const compiled = path.join(__dirname, '..', 'cli.js');
  if (fs.existsSync(compiled)) return require(compiled);
  require('tsx/cjs/api').register();
  return require(path.join(__dirname, '..', 'cli.ts'));
}

let cli;
try {
  cli = loadCli();
} catch (error) {
  // A kit that cannot start judges nothing: exit 2, never 1 ("a rule failed").
  console.error(
    `messaging-contract: the kit could not start: ${error && error.message ? error.message : error}`,
  );
  process.exit(2);
}
cli
  .main(process.argv)
  .then((code) => process.exit(code))
  .catch((error) => {
    console.error(`messaging-contract: ${error && error.stack ? error.stack : error}`);
    process.exit(2);
  });
