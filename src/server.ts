import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createApp, type AppOptions, type MockLocals } from './app';
import { answerClientError, answerExpectationFailed } from './http/errors';

export interface RunningServer {
  /** e.g. `http://127.0.0.1:4010` */
  url: string;
  app: Express;
  server: Server;
  /** Stops accepting, lets requests in flight finish, then resolves. */
  close(): Promise<void>;
}

/** Starts the mock on `host:port`; port 0 picks a free one. */
export function listen(options: AppOptions & { port?: number; host?: string } = {}): Promise<RunningServer> {
  const app = createApp(options);
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = app.listen(options.port ?? 0, host);
    // Requests that Node's HTTP parser refuses never reach Express: answer them in the same shape.
    server.on('clientError', answerClientError);
    server.on('checkExpectation', answerExpectationFailed);
    server.once('error', reject);
    server.once('listening', () => {
      const { port } = server.address() as AddressInfo;
      const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
      resolve({
        url: `http://${shown}:${port}`,
        app,
        server,
        close: () =>
          new Promise<void>((done) => {
            (app.locals as unknown as MockLocals).simulator?.stop();
            server.close(() => done());
            server.closeIdleConnections();
          }),
      });
    });
  });
}
