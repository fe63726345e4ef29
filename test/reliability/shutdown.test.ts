/**
 * Shutdown of the real process (issue 6, item 7): on SIGINT or SIGTERM the server stops
 * accepting, finishes the requests in flight and exits 0 within 5 seconds; a second signal
 * exits at once. The in-flight request is held open with `Prefer: delay=…`, or by a client that
 * never finishes sending its body. Margins are generous: these are limits of behaviour, not speed.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';

const BIN = path.join(__dirname, '..', '..', 'dist', 'cli', 'bin.js');

interface Mock {
  child: ChildProcessWithoutNullStreams;
  port: number;
  output: () => string;
  /** Resolves with the exit code and the milliseconds since `since`. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

async function start(): Promise<Mock> {
  const child = spawn(process.execPath, [
    BIN,
    '--port',
    '0',
    '--quiet',
    '--contacts',
    '3',
    '--messages',
    '5',
  ]);
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(({ code }) => reject(new Error(`exited with ${code} before listening: ${output}`)));
  });
  return { child, port, output: () => output, exited };
}

interface Answer {
  status: number;
  body: string;
}

/** A request on its own connection; rejects when the connection is cut. */
function get(port: number, pathname: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: pathname,
        agent: false,
        headers: { Authorization: 'Bearer shutdown', ...headers },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let running: Mock | undefined;

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error('dist/cli/bin.js is missing: run `npm run build` (npm test does it first).');
});

afterEach(() => {
  // Never leave a server behind, whatever the test did.
  if (running && running.child.exitCode === null && running.child.signalCode === null)
    running.child.kill('SIGKILL');
  running = undefined;
});

describe.each(['SIGTERM', 'SIGINT'] as const)('On %s, the mock (dist/cli/bin.js)', (signal) => {
  it('finishes the request in flight, stops accepting, and exits 0 within 5 seconds', async () => {
    const mock = (running = await start());
    // Warm up, and check the switch that holds a request open is there.
    expect((await get(mock.port, '/v1/contacts?limit=1')).status).toBe(200);

    const inFlight = get(mock.port, '/v1/contacts?limit=1', { Prefer: 'delay=1500' });
    await sleep(300);
    const signalled = Date.now();
    mock.child.kill(signal);

    // The request that was in flight still gets its whole answer.
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual(expect.objectContaining({ data: expect.any(Array) }));

    const { code, at } = await mock.exited;
    expect(code).toBe(0);
    expect(at - signalled).toBeLessThan(5000 + 1000); // 5 s, plus slack for a loaded machine
    expect(mock.output()).toMatch(new RegExp(`${signal}: finishing requests in flight`));
    // Stopped accepting: nothing listens on the port any more.
    expect(await connects(mock.port)).toBe(false);
  }, 20_000);

  it('refuses new connections while it finishes the one in flight', async () => {
    const mock = (running = await start());
    const inFlight = get(mock.port, '/v1/contacts?limit=1', { Prefer: 'delay=2000' });
    await sleep(300);
    mock.child.kill(signal);
    await sleep(300);
    // Still finishing the slow request, but no longer accepting.
    expect(mock.child.exitCode).toBeNull();
    expect(await connects(mock.port)).toBe(false);
    expect((await inFlight).status).toBe(200);
    expect((await mock.exited).code).toBe(0);
  }, 20_000);

  it('exits 0 within 5 seconds even when a client never finishes its request', async () => {
    const mock = (running = await start());
    // A body announced as 1000 bytes of which only 10 ever come.
    const socket = net.connect(mock.port, '127.0.0.1');
    socket.on('error', () => {});
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      'POST /v1/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s\r\n' +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"usernam',
    );
    // An idle keep-alive connection too, which must not hold the exit back either.
    const idle = net.connect(mock.port, '127.0.0.1');
    idle.on('error', () => {});
    await new Promise((r) => idle.once('connect', r));
    await sleep(300);
    const signalled = Date.now();
    mock.child.kill(signal);
    const { code, at } = await mock.exited;
    socket.destroy();
    idle.destroy();
    expect(code).toBe(0);
    expect(at - signalled).toBeLessThan(5000 + 1000);
  }, 20_000);

  it('exits at once on a second signal, without waiting for the request in flight', async () => {
    const mock = (running = await start());
    const inFlight = get(mock.port, '/v1/contacts?limit=1', { Prefer: 'delay=20000' }).catch(
      (error: Error) => error,
    );
    await sleep(300);
    const first = Date.now();
    mock.child.kill(signal);
    await sleep(300);
    mock.child.kill(signal);
    const { code, at } = await mock.exited;
    expect(code).toBe(0);
    // Well before the 5-second bound that the first signal alone would take.
    expect(at - first).toBeLessThan(3500);
    // The slow request was cut, not answered.
    expect(String(await inFlight)).toMatch(/socket hang up|ECONNRESET/);
  }, 20_000);
});
