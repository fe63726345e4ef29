/**
 * Bytes on a raw socket, as an attacker sends them (issue 6, items 1 and 8), against `listen()`
 * from src/express/server.ts. Most malformed requests never reach Express: Node's HTTP parser refuses
 * them, and by default writes a bare status line with no error object and no nosniff. The
 * handlers `answerClientError` and `answerExpectationFailed` (src/express/client-errors.ts) answer them
 * properly; src/express/server.ts wires them, as the last block also shows on a server wired by hand.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/express/app';
import { answerClientError, answerExpectationFailed } from '../../src/express/client-errors';
import { listen, type RunningServer } from '../../src/express/server';
import { errorObjectProblems } from './support';

let running: RunningServer;
let port: number;

beforeAll(async () => {
  running = await listen({ port: 0, contacts: 3, messages: 5 });
  port = Number(new URL(running.url).port);
});

afterAll(async () => {
  running.server.closeAllConnections();
  await running.close();
});

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes the bytes, reads until the server closes or goes quiet, and splits the answers. */
function raw(payload: string | Buffer, quietMs = 400, to = port): Promise<Parsed[]> {
  return new Promise((resolve) => {
    const socket = net.connect(to, '127.0.0.1');
    let data = '';
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parse(data));
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(done, quietMs);
    };
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
      arm();
    });
    socket.on('error', () => {});
    socket.on('close', done);
    socket.write(payload);
    arm();
  });
}

function parse(text: string): Parsed[] {
  const answers: Parsed[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const at = line.indexOf(':');
      headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
    }
    rest = rest.slice(end + 4);
    let body = '';
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      body = Buffer.from(rest, 'latin1').subarray(0, length).toString();
      rest = Buffer.from(rest, 'latin1').subarray(length).toString('latin1');
    } else if (headers['transfer-encoding'] === 'chunked') {
      const close = rest.indexOf('0\r\n\r\n');
      body = rest.slice(0, close);
      rest = rest.slice(close + 5);
    }
    answers.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
  }
  return answers;
}

const AUTH = 'Authorization: Bearer raw\r\n';

function expectErrorAnswer(answer: Parsed | undefined, status: number): void {
  expect(answer?.status).toBe(status);
  expect(answer!.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer!.headers['x-content-type-options']).toBe('nosniff');
  // C19: a page of any origin may read every refusal, those Node's parser and guards cause too.
  expect(answer!.headers['access-control-allow-origin']).toBe('*');
  expect(errorObjectProblems(JSON.parse(answer!.body), status)).toEqual([]);
}

describe('Requests that Express sees', () => {
  it('answers TRACE 405 with the error object, never echoing the request back', async () => {
    const [answer] = await raw(`TRACE /v1/contacts HTTP/1.1\r\nHost: x\r\n${AUTH}Cookie: secret\r\n\r\n`);
    expectErrorAnswer(answer, 405);
    expect(answer!.body).not.toContain('secret');
  });

  it('routes an absolute-form target by its path alone, whatever host it names', async () => {
    const [answer] = await raw(
      `GET http://evil.example/v1/contacts?limit=1 HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`,
    );
    expect(answer?.status).toBe(200);
  });

  it('answers 50 pipelined requests in order on one connection, each with its own headers', async () => {
    const one = (i: number) => `GET /v1/contacts?limit=${(i % 3) + 1} HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`;
    const answers = await raw(Array.from({ length: 50 }, (_, i) => one(i)).join(''), 800);
    expect(answers).toHaveLength(50);
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect((JSON.parse(answer.body) as { data: unknown[] }).data).toHaveLength((i % 3) + 1);
    });
  });

  it('treats an Upgrade request as a plain request, and HTTP/1.0 without Host too', async () => {
    const [upgrade] = await raw(
      `GET /v1/contacts?limit=1 HTTP/1.1\r\nHost: x\r\n${AUTH}Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n`,
    );
    expect(upgrade?.status).toBe(200);
    const [old] = await raw(`GET /v1/contacts?limit=1 HTTP/1.0\r\n${AUTH}\r\n`);
    expect(old?.status).toBe(200);
  });

  it('answers a percent-encoding that does not decode with the error object', async () => {
    const [path] = await raw(`GET /v1/contacts/%E0%A4%A HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`);
    expectErrorAnswer(path, 400);
    const [query] = await raw(`GET /v1/contacts?limit=%E0%A4%A HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`);
    expectErrorAnswer(query, 400);
  });

  it('keeps serving others while a client holds a connection open sending nothing', async () => {
    const idle = net.connect(port, '127.0.0.1');
    idle.on('error', () => {});
    idle.write('POST /v1/contacts HTTP/1.1\r\nHost: x\r\n');
    const [answer] = await raw(`GET /v1/contacts?limit=1 HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`);
    expect(answer?.status).toBe(200);
    idle.destroy();
  });
});

