import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * The kit's connections (contract-tests/http/http.ts): kept open between the requests that may be
 * sent twice, a new one for each POST, and a request on a kept-open connection that the server
 * closed without a byte of answer sent again at once on a new one, and counted as transient; and
 * answers whose headers are longer than Node's default reads are read, as a browser reads them.
 */
describe('the kit’s kept-open connections', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kept-open-'));
  /** Each request as the server saw it: method, path, and its place on its connection (1: first). */
  const seen: string[] = [];
  const served = new WeakMap<Socket, number>();
  let connections = 0;
  const server = http.createServer((req, res) => {
    const place = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, place);
    seen.push(`${req.method} ${req.url} ${place}`);
    // As a server whose idle timer closed the connection just as this request went out on it.
    if (req.url === '/v1/closing' && place > 1) {
      req.socket.destroy();
      return;
    }
    req.resume();
    req.on('end', () => {
      // As a server whose Link header names two long cursors: more than Node reads by default.
      if (req.url === '/v1/long-headers') res.setHeader('Link', `<${'c'.repeat(40_000)}>; rel="next"`);
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
  });
  server.on('connection', () => (connections += 1));
  server.keepAliveTimeout = 60_000;
  let send: typeof import('../../contract-tests/http/http').send;

  beforeAll(async () => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    process.env.CONTRACT_BASE_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    process.env.CONTRACT_TOKEN = 'kept-open';
    process.env.CONTRACT_RESULTS_DIR = dir;
    jest.resetModules();
    ({ send } = require('../../contract-tests/http/http') as typeof import('../../contract-tests/http/http'));
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    seen.length = 0;
    connections = 0;
  });

  const transients = () =>
    fs
      .readdirSync(dir)
      .flatMap((file) => fs.readFileSync(path.join(dir, file), 'utf8').trim().split('\n'))
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { kind: string; what?: string })
      .filter((line) => line.kind === 'transient')
      .map((line) => line.what);

  it('keeps one connection for GET, PUT and DELETE, and opens a new one for each POST', async () => {
    for (const [method, at] of [
      ['GET', '/v1/a'],
      ['PUT', '/v1/a'],
      ['POST', '/v1/a'],
      ['DELETE', '/v1/a'],
      ['POST', '/v1/a'],
      ['GET', '/v1/a'],
    ] as const)
      expect(
        (await send(method, at, method === 'PUT' || method === 'POST' ? { form: { x: '1' } } : {})).status,
      ).toBe(200);
    expect(seen).toEqual([
      'GET /v1/a 1',
      'PUT /v1/a 2',
      'POST /v1/a 1',
      'DELETE /v1/a 3',
      'POST /v1/a 1',
      'GET /v1/a 4',
    ]);
    expect(connections).toBe(3);
  });

  it('sends a request that a kept-open connection lost again at once on a new one, and counts it as transient', async () => {
    expect((await send('GET', '/v1/a')).status).toBe(200);
    const again = await send('GET', '/v1/closing');
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: { ok: true } });
    const place = Number(seen[0]!.split(' ')[2]);
    expect(seen).toEqual([`GET /v1/a ${place}`, `GET /v1/closing ${place + 1}`, 'GET /v1/closing 1']);
    expect(transients()).toEqual([
      expect.stringMatching(
        /^GET http:\/\/\S+\/v1\/closing: (ECONNRESET|socket hang up) \(a kept-open connection\)$/,
      ),
    ]);
  });

  it('reads an answer of 40 KB of headers, where Node by itself reads 16 KB: on a kept-open connection and on a POST’s own', async () => {
    const transientBefore = transients().length;
    for (const method of ['GET', 'POST'] as const) {
      const answer = await send(method, '/v1/long-headers', method === 'POST' ? { form: { x: '1' } } : {});
      expect({ status: answer.status, link: answer.headers.link?.length }).toEqual({
        status: 200,
        link: 40_014,
      });
    }
    expect(transients()).toHaveLength(transientBefore);
  });
});
