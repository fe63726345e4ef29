#!/usr/bin/env node
// The bin is TypeScript, run through tsx's require hook, so that it works straight after
// `npm ci` with nothing to build first. (A namespaced hook would also tag the paths jest
// resolves for its own runtime, which jest then cannot open.)
require('tsx/cjs/api').register();

require('../cli.ts')
  .main(process.argv)
  .then((code) => process.exit(code))
  .catch((error) => {
    console.error(`messaging-contract: ${error && error.stack ? error.stack : error}`);
    process.exit(2);
  });
