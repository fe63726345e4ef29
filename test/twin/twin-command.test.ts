import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadFixtureFile } from '../../src/fixture-file';
import { listen } from '../../src/express/server';
import { runBin, type KitRun } from '../contract-kit/harness';
import { STAGING_HARD_VARIANTS, startStaging } from '../contract-kit/staging';
import { beside } from './mirrored';

/**
 * `messaging-contract twin` end to end, as a team would run it against its staging: over HTTPS
 * with a certificate trusted through NODE_EXTRA_CA_CERTS (tls/: a test CA and a certificate for
 * localhost and 127.0.0.1 it signed; its key was thrown away), under a path prefix, with a rate
 * limit. Then the twin it wrote is served, and the kit finds on it the profile it found on the server.
 */
const TLS = path.join(__dirname, 'tls');

/** An HTTPS front for a server: what a staging server behind TLS looks like. */
async function httpsFront(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const { port } = new URL(target);
  const server = https.createServer(
    {
      key: fs.readFileSync(path.join(TLS, 'server.key')),
      cert: fs.readFileSync(path.join(TLS, 'server.pem')),
    },
    (req, res) => {
      const upstream = http.request(
        { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    },
  );
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

describe('messaging-contract twin', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twin-'));
  const options = {
    ...STAGING_HARD_VARIANTS.find((v) => v.name === 'rate limited with Retry-After')!.options,
    prefix: '/api',
  };
  let run: KitRun;
  let served: KitRun;
  let serverProfile: Record<string, any>;

  beforeAll(async () => {
    const staging = await startStaging(options);
    const front = await httpsFront(staging.url);
    try {
      run = await runBin(
        ['twin', '--from', `${front.url}/api`, '--token', 'twin-staging', '--out-dir', dir],
        { NODE_EXTRA_CA_CERTS: path.join(TLS, 'ca.pem') },
      );
    } finally {
      await front.close();
      await staging.close();
    }
    serverProfile = JSON.parse(fs.readFileSync(path.join(dir, 'profile.json'), 'utf8'));
    // The mock as its own process would serve it (the harness's wrapper rewrites answers' headers).
    const twin = await listen({
      port: 0,
      data: loadFixtureFile(path.join(dir, 'fixture.json')),
      conventions: serverProfile,
    });
    try {
      served = await runBin([
        '--base-url',
        `${twin.url}/api`,
        '--token',
        'twin-served',
        '--profile-out',
        path.join(dir, 'twin.json'),
      ]);
    } finally {
      await twin.close();
    }
  }, 420_000);

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('records the account and observes the conventions of an HTTPS server under /api with a rate limit', () => {
    expect(run.code).toBe(0);
    expect(run.output).toMatch(
      /Twin written\. Serve it: npx messaging-mock --fixtures .*fixture\.json --conventions .*profile\.json/,
    );
    const fixture = loadFixtureFile(path.join(dir, 'fixture.json'));
    expect(fixture.contacts.length).toBe(options.seedContacts);
    expect(serverProfile.server.pathPrefix).toBe('/api');
    expect(serverProfile.paging.value).toEqual(expect.objectContaining({ kind: 'body-token' }));
  });

  it('serves a twin that passes the documented rule set, and shows the profile the server showed', () => {
    expect({ code: served.code, problems: served.json?.problems }).toEqual({ code: 0, problems: [] });
    const twinProfile = JSON.parse(fs.readFileSync(path.join(dir, 'twin.json'), 'utf8'));
    const { server, twin } = beside(serverProfile, twinProfile);
    expect(twin).toEqual(server);
  });

  it('says what is wrong with its options, exit 2', async () => {
    const bad = await runBin(['twin', '--from', 'not a url', '--token', 't']);
    expect(bad.code).toBe(2);
    expect(bad.output).toMatch(/Invalid URL/);
  });
});
