import { is2xx, is4xx, onExchange, type Exchange } from '../http/http';
import { writeRecord } from '../http/records';
// The same choices as data, for --profile-out: observed where these are.
import './observe';

/**
 * The "server profile": what the server chose where the document says "not shown", observed
 * from the kit's own requests. Observations are never failures; the report lists them.
 */
export function observe(key: string, value: string): void {
  writeRecord({ kind: 'observe', key, value });
}

const OPERATIONS: [method: string, pattern: RegExp, name: string][] = [
  ['GET', /^\/v1\/(contacts|messages)\/?(\?|$)/, 'list'],
  ['POST', /^\/v1\/(contacts|messages)\/?(\?|$)/, 'create'],
  ['GET', /^\/v1\/(contacts|messages)\/[^/?]+\/?(\?|$)/, 'retrieve'],
  ['PUT', /^\/v1\/(contacts|messages)\/[^/?]+\/?(\?|$)/, 'update'],
  ['DELETE', /^\/v1\/(contacts|messages)\/[^/?]+\/?(\?|$)/, 'delete'],
];

function operationOf(exchange: Pick<Exchange, 'method' | 'path'>): string | undefined {
  for (const [method, pattern, name] of OPERATIONS) {
    const match = pattern.exec(exchange.path);
    if (exchange.method === method && match) return `${name} ${match[1]}`;
  }
  return undefined;
}

/** A description of an id's format that tells formats apart without quoting the id. */
function idFormat(id: unknown): string {
  if (typeof id === 'number') return Number.isInteger(id) ? 'integer number' : 'number';
  if (typeof id !== 'string') return typeof id;
  const prefix = /^([a-z]+_)/.exec(id)?.[1] ?? '';
  const rest = id.slice(prefix.length);
  const charset = /^[0-9]+$/.test(rest)
    ? '[0-9]'
    : /^[0-9a-f-]{36}$/.test(rest)
      ? 'UUID'
      : /^[A-Za-z0-9]+$/.test(rest)
        ? '[A-Za-z0-9]'
        : 'other characters';
  return `${prefix ? `prefix "${prefix}" + ` : ''}${rest.length} chars ${charset}`;
}

/** Unit of a timestamp, told from its size (the document shows only "integer"). */
function timestampUnit(value: unknown): string {
  if (typeof value !== 'number') return `not a number (${typeof value})`;
  const now = Date.now();
  if (Math.abs(value - now / 1000) < 10 * 365 * 86_400) return 'Unix seconds';
  if (Math.abs(value - now) < 10 * 365 * 86_400_000) return 'Unix milliseconds';
  if (Math.abs(value - now * 1000) < 10 * 365 * 86_400_000_000) return 'Unix microseconds';
  return 'unknown unit';
}

function shapeOf(body: unknown): string {
  if (body === undefined) return 'not JSON';
  if (body === null || typeof body !== 'object') return `JSON ${body === null ? 'null' : typeof body}`;
  if (Array.isArray(body)) return 'JSON array';
  const keys = Object.entries(body).map(([key, value]) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? `${key}: ${shapeOf(value)}` : key,
  );
  return `{${keys.sort().join(', ')}}`;
}

onExchange((exchange) => {
  const operation = operationOf(exchange);
  if (operation && is2xx(exchange)) {
    observe(`success status: ${operation}`, String(exchange.status));
    if (operation.startsWith('delete')) {
      observe('delete body', exchange.text === '' ? '(empty)' : shapeOf(exchange.body));
    }
    const body = exchange.body as Record<string, unknown> | undefined;
    if (operation.startsWith('create') && body && typeof body === 'object') {
      observe(`id format: ${operation.slice(7)}`, idFormat(body.id));
      if ('created_at' in body) observe('timestamp unit', timestampUnit(body.created_at));
    }
  }
  if (is4xx(exchange) && exchange.path.startsWith('/v1/')) {
    observe('error body', shapeOf(exchange.body));
  }
});
