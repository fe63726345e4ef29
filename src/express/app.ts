import bodyParser from 'body-parser';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type { BodyLimit, Core, CoreAnswer } from '../create-core';
import type { RequestHeaders } from '../core/body';
import { CORE_DEFAULTS, createCore, type CoreOptions } from '../create-core';
import { twinConventions } from '../twin/layer';
import { errors, type ApiError } from '../errors';
import { generateWorld } from '../seed';
import { seedOf } from '../seed-options';
import type { Simulator } from '../simulate';
import type { Worlds } from '../store/worlds';
import { DASHBOARD_HEADER, dashboardFiles, fromDashboard } from '../dashboard';
import { requestLog } from './log';
import { dataDirKeeper, hashOf, openDataDir, type FsyncMode } from '../durable/data-dir';

export interface AppOptions extends CoreOptions {
  /** One line per answered request: method, path, status, milliseconds. Off by default. */
  logRequests?: boolean;
  /**
   * With `logRequests`, the dashboard's own requests too (see `fromDashboard`). Off by default:
   * while a dashboard is open it polls the mock twice a second.
   */
  logDashboard?: boolean;
  /** Colour the request lines (for a terminal). */
  color?: boolean;
  /**
   * Keep every token's world in this directory (`--data-dir`): each write is kept before its
   * answer goes out (or within the window of `fsync: 'batch'`), a restart brings every world back,
   * and a world the memory bounds shed stays on disk. Off by default: worlds live in memory only.
   */
  dataDir?: string;
  /** With `dataDir`: sync each write before its answer (`always`), or every 50 ms (`batch`, the default). */
  fsync?: FsyncMode;
}

export const APP_DEFAULTS = CORE_DEFAULTS;

/** What `app.locals` holds, for embedding and tests. */
export interface MockLocals {
  core: Core;
  worlds: Worlds;
  simulator: Simulator | undefined;
}

/**
 * The mock server as an Express app, with no port of its own: embed it, or `listen` on it.
 * Everything that decides an answer is the core's (src/create-core.ts, src/core/); this is the transport: it reads
 * the body when the core asks for it (bounded while reading, and inflated when compressed), and
 * writes the answer.
 */
export function createApp(options: AppOptions = {}): Express {
  // A server makes its world before it listens: here with the generator at hand (a browser
  // loads it only when it needs it), so that the world is there as the app is.
  // A twin's conventions too (src/twin/layer.ts): made at once, a profile that cannot be read refused here.
  const core = createCore({
    ...options,
    data: options.data ?? generateWorld(seedOf(options)),
    conventionsOf: twinConventions,
    ...(options.dataDir === undefined ? {} : { keeper: keeperIn(options.dataDir, options) }),
  });
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // The core reads queries with the body's parser and limits (input/form.ts queryParams), not Express.
  app.set('query parser', false);
  const locals: MockLocals = {
    core,
    worlds: core.worlds,
    // Loaded beside the app, with `simulate`: read when asked for.
    get simulator() {
      return core.simulator;
    },
  };
  Object.defineProperties(app.locals, Object.getOwnPropertyDescriptors(locals));
  if (options.logRequests) {
    const log = options.log ?? (() => {});
    app.use(
      requestLog(
        log,
        options.color ?? false,
        options.logDashboard
          ? undefined
          : (req) => fromDashboard(req.method, req.path, req.get(DASHBOARD_HEADER)),
      ),
    );
  }
  app.use(dashboard());
  app.use(answerWith(core));
  return app;
}

/**
 * The keeper of a data dir, once the dir is known to hold worlds made with the same seed, fixture
 * and profile (openDataDir throws, saying which differ, otherwise).
 */
function keeperIn(dir: string, options: AppOptions) {
  const { seed, contacts, messages } = seedOf(options);
  const given = options.data !== undefined;
  openDataDir(dir, {
    seed: given ? 0 : seed,
    contacts: given ? options.data!.contacts.length : contacts,
    messages: given ? options.data!.messages.length : messages,
    fixtures: given ? hashOf(JSON.stringify(options.data)) : null,
    conventions: options.conventions === undefined ? null : hashOf(JSON.stringify(options.conventions)),
  });
  return dataDirKeeper(dir, options.fsync ?? 'batch');
}

/**
 * The dashboard's files, written as the dashboard module answers them (src/dashboard.ts); any
 * other request goes on to the core.
 */
