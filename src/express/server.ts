import { IncomingMessage, ServerResponse, createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Express } from 'express';
import { createApp, type AppOptions, type MockLocals } from './app';
import { answerClientError, answerExpectationFailed } from './client-errors';

export interface RunningServer {
  /** The URL to use from this machine, e.g. `http://127.0.0.1:4010` (also when bound to 0.0.0.0). */
  url: string;
  /** What was bound, e.g. `http://0.0.0.0:4010`: the same as `url` unless on every interface. */
  bound: string;
  app: Express;
  server: Server;
  /** Stops accepting, lets requests in flight finish, then resolves. */
  close(): Promise<void>;
}

export const CONNECTION_LIMITS = {
  /** A request head must arrive within this. */
  headersTimeoutMs: 10_000,
  /** A whole request (head and body) must arrive within this; answering may take longer (Prefer: delay). */
  requestTimeoutMs: 30_000,
  /** Connections beyond this are closed at once. */
  maxConnections: 4096,
};

export type ConnectionLimits = typeof CONNECTION_LIMITS;

/** Starts the mock on `host:port`; port 0 picks a free one. */
export function listen(
  options: AppOptions & { port?: number; host?: string; connectionLimits?: Partial<ConnectionLimits> } = {},
): Promise<RunningServer> {
  const app = createApp(options);
  const host = options.host ?? '127.0.0.1';
  const limits = { ...CONNECTION_LIMITS, ...options.connectionLimits };
  return new Promise((resolve, reject) => {
    // Node's defaults hold a half-sent head 60 s (plus up to 30 s until its next check) and a
    // half-sent body 300 s: on a shared dev box a misbehaving client should hold far less.
    const server = createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
        ...expressShapedObjects(app),
      },
      app,
    );
    server.maxConnections = limits.maxConnections;
    // Requests that Node's HTTP parser refuses never reach Express: answer them in the same shape.
    server.on('clientError', answerClientError);
    server.on('checkExpectation', answerExpectationFailed);
    server.listen(options.port ?? 0, host);
    server.once('error', reject);
    server.once('listening', () => {
      const { port } = server.address() as AddressInfo;
      const bracketed = (h: string) => (h.includes(':') ? `[${h}]` : h);
      // A wildcard address is what was bound, not where to send requests: that is the loopback.
      const usable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
      resolve({
        url: `http://${bracketed(usable)}:${port}`,
        bound: `http://${bracketed(host)}:${port}`,
        app,
        server,
        close: () =>
          new Promise<void>((done) => {
            const { core } = app.locals as unknown as MockLocals;
            core.stop();
            // Once the requests in flight are answered, what they wrote is synced too (a data dir).
            server.close(() => {
              core.stop();
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}

/**
 * Classes that make Node build each request and response with Express's prototypes from the
 * start. Express gives every request and response new prototypes (`Object.setPrototypeOf` in
 * `app.handle`), which changes their shape after Node made them and slows every later access to
 * them: measured with `npm run bench`, that switch alone triples the CPU time of a bare
 * `node:http` answer. When the prototype is already the one Express sets, V8 leaves the object
 * as it is, and Express works as before.
 */
function expressShapedObjects(app: Express): {
  IncomingMessage?: typeof IncomingMessage;
  ServerResponse?: typeof ServerResponse;
} {
  // Node's two constructors are plain functions, so they can fill in an object that already has
  // Express's prototype. (`Reflect.construct` with a `new.target` does the same, but was slower
  // than Express's own switch when tried.) Should Node make them classes, its defaults are kept.
  const isClass = (f: unknown) => /^class\b/.test(Function.prototype.toString.call(f));
  if (isClass(IncomingMessage) || isClass(ServerResponse)) return {};
  const construct = (base: unknown, self: object, args: unknown[]) =>
    (base as (...a: unknown[]) => void).apply(self, args);
  function Request(this: IncomingMessage, socket: Socket): void {
    construct(IncomingMessage, this, [socket]);
  }
  Request.prototype = app.request;
  function Response(this: ServerResponse, req: IncomingMessage, options?: unknown): void {
    construct(ServerResponse, this, [req, options]);
  }
  Response.prototype = app.response;
  return {
    IncomingMessage: Request as unknown as typeof IncomingMessage,
    ServerResponse: Response as unknown as typeof ServerResponse,
  };
}
