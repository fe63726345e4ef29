/**
 * The kit's jest environment: Node's, with the HTTP client the kit's requests go through
 * (supertest, and superagent under it) loaded once per process and handed to each test file.
 * Jest gives every file a module registry of its own, so each of a run's files loaded supertest's
 * 120 modules again: a tenth of the kit's time. http/http.ts takes the one given here, and loads
 * its own where the kit's files run under another environment (a team's own jest config).
 */
const { TestEnvironment } = require('jest-environment-node');
const supertest = require('supertest');

/** The global name http/http.ts reads (KIT_SUPERTEST there). */
const KIT_SUPERTEST = '__messagingContractSupertest';

module.exports = class KitEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global[KIT_SUPERTEST] = supertest;
  }
};
