import net from 'node:net';
import { CONNECTION_LIMITS, listen } from '../src/express/server';

/** Sends raw bytes and resolves with everything the server wrote before it closed the socket. */
function hold(port: number, bytes: string): Promise<{ text: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ text, ms: Date.now() - started }));
    socket.write(bytes);
  });
}

describe('Connection limits (a client cannot hold the server)', () => {
  it('are far below Node’s defaults', () => {
    expect(CONNECTION_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(10_000);
    expect(CONNECTION_LIMITS.requestTimeoutMs).toBeLessThanOrEqual(30_000);
    expect(CONNECTION_LIMITS.maxConnections).toBeGreaterThan(0);
  });

  it('closes a half-sent head after the head timeout, with a 408 error object', async () => {
    const server = await listen({
      contacts: 1,
      messages: 0,
      connectionLimits: { headersTimeoutMs: 300, requestTimeoutMs: 600 },
    });
    try {
      const { text, ms } = await hold(
        Number(new URL(server.url).port),
        'GET /v1/contacts HTTP/1.1\r\nHost: x\r\n',
      );
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(text).toContain('"code":"request_timeout"');
      expect(text).toMatch(/\r\nAccess-Control-Allow-Origin: \*\r\n/);
      expect(ms).toBeLessThan(5000);
    } finally {
      await server.close();
    }
  });

  it('closes connections beyond the maximum at once', async () => {
    const server = await listen({ contacts: 1, messages: 0, connectionLimits: { maxConnections: 2 } });
    const port = Number(new URL(server.url).port);
    const open = [net.connect(port, '127.0.0.1'), net.connect(port, '127.0.0.1')];
    try {
      await new Promise((r) => setTimeout(r, 100));
      const { text } = await hold(
        port,
        'GET /v1/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n\r\n',
      );
      expect(text).toBe('');
    } finally {
      for (const socket of open) socket.destroy();
      server.server.closeAllConnections();
      await server.close();
    }
  });
});

describe('Requests and responses made in Express’s shape', () => {
  it('are built with the prototypes Express gives them, and answer as before (GET, HEAD, POST)', async () => {
    const server = await listen({ contacts: 3, messages: 6 });
    try {
      const shapes: boolean[][] = [];
      server.server.prependListener('request', (req, res) =>
        shapes.push([
          Object.getPrototypeOf(req) === server.app.request,
          Object.getPrototypeOf(res) === server.app.response,
        ]),
      );
      const headers = { authorization: 'Bearer shape' };
      const list = await fetch(`${server.url}/v1/contacts?limit=1`, { headers });
      expect(list.status).toBe(200);
      const [contact] = ((await list.json()) as { data: { conversation_id: string }[] }).data;
      const head = await fetch(`${server.url}/v1/contacts`, { method: 'HEAD', headers });
      expect([head.status, await head.text()]).toEqual([200, '']);
      const sent = await fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: `conversation_id=${contact!.conversation_id}&message=shaped`,
      });
      expect(sent.status).toBe(201);
      expect(((await sent.json()) as { message: string }).message).toBe('shaped');
      expect(shapes).toEqual([
        [true, true],
        [true, true],
        [true, true],
      ]);
    } finally {
      await server.close();
    }
  });
});
