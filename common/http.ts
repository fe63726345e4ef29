/**
 * Requests as both packages see them. The contract kit sends its own (through supertest, with its
 * rules' bookkeeping); the account walker (record.ts) sends GETs with Node's own http client, so
 * that the mock records an account with no test runner installed.
 */

import http from 'node:http';
import https from 'node:https';
import { withRetries } from './transient';

/**
 * The most bytes of headers the kit, the proxy and the account walker read, as a browser does
 * (Chrome reads 256 KiB), not Node's 16 KiB: a server may say much there (a Link header of two
 * long cursors, a request of a long cursor), and what a browser reads is an answer, never a
 * request that got none.
 */
export const MAX_HEADER_BYTES = 256 * 1024;

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

function getOnce(path: string, { baseUrl, token, timeoutMs }: GetOptions): Promise<Exchange> {
  const url = new URL(`${baseUrl}${path}`);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let done = false;
    const fail = (why: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      request.destroy();
      reject(new NoAnswer(`GET ${baseUrl}${path}: ${why}`, why));
    };
    const request = client.get(
      url,
      { headers: { Authorization: `Bearer ${token}` }, maxHeaderSize: MAX_HEADER_BYTES },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error: NodeJS.ErrnoException) => fail(whyOf(error)));
        response.on('aborted', () => fail('socket hang up (the server closed the connection mid-answer)'));
        response.on('end', () => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers))
            if (value !== undefined)
              headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            method: 'GET',
            path,
            status: response.statusCode ?? 0,
            headers,
            text,
            body: parseJson(text),
          });
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => fail(whyOf(error)));
    const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
  });
}

/** Node's word for a request that got no answer, without the request. */
function whyOf(error: NodeJS.ErrnoException): string {
  if (error.code === 'ECONNRESET') return `socket hang up (${error.message})`;
  return error.code ?? error.message;
}
