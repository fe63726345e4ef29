/**
 * Requests as both packages see them. The contract kit sends its own (through supertest, with its
 * rules' bookkeeping); the account walker (record.ts) sends GETs with Node's fetch, so that the
 * mock records an account with no test runner installed.
 */

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
}

export function withQuery(path: string, query: Record<string, string> | undefined): string {
  const pairs = Object.entries(query ?? {});
  if (pairs.length === 0) return path;
  const encoded = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return `${path}${path.includes('?') ? '&' : '?'}${encoded}`;
}

const RETRY_DELAYS_MS = [200, 800];
const RATE_LIMIT_WAITS = 4;
const MAX_WAIT_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface GetOptions {
  baseUrl: string;
  token: string;
  timeoutMs: number;
}

/**
 * A GET of `path` (with its query) on the base URL, with a bearer token. Resolves with every
 * answer the server gives, whatever its status; a read is sent again when no answer came (twice,
 * after 200 and 800 ms) and after a 429 (after its Retry-After, at most 4 times); rejects with
 * NoAnswer when there is none.
 */
export async function get(path: string, options: GetOptions): Promise<Exchange> {
  let lastError: unknown;
  for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length; attempt++) {
    if (attempt > 0) await sleep(RETRY_DELAYS_MS[attempt - 1]!);
    try {
      let exchange = await getOnce(path, options);
      for (let wait = 0; wait < RATE_LIMIT_WAITS && exchange.status === 429; wait++) {
        const seconds = Number(exchange.headers['retry-after']);
        await sleep(Math.min(MAX_WAIT_MS, Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000));
        exchange = await getOnce(path, options);
      }
      if (exchange.status === 429)
        throw new NoAnswer(
          `GET ${options.baseUrl}${path}: still rate limited (429) after ${RATE_LIMIT_WAITS} waits`,
        );
      return exchange;
    } catch (error) {
      if (!(error instanceof NoAnswer)) throw error;
      lastError = error;
    }
  }
  throw lastError;
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
    throw new NoAnswer(`GET ${baseUrl}${path}: ${why}`);
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
  return { method: 'GET', path, status: response.status, headers, text, body: parseJson(text) };
}
