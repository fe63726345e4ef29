import request from 'supertest';
import { describeExchange, is2xx, parseJson, type Exchange } from '../../common/http';
import { config } from './config';
import { markUnreachable, spendRequests, unreachable } from './records';

// One shape of an exchange for the kit and the account walker (common/http.ts).
export { describeExchange, is2xx, type Exchange };

/**
 * The kit could not get an answer at all (connection refused, reset, timeout). Never a rule
 * failure: the run ends as "could not judge" (exit 2).
 */
export class InfraError extends Error {
  override name = 'InfraError';
}

export type Pairs = ReadonlyArray<readonly [string, string]>;
type Query = Record<string, string | number | boolean | undefined> | Pairs;

export interface RequestOptions {
  query?: Query;
  /** A form body, as ordered key/value pairs (bracket keys are sent as they are). */
  form?: Pairs | Record<string, string | undefined>;
  json?: unknown;
  /** Any other body, with its content type. */
  raw?: { type: string; data: string | Buffer };
  headers?: Record<string, string>;
  /** The bearer token; null sends no Authorization header; a string starting "raw:" is sent as the whole header. */
  token?: string | null;
  /** Send it even after another request got no answer, or past the request budget (the clean-up does). */
  evenIfUnreachable?: boolean;
}

type Listener = (exchange: Exchange) => void;
const listeners = new Set<Listener>();

/** Called with every exchange; the rule wrapper keeps a test's exchanges, the recorder observes them. */
export function onExchange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const IDEMPOTENT_READS = new Set(['GET', 'HEAD', 'OPTIONS']);
const RETRY_DELAYS_MS = [200, 800];

function toPairs(form: Pairs | Record<string, string | undefined>): Pairs {
  if (Array.isArray(form)) return form as Pairs;
  return Object.entries(form).filter((entry): entry is [string, string] => entry[1] !== undefined);
}

function encodePairs(pairs: Pairs): string {
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

function withQuery(path: string, query: Query | undefined): string {
  if (query === undefined) return path;
  const pairs = Array.isArray(query)
    ? (query as Pairs)
    : Object.entries(query)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, String(v)] as const);
  if (pairs.length === 0) return path;
  return `${path}${path.includes('?') ? '&' : '?'}${encodePairs(pairs)}`;
}

/** Reads any body as text, whatever its content type, so that reports can quote it. */
function readText(res: NodeJS.ReadableStream, done: (error: Error | null, text: string) => void): void {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (text += chunk));
  res.on('end', () => done(null, text));
  res.on('error', (error: Error) => done(error, text));
}

/**
 * Sends one request to the base URL. Resolves with every answer the server gives, whatever its
 * status; rejects with InfraError only when there is no answer. Only idempotent reads are
 * retried, and only when no answer came: a retried POST could create twice.
 */
export async function send(method: string, path: string, options: RequestOptions = {}): Promise<Exchange> {
  const fullPath = withQuery(path, options.query);
  const earlier = options.evenIfUnreachable ? undefined : unreachable();
  if (earlier !== undefined)
    throw new InfraError(`${method} ${fullPath} not sent: an earlier request got no answer (${earlier})`);
  const attempts = IDEMPOTENT_READS.has(method) ? RETRY_DELAYS_MS.length + 1 : 1;
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt - 1]));
    try {
      const exchange = await sendOnce(method, fullPath, options);
      if (exchange.status === 429) return await afterRateLimit(method, fullPath, options, exchange);
      for (const listener of listeners) listener(exchange);
      return exchange;
    } catch (error) {
      if (!(error instanceof InfraError) || error instanceof BudgetSpent) throw error;
      lastError = error;
    }
  }
  markUnreachable((lastError as Error).message);
  throw lastError;
}

const RATE_LIMIT_WAITS = 4;
const MAX_WAIT_MS = 10_000;

/**
 * A 429 says the request was not processed, so any method may be sent again, after Retry-After
 * (seconds; 1 s when absent). A server that keeps refusing leaves the run unable to judge.
 */
async function afterRateLimit(
  method: string,
  fullPath: string,
  options: RequestOptions,
  first: Exchange,
): Promise<Exchange> {
  let exchange = first;
  for (let wait = 0; wait < RATE_LIMIT_WAITS && exchange.status === 429; wait++) {
    const seconds = Number(exchange.headers['retry-after']);
    const ms = Math.min(MAX_WAIT_MS, Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000);
    await new Promise((resolve) => setTimeout(resolve, ms));
    exchange = await sendOnce(method, fullPath, options);
  }
  if (exchange.status === 429) {
    throw new InfraError(
      `${method} ${config.baseUrl}${fullPath}: still rate limited (429) after ${RATE_LIMIT_WAITS} waits`,
    );
  }
  for (const listener of listeners) listener(exchange);
  return exchange;
}

let sentCount = 0;
let reportedCount = 0;

/** Requests sent by this process since the last call (each attempt counts). */
export function requestsSinceLastCount(): number {
  const count = sentCount - reportedCount;
  reportedCount = sentCount;
  return count;
}

/** Thrown before a request past the run's budget: the run stops judging and says so. */
class BudgetSpent extends InfraError {
  override name = 'BudgetSpent';
}

async function sendOnce(method: string, fullPath: string, options: RequestOptions): Promise<Exchange> {
  // A POST may create a record: it pays for its own clean-up (a delete, and a retrieve when that is
  // refused) up front, so that the clean-up, which is sent whatever the budget, stays within it.
  const cost = options.evenIfUnreachable ? 0 : method === 'POST' ? 3 : 1;
  if (!spendRequests(cost))
    throw new BudgetSpent(
      `${method} ${fullPath} not sent: the run has spent its budget of ${config.maxRequests} requests (--max-requests)`,
    );
  sentCount += 1;
  const agent = request(config.baseUrl);
  const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'head' | 'options' | 'patch';
  let req = (agent[verb] as (url: string) => request.Test)(fullPath)
    .timeout({ response: config.timeoutMs, deadline: config.timeoutMs * 2 })
    .buffer(true)
    .parse(readText as never);
  const token = options.token === undefined ? config.token : options.token;
  if (token !== null) {
    req = req.set('Authorization', token.startsWith('raw:') ? token.slice(4) : `Bearer ${token}`);
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) req = req.set(name, value);
  let sent: string | undefined;
  if (options.form !== undefined) {
    sent = encodePairs(toPairs(options.form));
    req = req.type('form').send(sent);
  } else if (options.json !== undefined) {
    sent = JSON.stringify(options.json);
    req = req.type('json').send(sent);
  } else if (options.raw !== undefined) {
    sent = typeof options.raw.data === 'string' ? options.raw.data : `<${options.raw.data.length} bytes>`;
    req = req.set('Content-Type', options.raw.type).send(options.raw.data);
  }
  let res: request.Response;
  try {
    res = await req;
  } catch (error) {
    const e = error as { response?: request.Response; message?: string; code?: string; timeout?: number };
    if (e.response) {
      res = e.response;
    } else {
      const why = e.timeout ? `no answer within ${e.timeout} ms` : (e.code ?? e.message ?? String(error));
      throw new InfraError(`${method} ${config.baseUrl}${fullPath}: ${why}`);
    }
  }
  const text = typeof res.body === 'string' ? res.body : (res.text ?? '');
  const body = parseJson(text);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers as Record<string, string | string[]>)) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return { method, path: fullPath, sent, status: res.status, headers, text, body };
}

export const is4xx = (exchange: Exchange): boolean => exchange.status >= 400 && exchange.status < 500;
