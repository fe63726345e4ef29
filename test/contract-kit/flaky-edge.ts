import type { Server } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

/**
 * A flaky edge in front of a server (a load balancer having a bad day): it answers a share of the
 * GETs itself, with a gateway's status and its own error body, without passing them on, and it
 * drops others without a byte of answer. Deterministic: the nth GET of the server's life.
 */
export interface FlakyEdge {
  /** Every `gatewayEvery`th GET: 503, 502 or 504 in turn, most with `Retry-After: 0`, some with
   * `Retry-After: 1`, some with none. */
  gatewayEvery: number;
  /** Every `resetEvery`th GET (unless answered by the gateway): the connection is destroyed. */
  resetEvery: number;
}

const STATUSES = [503, 503, 502, 504] as const;

/** The edge as Express middleware, for the first thing an app does. */
export function flakyEdge(edge: FlakyEdge): (req: Request, res: Response, next: NextFunction) => void {
  let gets = 0;
  let gateway = 0;
  return (req, res, next) => {
    if (req.method !== 'GET') return next();
    gets += 1;
    if (gets % edge.gatewayEvery === 0) {
      gateway += 1;
      const status = STATUSES[gateway % STATUSES.length]!;
      // A wait of a second now and then, none mostly, and sometimes no word at all (backoff).
      const retryAfter = gateway % 10 === 0 ? '1' : gateway % 3 === 0 ? undefined : '0';
      if (retryAfter !== undefined) res.setHeader('Retry-After', retryAfter);
      res.status(status).type('text/html').end(`<html><body><h1>${status}</h1>edge: try again</body></html>`);
      return;
    }
    if (gets % edge.resetEvery === 0) {
      req.socket.destroy();
      return;
    }
    next();
  };
}

/** Idle kept-alive connections closed at once, between requests, as an impatient edge does. */
export function closeIdleSoon(server: Server): void {
  server.keepAliveTimeout = 1;
}
