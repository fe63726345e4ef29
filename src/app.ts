import cors from 'cors';
import express, { type Express, type RequestHandler } from 'express';
import { authenticate } from './http/auth';
import { errorHandler, routeNotFound } from './http/errors';
import { journal } from './http/journal';
import { requestLog } from './http/log';
import { switches, type Latency } from './http/switches';
import { openApiDocument } from './openapi';
import { controlRouter } from './routes/control';
import { contactRoutes } from './routes/contacts';
import { messageRoutes } from './routes/messages';
import { SEED_DEFAULTS, generateWorld } from './seed';
import { Simulator } from './simulate';
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
  /** The token that may reset every token's world (`POST /__mock/reset?all=true`); none by default. */
  adminToken?: string;
  /** How many tokens keep a world at once (least recently used dropped first). */
  maxWorlds?: number;
  /** How many bytes (estimated) one token's world may add by writes; beyond, 409 world_full. */
  maxWorldBytes?: number;
  /** How many bytes (estimated) all tokens' worlds may hold together; least recently used dropped first. */
  maxTotalBytes?: number;
  /** How many requests each token's journal keeps (`GET /__mock/requests`). */
  journalSize?: number;
  /** Milliseconds added to every API answer. */
  latency?: Latency;
  /** Contacts answer the user's messages (`--simulate`); true, or the reply delay in ms. */
  simulate?: boolean | { replyDelayMs: { min: number; max: number } };
  /** The current time in Unix seconds; tests pass their own clock. */
  now?: () => Timestamp;
  /** Where log lines go (evictions, internal errors, and requests with `logRequests`). Silent by default. */
  log?: (line: string) => void;
  /** One line per answered request: method, path, status, milliseconds. Off by default. */
  logRequests?: boolean;
  /** Colour the request lines (for a terminal). */
  color?: boolean;
  /** Told how far the generation of a large world has got. */
  onProgress?: (done: number, total: number) => void;
}

export const APP_DEFAULTS = {
  ...SEED_DEFAULTS,
  maxWorlds: 1000,
  journalSize: 200,
  maxWorldBytes: 64 * 2 ** 20,
  maxTotalBytes: 1024 * 2 ** 20,
} as const;

/** What `app.locals` holds, for embedding and tests. */
export interface MockLocals {
  worlds: Worlds;
  simulator: Simulator | undefined;
}

/** The mock server as an Express app, with no port of its own: embed it, or `listen` on it. */
export function createApp(options: AppOptions = {}): Express {
  const log = options.log ?? (() => {});
  const seed = options.seed ?? APP_DEFAULTS.seed;
  const maxWorlds = options.maxWorlds ?? APP_DEFAULTS.maxWorlds;
  const journalSize = options.journalSize ?? APP_DEFAULTS.journalSize;
  const worldOptions = {
    now: options.now,
    maxWrittenBytes: options.maxWorldBytes ?? APP_DEFAULTS.maxWorldBytes,
  };
  const maxTotalBytes = options.maxTotalBytes ?? APP_DEFAULTS.maxTotalBytes;
  const data =
    options.data ??
    generateWorld({
      seed,
      contacts: options.contacts ?? APP_DEFAULTS.contacts,
      messages: options.messages ?? APP_DEFAULTS.messages,
      onProgress: options.onProgress,
    });
  const worlds = new Worlds(World.fromData(data, worldOptions), {
    maxWorlds,
    journalSize,
    maxTotalBytes,
    onEvict: (token) =>
      log(
        `world of token ${redact(token)} dropped: least recently used, and the worlds are bounded to ${maxWorlds} tokens and ${Math.round(maxTotalBytes / 2 ** 20)} MB`,
      ),
  });
  const simulator = options.simulate
    ? new Simulator({ seed, ...(typeof options.simulate === 'object' ? options.simulate : {}) })
    : undefined;
  const auth = authenticate(
    options.tokens?.length && options.adminToken !== undefined
      ? [...options.tokens, options.adminToken]
      : options.tokens,
  );

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // Queries are parsed with the body's parser and limits (http/body.ts), not Express's.
  app.set('query parser', false);
  const locals: MockLocals = { worlds, simulator };
  Object.assign(app.locals, locals);

  if (options.logRequests) app.use(requestLog(log, options.color ?? false));
  app.use(headers);
  // A route layer, not `app.use('/v1')`: a use layer rewrites the URL on every request.
  // Authentication first (a forced `Prefer: code` answers only a request that would be served),
  // then the journal, so that it keeps forced answers too and times them with their delay.
  app.all(
    '/v1{/*rest}',
    chain(auth, journal(worlds), switches(options.latency), (_req, res, next) => {
      res.locals.world = worlds.of(res.locals.token as string);
      next();
    }),
  );
  contactRoutes(app.router);
  messageRoutes(app.router, {
    onSent: simulator && ((world, message) => simulator.messageSent(world, message)),
  });
  const document = openApiDocument();
  app.get('/openapi.json', (_req, res) => void res.json(document));
  app.use(
    '/__mock',
    controlRouter({ worlds, authenticate: auth, journalSize, worldOptions, adminToken: options.adminToken }),
  );
  app.use(routeNotFound);
  app.use(
    errorHandler((error) => log(`internal error: ${error instanceof Error ? error.stack : String(error)}`)),
  );
  return app;
}

/**
 * Runs middleware in order as one: every `app.use` layer costs Express a path match and a URL
 * rewrite per request, and these four run on every API request (the benchmark's hot path).
 */
function chain(...handlers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let i = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined || i === handlers.length) return next(error);
      handlers[i++]!(req, res, step);
    };
    step();
  };
}

// C19: any origin; the `Prefer` header of the switches; preflight answered 204 before
// authentication, as browsers send no token with it.
const preflight = cors({
  origin: '*',
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Prefer'],
  exposedHeaders: ['Preference-Applied', 'Retry-After', 'WWW-Authenticate'],
  maxAge: 600,
});
const EXPOSED = 'Preference-Applied,Retry-After,WWW-Authenticate';

/**
 * Headers of every answer. The cors package answers preflights; on the other requests its
 * answer is always the same two headers, set here directly, since this runs on every request.
 */
const headers: RequestHandler = (req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (req.method === 'OPTIONS') return preflight(req, res, next);
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED);
  next();
};

/** Enough of a token to tell tokens apart in a log, not enough to use it. */
export function redact(token: string): string {
  return token.length <= 8 ? `${token.slice(0, 2)}…` : `${token.slice(0, 4)}…`;
}
