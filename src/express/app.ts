import { readFileSync } from 'node:fs';
import path from 'node:path';
import bodyParser from 'body-parser';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type { BodyLimit, Core, CoreAnswer } from '../core';
import { CORE_DEFAULTS, createCore, type CoreOptions } from '../core';
import { errors, type ApiError } from '../errors';
import { generateWorld } from '../seed';
import { seedOf } from '../seed-options';
import type { Simulator } from '../simulate';
import type { Worlds } from '../store/worlds';
import { requestLog } from './log';

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
 * Everything that decides an answer is the core's (src/core); this is the transport: it reads
 * the body when the core asks for it (bounded while reading, and inflated when compressed), and
 * writes the answer.
 */
export function createApp(options: AppOptions = {}): Express {
  // A server makes its world before it listens: here with the generator at hand (a browser
  // loads it only when it needs it), so that the world is there as the app is.
  const core = createCore({ ...options, data: options.data ?? generateWorld(seedOf(options)) });
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // The core reads queries with the body's parser and limits (core/body.ts), not Express.
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
    app.use(requestLog(log, options.color ?? false, options.logDashboard ? undefined : fromDashboard));
  }
  app.use(dashboard());
  app.use(answerWith(core));
  return app;
}

/** The dashboard's files (the folder dashboard/ of the package), by the path they are served at. */
export const DASHBOARD_FILES = {
  '/__mock/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/__mock/dashboard.js': { file: 'dashboard.js', type: 'text/javascript; charset=utf-8' },
  '/__mock/dashboard.css': { file: 'dashboard.css', type: 'text/css; charset=utf-8' },
  '/__mock/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
  // Browsers ask for it on their own, for a page that names no icon (an answer of the API, say).
  '/favicon.ico': { file: 'favicon.ico', type: 'image/x-icon' },
} as const;

/** The header the dashboard's page sends with each of its calls, so that they can be told apart. */
const DASHBOARD_HEADER = 'X-Mock-Dashboard';

/**
 * A request of the dashboard's own: for one of its files (or `/__mock`, which leads to them), or a
 * call to a control route that carries `X-Mock-Dashboard: 1`, as each call of its page does.
 */
function fromDashboard(req: Request): boolean {
  if (req.path.startsWith('/__mock/') && req.get(DASHBOARD_HEADER) === '1') return true;
  return (
    (req.method === 'GET' || req.method === 'HEAD') && (req.path in DASHBOARD_FILES || req.path === '/__mock')
  );
}

/**
 * The dashboard at `/__mock/`: a page, its script, its stylesheet and its icon, served without a
 * token (the page asks for one, and sends it with its calls to the control routes). Read once,
 * here: they are static. Only this adapter serves them: the MSW adapter answers a page's API calls inside
 * that page, where a page of the mock's own has no place.
 */
function dashboard(): RequestHandler {
  const folder = path.join(__dirname, '..', '..', 'dashboard');
  const files = new Map(
    Object.entries(DASHBOARD_FILES).map(([at, { file, type }]) => [
      at,
      { type, body: readFileSync(path.join(folder, file)) },
    ]),
  );
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.path === '/__mock') {
      // The page's links are relative to the folder: `/__mock` would take them to `/`.
      const at = req.originalUrl.indexOf('?');
      const url = at === -1 ? req.originalUrl : req.originalUrl.slice(0, at);
      // No body: every answer of the mock is JSON or empty, and carries nosniff.
      res.writeHead(301, {
        Location: `${url}/${at === -1 ? '' : req.originalUrl.slice(at)}`,
        'Content-Length': 0,
        'X-Content-Type-Options': 'nosniff',
      });
      res.end();
      return;
    }
    const found = files.get(req.path);
    if (found === undefined) return next();
    res.statusCode = 200;
    res.setHeader('Content-Type', found.type);
    res.setHeader('Content-Length', found.body.length);
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; frame-ancestors 'none'; form-action 'self'",
    );
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.end(req.method === 'HEAD' ? undefined : found.body);
  };
}

function answerWith(core: Core): RequestHandler {
  return (req, res) => {
    const compressed = req.headers['content-encoding'] !== undefined;
    // JSON and form bodies are inflated while read (gzip, deflate, br), so the core is given them
    // as plain bytes; a multipart body is not (it would be parsed raw), so the core refuses it.
    const inflate = compressed && !isMultipart(req);
    const headers = inflate ? withoutEncoding(req.headers) : req.headers;
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
  const { type, encoding } = error as { type?: string; encoding?: unknown };
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
