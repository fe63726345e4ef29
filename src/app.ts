import cors from 'cors';
import express, { type Express, type RequestHandler } from 'express';
import { authenticate } from './http/auth';
import { errorHandler, routeNotFound } from './http/errors';
import { contactsRouter } from './routes/contacts';
import { messagesRouter } from './routes/messages';
import { SEED_DEFAULTS, generateWorld } from './seed';
import { World, type WorldData } from './store/world';
import { Worlds } from './store/worlds';
import type { Timestamp } from './types';

export interface AppOptions {
  /** Seed of the generated world; the same seed gives the same world. */
  seed?: number;
  /** Number of contacts of the generated world. */
  contacts?: number;
  /** Number of messages of the generated world, spread over the contacts' conversations. */
  messages?: number;
  /** A world to serve instead of a generated one (a fixture). */
  data?: WorldData;
  /** Accept only these tokens; by default any non-empty token is accepted. */
  tokens?: readonly string[];
  /** How many tokens keep a world at once (least recently used dropped first). */
  maxWorlds?: number;
  /** The current time in Unix seconds; tests pass their own clock. */
  now?: () => Timestamp;
  /** Where log lines go (evictions, internal errors). Silent by default. */
  log?: (line: string) => void;
  /** One line per answered request: method, path, status, milliseconds. Off by default. */
  logRequests?: boolean;
}

export const APP_DEFAULTS = { ...SEED_DEFAULTS, maxWorlds: 1000 } as const;

export interface MockLocals {
  worlds: Worlds;
}

/** The mock server as an Express app, with no port of its own: embed it, or `listen` on it. */
export function createApp(options: AppOptions = {}): Express {
  const log = options.log ?? (() => {});
  const data =
    options.data ??
    generateWorld({
      seed: options.seed ?? APP_DEFAULTS.seed,
      contacts: options.contacts ?? APP_DEFAULTS.contacts,
      messages: options.messages ?? APP_DEFAULTS.messages,
    });
  const worlds = new Worlds(World.fromData(data, { now: options.now }), {
    maxWorlds: options.maxWorlds ?? APP_DEFAULTS.maxWorlds,
    onEvict: (token) =>
      log(
        `world of token ${redact(token)} dropped: more than ${options.maxWorlds ?? APP_DEFAULTS.maxWorlds} tokens in use`,
      ),
  });

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // Queries are parsed with the body's parser and limits (http/body.ts), not Express's.
  app.set('query parser', false);
  app.locals.worlds = worlds;

  app.use(securityHeaders);
  if (options.logRequests) app.use(requestLog(log));
  // C19: any origin; preflight answered 204 before authentication, as browsers send no token.
  app.use(
    cors({
      origin: '*',
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Prefer'],
      maxAge: 600,
    }),
  );
  app.use('/v1', authenticate(options.tokens), (_req, res, next) => {
    res.locals.world = worlds.of(res.locals.token as string);
    next();
  });
  app.use('/v1/contacts', contactsRouter());
  app.use('/v1/messages', messagesRouter());
  app.use(routeNotFound);
  app.use(
    errorHandler((error) => log(`internal error: ${error instanceof Error ? error.stack : String(error)}`)),
  );
  return app;
}

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};

function requestLog(log: (line: string) => void): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      log(`${req.method} ${req.originalUrl} ${res.statusCode} ${ms.toFixed(1)} ms`);
    });
    next();
  };
}

/** Enough of a token to tell tokens apart in a log, not enough to use it. */
export function redact(token: string): string {
  return token.length <= 8 ? `${token.slice(0, 2)}…` : `${token.slice(0, 4)}…`;
}
