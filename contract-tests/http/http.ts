import http from 'node:http';
import https from 'node:https';
import type { Response, Test } from 'supertest';
import { describeExchange, is2xx, MAX_HEADER_BYTES, parseJson, type Exchange } from '../../common/http';
import { config } from './config';
import { IDEMPOTENT_METHODS, isTransientStatus, withRetries } from '../../common/transient';
import { slowDown } from './at-once';
import { markUnreachable, spendRequests, unreachable, writeRecord } from './records';
import { writeEnded, writeStarting } from './stillness';
import { recordWire, type WireRecord } from './wire';

/**
 * supertest, as the kit's jest environment (environment.js) loaded it once for the process, or
 * loaded here when the kit's files run under another environment.
 */
const KIT_SUPERTEST = '__messagingContractSupertest';
const request =
  (globalThis as { [KIT_SUPERTEST]?: typeof import('supertest') })[KIT_SUPERTEST] ??
  (require('supertest') as typeof import('supertest'));

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
  /**
   * For a POST whose outcome is unknown (a transient answer, or none): finds whether it made its
   * record all the same, and throws OutcomeReconciled when it did; returns when it did not, and
   * the POST is sent again. A POST without it is never sent again (common/transient.ts).
   */
  reconcile?: (line: string) => Promise<void>;
}

type Listener = (exchange: Exchange) => void;
const listeners = new Set<Listener>();

/** Called with every exchange; the rule wrapper keeps a test's exchanges, the recorder observes them. */
export function onExchange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function toPairs(form: Pairs | Record<string, string | undefined>): Pairs {
  if (Array.isArray(form)) return form as Pairs;
  return Object.entries(form).filter((entry): entry is [string, string] => entry[1] !== undefined);
}

/**
 * Pairs as a query string, or (`form`) as a form body the way browsers write one: there a space is
 * `+`, which the server must read back as a space (a `+` of the value itself goes as `%2B`).
 */