describe("Requests that Node's HTTP parser refuses before Express", () => {
  it('answers a malformed request line with the error object', async () => {
    expectErrorAnswer((await raw('GARBAGE\r\n\r\n'))[0], 400);
  });

  it('answers a NUL in a header value with the error object', async () => {
    expectErrorAnswer(
      (await raw(`GET /v1/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\0b\r\n\r\n`))[0],
      400,
    );
  });

  it('answers a header section over 16 kB with 431 and the error object', async () => {
    const big = `GET /v1/contacts HTTP/1.1\r\nHost: x\r\n${AUTH}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    expectErrorAnswer((await raw(big))[0], 431);
  });

  it('answers Content-Length together with Transfer-Encoding (request smuggling) with the error object', async () => {
    const smuggle =
      `POST /v1/contacts HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Length: 5\r\n` +
      'Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n';
    expectErrorAnswer((await raw(smuggle))[0], 400);
  });

  it('answers an Expect header it cannot meet with 417 and the error object', async () => {
    const expectation = `POST /v1/contacts HTTP/1.1\r\nHost: x\r\n${AUTH}Expect: teapot\r\nContent-Length: 0\r\n\r\n`;
    expectErrorAnswer((await raw(expectation))[0], 417);
  });

  it('still refuses them all, and closes those connections, without crashing', async () => {
    for (const payload of [
      'GARBAGE\r\n\r\n',
      `GET /v1/contacts HTTP/1.1\r\nHost: x\r\nX: a\0b\r\n\r\n`,
      `GET /v1/contacts HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      `POST /v1/contacts HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      `POST /v1/contacts HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n`,
      `FOO /v1/contacts HTTP/1.1\r\nHost: x\r\n\r\n`,
    ]) {
      const [answer] = await raw(payload);
      expect(answer?.status).toBeGreaterThanOrEqual(400);
      expect(answer?.status).toBeLessThan(500);
      expect(JSON.parse(answer?.body ?? '')).toEqual(expect.objectContaining({ type: 'invalid_request' }));
    }
    const [after] = await raw(`GET /v1/contacts?limit=1 HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`);
    expect(after?.status).toBe(200);
  });
});

describe('With the handlers of src/express/client-errors.ts wired, as src/express/server.ts is asked to', () => {
  let wired: http.Server;
  let wiredPort: number;

  beforeAll(async () => {
    // Short timeouts, checked often, so that a 408 comes within the test.
    wired = http.createServer({ connectionsCheckingInterval: 100 }, createApp({ contacts: 3, messages: 5 }));
    wired.headersTimeout = 500;
    wired.requestTimeout = 1000;
    wired.on('clientError', answerClientError);
    wired.on('checkExpectation', answerExpectationFailed);
    await new Promise<void>((resolve) => wired.listen(0, '127.0.0.1', resolve));
    wiredPort = (wired.address() as AddressInfo).port;
  });

  afterAll(async () => {
    wired.closeAllConnections();
    await new Promise((resolve) => wired.close(resolve));
  });

  const code = (answer: Parsed | undefined) => (JSON.parse(answer?.body ?? '{}') as { code?: string }).code;

  it.each([
    ['a malformed request line', 400, 'malformed_request', 'GARBAGE\r\n\r\n'],
    [
      'a NUL in a header value',
      400,
      'malformed_request',
      'GET /v1/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\0b\r\n\r\n',
    ],
    ['an unknown method', 400, 'malformed_request', 'FOO /v1/contacts HTTP/1.1\r\nHost: x\r\n\r\n'],
    [
      'Content-Length with Transfer-Encoding',
      400,
      'malformed_request',
      `POST /v1/contacts HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
    [
      'a head over 16 kB',
      431,
      'headers_too_large',
      `GET /v1/contacts HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ],
    [
      'an Expect it cannot meet',
      417,
      'expectation_failed',
      `POST /v1/contacts HTTP/1.1\r\nHost: x\r\n${AUTH}Expect: teapot\r\nContent-Length: 0\r\n\r\n`,
    ],
  ] as const)('answers %s with %i %s and the error object', async (_name, status, expected, payload) => {
    const [answer] = await raw(payload, 400, wiredPort);
    expectErrorAnswer(answer, status);
    expect(code(answer)).toBe(expected);
  });

  it('answers a head that stops coming with 408 and the error object', async () => {
    const [answer] = await raw('GET /v1/contacts HTTP/1.1\r\nHost: x\r\n', 3000, wiredPort);
    expectErrorAnswer(answer, 408);
    expect(code(answer)).toBe('request_timeout');
  });

  it('still serves well-formed requests, pipelined ones included', async () => {
    const one = `GET /v1/contacts?limit=1 HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`;
    const answers = await raw(one + one, 400, wiredPort);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
  });
});
