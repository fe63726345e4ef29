/**
 * Requests as both packages see them. The contract kit sends its own (through supertest, with its
 * rules' bookkeeping); the account walker (record.ts) sends GETs with Node's fetch, so that the
 * mock records an account with no test runner installed.
 */

import { withRetries } from './transient';

/** One request and its answer, as the reports show it. */
export interface Exchange {
  method: string;
  /** Path and query, e.g. `/v1/contacts?limit=3`. */
  path: string;
  /** What was sent, as text (form or JSON), if anything. */
  sent?: string;
  status: number;
  headers: Record<string, string>;
  /** The body as text, '' when there was none. */
  text: string;
  /** The body parsed as JSON, or undefined when it was not JSON. */
  body: unknown;
}

/** A server's answer's body as JSON, or undefined when it is none. */
export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const is2xx = (exchange: Exchange): boolean => exchange.status >= 200 && exchange.status < 300;

/** The exchange in one line plus a body excerpt, for reports. */
export function describeExchange(exchange: Exchange, max = 400): string {
  const body = exchange.text.length > max ? `${exchange.text.slice(0, max)}…` : exchange.text;
  const sent = exchange.sent
    ? ` (sent: ${exchange.sent.length > 200 ? `${exchange.sent.slice(0, 200)}…` : exchange.sent})`
    : '';
  return `${exchange.method} ${exchange.path}${sent} → ${exchange.status} ${body || '(empty body)'}`;
}

/** No answer at all (connection refused, reset, timeout): never the server's verdict on anything. */
export class NoAnswer extends Error {
  override name = 'NoAnswer';
  constructor(
    message: string,
    /** Why, without the request: a reset, a timeout. */
    readonly why = message,
  ) {
    super(message);
  }
}

export function withQuery(path: string, query: Record<string, string> | undefined): string {
  const pairs = Object.entries(query ?? {});
  if (pairs.length === 0) return path;
  const encoded = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return `${path}${path.includes('?') ? '&' : '?'}${encoded}`;
}

export interface GetOptions {
  baseUrl: string;
  token: string;
  timeoutMs: number;
}

/**
 * A GET of `path` (with its query) on the base URL, with a bearer token. Resolves with the
 * server's answer, whatever its status; transient answers (502, 503, 504, a reset, a timeout)
 * and 429 are waited out and sent again as transient.ts says; rejects with NoAnswer when there
 * is no real answer within its bounds.
 */
export function get(path: string, options: GetOptions): Promise<Exchange> {
  return withRetries('GET', `${options.baseUrl}${path}`, {
    once: () => getOnce(path, options),
    noAnswer: (error) => (error instanceof NoAnswer ? error.why : undefined),
    giveUp: (line) => new NoAnswer(line),
  });
}

async function getOnce(path: string, { baseUrl, token, timeoutMs }: GetOptions): Promise<Exchange> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${baseUrl}${path}`, {
      headers: { Authorization: `Bearer ${token}` },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    const code = e.cause?.code;
    const why =
      e.name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : // fetch's own word for a connection closed before the answer says less than Node's.
          code === 'UND_ERR_SOCKET'
          ? `socket hang up (${e.cause?.message ?? 'the server closed the connection'})`
          : (code ?? e.cause?.message ?? e.message ?? String(error));
    throw new NoAnswer(`GET ${baseUrl}${path}: ${why}`, why);
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
  return { method: 'GET', path, status: response.status, headers, text, body: parseJson(text) };
}