function dashboard(): RequestHandler {
  const files = dashboardFiles();
  return (req, res, next) => {
    const found = files.answer(req.method, req.path, req.originalUrl);
    if (found === undefined) return next();
    res.writeHead(found.status, found.headers);
    res.end(req.method === 'HEAD' ? undefined : found.body);
  };
}

function answerWith(core: Core): RequestHandler {
  return (req, res) => {
    const compressed = req.headers['content-encoding'] !== undefined;
    // JSON and form bodies are inflated while read (gzip, deflate, br), so the core is given them
    // as plain bytes; a multipart body is not (it would be parsed raw), so the core refuses it.
    const inflate = compressed && !isMultipart(req);
    const headers = withEveryAuthorization(req, inflate ? withoutEncoding(req.headers) : req.headers);
    void core
      .handle({
        method: req.method,
        url: req.originalUrl,
        origin: `${req.protocol}://${req.headers.host ?? 'localhost'}`,
        headers,
        body: hasBody(req) ? (limit) => readRaw(req, res, limit, inflate) : undefined,
      })
      .then((answer) => write(res, answer));
  };
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
}

function isMultipart(req: Request): boolean {
  return /^\s*multipart\//i.test(req.headers['content-type'] ?? '');
}

/**
 * Node keeps the first of several Authorization headers and drops the others; the core is given
 * them all (joined, as a Fetch API's Headers joins them), so that it refuses the request (C3)
 * rather than answer for the first token's world.
 */
function withEveryAuthorization(req: Request, headers: Request['headers']): RequestHeaders {
  const values = everyAuthorization(req.rawHeaders);
  return values.length > 1 ? { ...headers, authorization: values } : headers;
}

/** Every Authorization header of a request, from Node's `rawHeaders` (name, value, name, value…). */
export function everyAuthorization(rawHeaders: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.toLowerCase() === 'authorization') values.push(rawHeaders[i + 1]!);
  return values;
}

function withoutEncoding(headers: Request['headers']): Request['headers'] {
  const copy = { ...headers };
  delete copy['content-encoding'];
  return copy;
}

const readers = new Map<string, RequestHandler>();

/** Reads the whole body with body-parser, bounded by `limit` while it arrives (after inflating). */
function readRaw(req: Request, res: Response, limit: BodyLimit, inflate: boolean): Promise<Uint8Array> {
  const key = `${limit.bytes}:${inflate}`;
  let reader = readers.get(key);
  if (reader === undefined) {
    reader = bodyParser.raw({ type: () => true, limit: limit.bytes, inflate });
    readers.set(key, reader);
  }
  // At once from the declared length: body-parser would wait for the whole body before refusing it.
  if (Number(req.headers['content-length']) > limit.bytes)
    return Promise.reject(errors.bodyTooLarge(limit.label));
  return new Promise((resolve, reject) => {
    req.body = undefined;
    reader(req, res, (error?: unknown) => {
      if (error !== undefined) reject(bodyError(error, limit));
      else resolve((req.body as Buffer | undefined) ?? new Uint8Array());
    });
  });
}

/** body-parser's failures, in the catalogue's words: its messages are not part of this API. */
function bodyError(error: unknown, limit: BodyLimit): ApiError {
  const { type, encoding, code } = error as { type?: string; encoding?: unknown; code?: unknown };
  // zlib's own codes (Z_DATA_ERROR, Z_BUF_ERROR…): the bytes are not what Content-Encoding says.
  if (typeof code === 'string' && code.startsWith('Z_'))
    return errors.malformedBody(
      'its bytes are not what its Content-Encoding says (not valid gzip, deflate or br).',
    );
  switch (type) {
    case 'entity.too.large':
      return errors.bodyTooLarge(limit.label);
    case 'encoding.unsupported':
      return errors.unsupportedEncoding(String(encoding));
    default:
      return errors.malformedBody('it ended early or did not match its Content-Length.');
  }
}

/**
 * Writes an answer in one go: status, headers and body as one chunk (Express's `res.json` turns
 * a string over 1,000 characters into a Buffer, so Node writes head and body as two chunks, and
 * looks up its settings on every call: on the hot path that showed in the profile). Node itself
 * leaves the body out of an answer to HEAD.
 */
function write(res: Response, answer: CoreAnswer): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.statusCode = answer.status;
  for (const name in answer.headers) res.setHeader(name, answer.headers[name]!);
  if (answer.status !== 204) res.setHeader('Content-Length', Buffer.byteLength(answer.body));
  res.end(answer.body);
}
