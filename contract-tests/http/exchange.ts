import zlib from 'node:zlib';
import qs from 'qs';

/**
 * One request and its answer as the proxy saw them pass, with the bytes it kept of both bodies.
 * This is all the judge knows of the traffic: it never asks the target anything itself.
 */
export interface ProxyExchange {
  /** Its place in the session, from 1, in the order the answers were finished. */
  seq: number;
  method: string;
  /** Path and query as the client sent them. */
  url: string;
  /** Lower-case names; repeated headers joined with ", ". */
  requestHeaders: Record<string, string>;
  /** The request body; undefined when it was larger than the proxy keeps. */
  requestBody?: Buffer;
  status: number;
  responseHeaders: Record<string, string>;
  /** The answer's body as it went out (still compressed, if it was); undefined when too large. */
  responseBody?: Buffer;
  /** When the request arrived, and when its answer was sent to the client (ms since the epoch). */
  startedAt: number;
  finishedAt: number;
}

export type Json = Record<string, unknown>;

type Route =
  | { kind: 'contacts' }
  | { kind: 'contact'; id: string }
  | { kind: 'messages' }
  | { kind: 'message'; id: string }
  /** Under /v1/ but none of the API's paths. */
  | { kind: 'unknown-api' }
  /** Outside /v1/: the mock's control routes, or anything else the target serves. */
  | { kind: 'outside' };

/**
 * A write on its way while another exchange was answered (sent before that answer, answered
 * after it): the server may have applied it before that answer, or not.
 */
export interface PendingWrite {
  method: string;
  url: string;
  authorization?: string;
}

/** The record a pending write names by its path, if it names one. */
export function recordOf(write: PendingWrite): { kind: 'contact' | 'message'; id: string } | undefined {
  const at = write.url.indexOf('?');
  const raw = at === -1 ? write.url : write.url.slice(0, at);
  const route = routeOf(raw.length > 1 && raw.endsWith('/') ? raw.slice(0, -1) : raw);
  return route.kind === 'contact' || route.kind === 'message' ? route : undefined;
}

/** The record a pending DELETE names, if it names one. */
export const deleting = (write: PendingWrite) => (write.method === 'DELETE' ? recordOf(write) : undefined);

/** The exchange read: its route, token, parameters and answer, parsed once for every check. */
export interface Reading {
  exchange: ProxyExchange;
  /** The path without the query, without one trailing slash. */
  path: string;
  query: URLSearchParams;
  route: Route;
  /** The whole Authorization header: the key of the token's world. Never printed. */
  authorization?: string;
  /** `Prefer: code=…` asks the mock for a forced answer: no rule judges what it returns. */
  forced: boolean;
  /** The request's parameters (form or JSON body); undefined when the proxy cannot read them. */
  params?: Json;
  /** The answer parsed as JSON; undefined when it is not JSON, or not kept. */
  body: unknown;
  /** The answer's body as text ('' when there was none); undefined when not kept or undecodable. */
  text?: string;
  ok: boolean;
}

const CONTACT = /^\/v1\/contacts\/([^/]+)$/;
const MESSAGE = /^\/v1\/messages\/([^/]+)$/;

function decodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** What a path (without its query and trailing slash) names: one of the API's lists or records, or none. */
export function routeOf(path: string): Route {
  if (path === '/v1/contacts') return { kind: 'contacts' };
  if (path === '/v1/messages') return { kind: 'messages' };
  const contact = CONTACT.exec(path);
  if (contact) return { kind: 'contact', id: decodeId(contact[1]!) };
  const message = MESSAGE.exec(path);
  if (message) return { kind: 'message', id: decodeId(message[1]!) };
  return path === '/v1' || path.startsWith('/v1/') ? { kind: 'unknown-api' } : { kind: 'outside' };
}

/** The body as it was sent, undone of its Content-Encoding; undefined for an encoding it cannot undo. */
function decoded(body: Buffer, encoding: string | undefined): Buffer | undefined {
  const coding = (encoding ?? '').trim().toLowerCase();
  try {
    if (coding === '' || coding === 'identity') return body;
    if (coding === 'gzip' || coding === 'x-gzip') return zlib.gunzipSync(body);
    if (coding === 'deflate') return zlib.inflateSync(body);
    if (coding === 'br') return zlib.brotliDecompressSync(body);
  } catch {
    return undefined;
  }
  return undefined;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Refusals that may come whatever the request: of the token, of the rate, of the time it took. */
export const ANY_REQUEST: readonly number[] = [401, 403, 408, 429];

export const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Form bodies with bracket keys (`reactions[heart][]=bob`) and JSON bodies; others are not read. */
function paramsOf(exchange: ProxyExchange): Json | undefined {
  const body = exchange.requestBody;
  if (body === undefined) return undefined;
  const text = decoded(body, exchange.requestHeaders['content-encoding'])?.toString('utf8');
  if (text === undefined) return undefined;
  if (text.trim() === '') return {};
  const type = (exchange.requestHeaders['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded')
    return qs.parse(text, { depth: 5, arrayLimit: 100, parameterLimit: 1000 }) as Json;
  if (type === 'application/json' || type.endsWith('+json')) {
    const parsed = parseJson(text);
    return isObject(parsed) ? parsed : undefined;
  }
  return undefined;
}

export function read(exchange: ProxyExchange): Reading {
  const at = exchange.url.indexOf('?');
  const rawPath = at === -1 ? exchange.url : exchange.url.slice(0, at);
  const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
  const withBody = exchange.responseBody
    ? decoded(exchange.responseBody, exchange.responseHeaders['content-encoding'])
    : undefined;
  const text = withBody?.toString('utf8');
  const authorization = exchange.requestHeaders.authorization;
  return {
    exchange,
    path,
    query: new URLSearchParams(at === -1 ? '' : exchange.url.slice(at + 1)),
    route: routeOf(path),
    ...(authorization !== undefined ? { authorization } : {}),
    forced: /(^|[\s,;])code\s*=/i.test(exchange.requestHeaders.prefer ?? ''),
    ...(exchange.method === 'POST' || exchange.method === 'PUT' || exchange.method === 'PATCH'
      ? withParams(paramsOf(exchange))
      : {}),
    body: text === undefined ? undefined : parseJson(text),
    ...(text !== undefined ? { text } : {}),
    ok: exchange.status >= 200 && exchange.status < 300,
  };
}

const withParams = (params: Json | undefined) => (params === undefined ? {} : { params });

/** `Bearer abcd…`: enough to tell two tokens apart in a log, never the token. */
export function redact(authorization: string | undefined): string {
  if (authorization === undefined) return 'no Authorization';
  const match = /^(\S+)\s+(.*)$/.exec(authorization.trim());
  if (!match) return `${authorization.slice(0, 4)}…`;
  return `${match[1]} ${match[2]!.slice(0, 4)}…`;
}
