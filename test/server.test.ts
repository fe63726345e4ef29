import net from 'node:net';
import { CONNECTION_LIMITS, listen } from '../src/server';

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