function encodePairs(pairs: Pairs, form = false): string {
  const encode = (text: string) =>
    form ? encodeURIComponent(text).replace(/%20/g, '+') : encodeURIComponent(text);
  return pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
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
 * The step could not be judged: a POST got a transient answer (or none), and the kit found that
 * it had created its record all the same. The record is in the ledger (the clean-up deletes it).
 */
export class OutcomeReconciled extends InfraError {
  override name = 'OutcomeReconciled';
}

/**
 * Sends one request to the base URL, and resolves with the server's real answer, whatever its
 * status. Transient answers (502, 503, 504, resets, timeouts) and 429 are put aside and the
 * request is sent again, as common/transient.ts says: idempotent methods at once (after the
 * wait), a POST only after `options.reconcile` found it made nothing. Each transient answer is
 * counted in the run's records, and none reaches the listeners. Rejects with InfraError when no
 * real answer comes within the bounds.
 */
export async function send(method: string, path: string, options: RequestOptions = {}): Promise<Exchange> {
  const fullPath = withQuery(path, options.query);
  const earlier = options.evenIfUnreachable ? undefined : unreachable();
  if (earlier !== undefined)
    throw new InfraError(`${method} ${fullPath} not sent: an earlier request got no answer (${earlier})`);
  const exchange = await withRetries(method, `${config.baseUrl}${fullPath}`, {
    once: () => sendOnce(method, fullPath, options),
    noAnswer: (error) => (error instanceof NoAnswerError ? error.why : undefined),
    onTransient: (line) => writeRecord({ kind: 'transient', method, what: line }),
    ...(options.reconcile ? { reconcile: options.reconcile } : {}),
    giveUp: (line, noAnswer) => {
      if (noAnswer) markUnreachable(line);
      return new InfraError(line);
    },
  });
  // Every real answer, whoever asked for it, goes to the one judge after the run (judge/judge-run.ts).
  const wire = onTheWire.get(exchange);
  if (wire) recordWire(wire);
  for (const listener of listeners) listener(exchange);
  return exchange;
}

/** Each answer as it went over the wire: what was sent with it, and when. */
const onTheWire = new WeakMap<Exchange, WireRecord>();

/** The answer as it went over the wire (what the one judge reads), for an exchange `send` answered. */
export const wireOf = (exchange: Exchange): WireRecord | undefined => onTheWire.get(exchange);

/** No answer at all to one send: the policy decides whether to send it again. */
class NoAnswerError extends InfraError {
  override name = 'NoAnswerError';
  constructor(
    message: string,
    readonly why: string,
  ) {
    super(message);
  }
}

/**
 * Connections kept open between requests (one pool per process, for the run's one base URL): a run
 * sends some 2,300 requests, and a new connection for each cost a tenth of the kit's time. Only for
 * methods that may be sent twice (RFC 9110 §9.2.2): a POST goes on a connection of its own, so that
 * a connection the server closed as it went cannot leave its outcome unknown.
 */
let pool: http.Agent | undefined;
let single: http.Agent | undefined;

/** The pool, or (`keepAlive` false) an agent that opens a connection for each request. */
function agentFor(keepAlive: boolean): http.Agent {
  const secure = config.baseUrl.startsWith('https:');
  return keepAlive ? (pool ??= wideAgent(secure, true)) : (single ??= wideAgent(secure, false));
}

/**
 * An agent whose requests read answer headers up to MAX_HEADER_BYTES. Node takes the size as an
 * option of each request only, and supertest passes no such option on: the agent, which gets each
 * request before its socket does, sets it.
 */
function wideAgent(secure: boolean, keepAlive: boolean): http.Agent {
  const Base = secure ? https.Agent : http.Agent;
  const agent = new Base({ keepAlive }) as http.Agent & {
    addRequest(req: http.ClientRequest & { maxHeaderSize?: number }, options: unknown): void;
  };
  const add = agent.addRequest.bind(agent);
  agent.addRequest = (req, options) => {
    req.maxHeaderSize ??= MAX_HEADER_BYTES;
    add(req, options);
  };
  return agent;
}

/**
 * Sends on a kept-open connection when the method allows it. A server may close an idle kept-open
 * connection just as a request goes out on it: a request that got no byte of answer there is sent
 * again at once on a new connection, as browsers do. It counts as a transient answer all the same
 * (an edge may have dropped it on purpose), but waits for no backoff.
 */
async function sendOn(build: (agent: http.Agent) => Test, method: string, target: string) {
  const kept = IDEMPOTENT_METHODS.has(method);
  const first = build(agentFor(kept));
  try {
    return await first;
  } catch (error) {
    const e = error as { response?: unknown; code?: string; message?: string };
    const reused = (first as unknown as { req?: { reusedSocket?: boolean } }).req?.reusedSocket === true;
    const closed = e.code === 'ECONNRESET' || e.code === 'EPIPE' || /socket hang up/i.test(e.message ?? '');
    if (!kept || e.response !== undefined || !reused || !closed) throw error;
    writeRecord({
      kind: 'transient',
      method,
      what: `${method} ${target}: ${e.code ?? e.message} (a kept-open connection)`,
    });
    sentCount += 1;
    return await build(agentFor(false));
  }
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
  const token = options.token === undefined ? config.token : options.token;
  const requestHeaders: Record<string, string> = {};
  if (token !== null)
    requestHeaders.authorization = token.startsWith('raw:') ? token.slice(4) : `Bearer ${token}`;
  for (const [name, value] of Object.entries(options.headers ?? {}))
    requestHeaders[name.toLowerCase()] = value;
  let sent: string | undefined;
  let bodyText: string | undefined;
  let payload: string | Buffer | undefined;
  if (options.form !== undefined) {
    sent = bodyText = payload = encodePairs(toPairs(options.form), true);
    requestHeaders['content-type'] = 'application/x-www-form-urlencoded';
  } else if (options.json !== undefined) {
    sent = bodyText = payload = JSON.stringify(options.json);
    requestHeaders['content-type'] = 'application/json';
  } else if (options.raw !== undefined) {
    sent = typeof options.raw.data === 'string' ? options.raw.data : `<${options.raw.data.length} bytes>`;
    if (typeof options.raw.data === 'string') bodyText = options.raw.data;
    requestHeaders['content-type'] = options.raw.type;
    payload = options.raw.data;
  }
  const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'head' | 'options' | 'patch';
  // The headers as given (their names' case too), the content type as the body's.
  const build = (agent: http.Agent) => {
    let req = (request(config.baseUrl)[verb] as (url: string) => Test)(fullPath)
      .timeout({ response: config.timeoutMs, deadline: config.timeoutMs * 2 })
      .buffer(true)
      .parse(readText as never);
    req = req.agent(agent);
    if (requestHeaders.authorization !== undefined)
      req = req.set('Authorization', requestHeaders.authorization);
    for (const [name, value] of Object.entries(options.headers ?? {})) req = req.set(name, value);
    if (payload !== undefined) req = req.set('Content-Type', requestHeaders['content-type']!).send(payload);
    return req;
  };
  // A write with the run's token may move the lists other processes walk (http/stillness.ts).
  const write =
    !['GET', 'HEAD', 'OPTIONS'].includes(method) && token === config.token
      ? await writeStarting()
      : undefined;
  const startedAt = Date.now();
  let res: Response;
  try {
    res = await sendOn(build, method, `${config.baseUrl}${fullPath}`);
  } catch (error) {
    const e = error as { response?: Response; message?: string; code?: string; timeout?: number };
    if (e.response) {
      res = e.response;
    } else {
      slowDown();
      const why = e.timeout ? `no answer within ${e.timeout} ms` : (e.code ?? e.message ?? String(error));
      throw new NoAnswerError(`${method} ${config.baseUrl}${fullPath}: ${why}`, why);
    }
  } finally {
    writeEnded(write);
  }
  if (res.status === 429 || isTransientStatus(res.status)) slowDown();
  const text = typeof res.body === 'string' ? res.body : (res.text ?? '');
  const body = parseJson(text);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers as Record<string, string | string[]>)) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  const exchange: Exchange = { method, path: fullPath, sent, status: res.status, headers, text, body };
  onTheWire.set(exchange, {
    method,
    url: fullPath,
    requestHeaders,
    ...(bodyText !== undefined ? { requestBody: bodyText } : {}),
    status: res.status,
    responseHeaders: headers,
    responseBody: text,
    startedAt,
    finishedAt: Date.now(),
  });
  return exchange;
}

export const is4xx = (exchange: Exchange): boolean => exchange.status >= 400 && exchange.status < 500;
