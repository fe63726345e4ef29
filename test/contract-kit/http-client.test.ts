import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * The kit's HTTP client (contract-tests/http/http.ts): the supertest that the kit's jest environment
 * (contract-tests/environment.js) loaded once for the process, else its own; and a request still on
 * its way when the run's results folder is gone (the run has ended) answered, with nothing written.
 */
describe('the kit’s HTTP client', () => {
  const KIT_SUPERTEST = '__messagingContractSupertest';
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
  });
  let dir: string;

  beforeAll(async () => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    process.env.CONTRACT_BASE_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    process.env.CONTRACT_TOKEN = 'http-client';
  });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'http-client-'));
    process.env.CONTRACT_RESULTS_DIR = dir;
    jest.resetModules();
  });

  afterEach(() => {
    delete (globalThis as Record<string, unknown>)[KIT_SUPERTEST];
    fs.rmSync(dir, { recursive: true, force: true });
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  const load = () =>
    require('../../contract-tests/http/http') as typeof import('../../contract-tests/http/http');

  it('gives each test file the supertest the process loaded, once', async () => {
    const KitEnvironment =
      require('../../contract-tests/environment') as typeof import('jest-environment-node').TestEnvironment;
    const config = {
      projectConfig: { testEnvironmentOptions: {}, fakeTimers: {}, globals: {} },
      globalConfig: {},
    } as unknown as ConstructorParameters<typeof KitEnvironment>[0];
    const context = { console, docblockPragmas: {}, testPath: __filename };
    const [one, two] = [new KitEnvironment(config, context), new KitEnvironment(config, context)];
    try {
      expect(one.global[KIT_SUPERTEST]).toBe(require('supertest'));
      expect(two.global[KIT_SUPERTEST]).toBe(one.global[KIT_SUPERTEST]);
    } finally {
      await Promise.all([one.teardown(), two.teardown()]);
    }
  });

  it('sends through the supertest the kit’s environment gives, when it gives one', async () => {
    const real = require('supertest') as typeof import('supertest');
    const bases: string[] = [];
    (globalThis as Record<string, unknown>)[KIT_SUPERTEST] = (base: string) => {
      bases.push(base);
      return real(base);
    };
    const { send } = load();
    expect((await send('GET', '/v1/a')).status).toBe(200);
    expect(bases).toEqual([process.env.CONTRACT_BASE_URL]);
  });

  it('answers a request sent after the run’s results folder is gone, and writes nothing', async () => {
    const { send } = load();
    fs.rmSync(dir, { recursive: true, force: true });
    expect((await send('GET', '/v1/a')).status).toBe(200);
    expect((await send('PUT', '/v1/a', { form: { x: '1' } })).status).toBe(200);
    expect(fs.existsSync(dir)).toBe(false);
  });
});
