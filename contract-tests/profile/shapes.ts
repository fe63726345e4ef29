import type {
  AvatarDefault,
  DeleteAnswer,
  ErrorBody,
  IdFormat,
  Operation,
} from '../../common/server-profile';
import type { Exchange } from '../http/http';
import type { ListName, Unit } from '../http/observations';

/**
 * What one answer shows of a server's choices, told without any state: the pieces observe.ts
 * records and build.ts puts together. Nothing here guesses: what an answer does not show is
 * undefined.
 */
type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** How a profile names an exchange: `POST /v1/contacts → 201`. */
export const seenOf = (exchange: Pick<Exchange, 'method' | 'path' | 'status'>): string =>
  `${exchange.method} ${exchange.path} → ${exchange.status}`;

/** The path without its query, and the query's parameters. */
export function splitPath(path: string): { path: string; query: URLSearchParams } {
  const at = path.indexOf('?');
  return at === -1
    ? { path, query: new URLSearchParams() }
    : { path: path.slice(0, at), query: new URLSearchParams(path.slice(at + 1)) };
}

const OPERATIONS: [method: string, pattern: RegExp, name: string][] = [
  ['GET', /^\/v1\/(contacts|messages)\/?$/, 'list'],
  ['POST', /^\/v1\/(contacts|messages)\/?$/, 'create'],
  ['GET', /^\/v1\/(contacts|messages)\/[^/]+\/?$/, 'retrieve'],
  ['PUT', /^\/v1\/(contacts|messages)\/[^/]+\/?$/, 'update'],
  ['DELETE', /^\/v1\/(contacts|messages)\/[^/]+\/?$/, 'delete'],
];

/** Which of the ten documented operations an exchange is (`contacts.create`, …). */
export function operationOf(exchange: Pick<Exchange, 'method' | 'path'>): Operation | undefined {
  const { path } = splitPath(exchange.path);
  for (const [method, pattern, name] of OPERATIONS) {
    const match = pattern.exec(path);
    if (exchange.method === method && match) return `${match[1]}.${name}` as Operation;
  }
  return undefined;
}

/** The parameters a request sent, in order: a form body, or a JSON object's keys. */
/** The string parameters a request sent, as key and value (a JSON body's strings, or a form's pairs). */
export function sentPairs(sent: string | undefined): [string, string][] {
  if (sent === undefined || sent === '') return [];
  if (!sent.startsWith('{')) return [...new URLSearchParams(sent).entries()];
  try {
    const parsed = JSON.parse(sent) as unknown;
    return isObject(parsed)
      ? Object.entries(parsed).map(([key, value]) => [
          key,
          typeof value === 'string' ? value : JSON.stringify(value),
        ])
      : [];
  } catch {
    return [];
  }
}

export function sentKeys(sent: string | undefined): string[] {
  if (sent === undefined || sent === '') return [];
  if (sent.startsWith('{')) {
    try {
      const parsed = JSON.parse(sent) as unknown;
      return isObject(parsed) ? Object.keys(parsed) : [];
    } catch {
      return [];
    }
  }
  return [...new URLSearchParams(sent).keys()];
}

export function contentTypeOf(exchange: Exchange): string | undefined {
  const type = exchange.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  return type ? type : undefined;
}

/** A lower-case prefix with an underscore, as `msg_` in `msg_1a2B`. */
const PREFIX = /^([a-z]+_)/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id's format; `length` is the length after the prefix, whatever the kind. */
export function idFormatOf(id: unknown): IdFormat | undefined {
  if (typeof id === 'number')
    return Number.isInteger(id) && id >= 0
      ? { kind: 'numeric', prefix: '', json: 'number', length: String(id).length }
      : { kind: 'other', prefix: '', json: 'number', length: String(id).length };
  if (typeof id !== 'string' || id === '') return undefined;
  const prefix = PREFIX.exec(id)?.[1] ?? '';
  const rest = id.slice(prefix.length);
  // The smallest alphabet that holds it: build.ts joins those of all the ids seen.
  const kind = /^[0-9]+$/.test(rest)
    ? 'numeric'
    : /^[0-9a-f]+$/.test(rest)
      ? 'hex'
      : UUID.test(rest)
        ? 'uuid'
        : /^[A-Za-z0-9]+$/.test(rest)
          ? 'alphanumeric'
          : 'other';
  const version = kind === 'uuid' ? { version: parseInt(rest[14]!, 16) } : {};
  return { kind, prefix, json: 'string', length: rest.length, ...version };
}

const YEARS_10 = 10 * 365 * 86_400;

/** The unit of a timestamp of now, told from its size; undefined when it is no number. */
export function unitOf(value: unknown, nowMs: number): Unit | null | undefined {
  if (typeof value !== 'number') return undefined;
  if (Math.abs(value - nowMs / 1000) < YEARS_10) return 'seconds';
  if (Math.abs(value - nowMs) < YEARS_10 * 1000) return 'milliseconds';
  if (Math.abs(value - nowMs * 1000) < YEARS_10 * 1_000_000) return 'microseconds';
  return null;
}

/** A successful delete's answer; null when its body is no JSON object. */
export function deleteAnswerOf(exchange: Exchange, list: ListName): DeleteAnswer | null {
  if (exchange.text.trim() === '') return { status: exchange.status, body: 'empty' };
  const body = exchange.body;
  if (!isObject(body)) return null;
  const ownField = list === 'contacts' ? 'username' : 'message';
  if ('id' in body && 'created_at' in body && ownField in body)
    return { status: exchange.status, body: 'object' };
  return { status: exchange.status, body: 'marker', keys: Object.keys(body).sort() };
}

const MESSAGE_KEYS = ['message', 'detail', 'title', 'error_description', 'error'];
const CODE_KEYS = ['code', 'error_code', 'type'];
/**
 * A machine code: one word of letters, digits and `_.:-` (a URL or a sentence is none, nor
 * `about:blank`, the problem type of RFC 9457 that says no more than the status).
 */
const CODE = /^(?!about:blank$)[A-Za-z][A-Za-z0-9_.:-]*$/;

/**
 * Where a 4xx body holds its human message and its machine code: at the top level, or under
 * `error` or `errors[0]` (the code under the same nesting as the message). Undefined when the
 * body is no JSON object with a message.
 */
export function errorShapeOf(exchange: Exchange): ErrorBody | undefined {
  const body = exchange.body;
  if (!isObject(body)) return undefined;
  const errors = body.errors;
  const places: [string, unknown][] = [
    ['', body],
    ['error.', body.error],
    ['errors.0.', Array.isArray(errors) ? errors[0] : undefined],
  ];
  for (const [at, place] of places) {
    if (!isObject(place)) continue;
    const message = MESSAGE_KEYS.find((key) => typeof place[key] === 'string' && place[key] !== '');
    if (message === undefined) continue;
    const code = CODE_KEYS.find(
      (key) => key !== message && typeof place[key] === 'string' && CODE.test(place[key] as string),
    );
    return {
      contentType: contentTypeOf(exchange) ?? '',
      messageAt: `${at}${message}`,
      ...(code === undefined ? {} : { codeAt: `${at}${code}` }),
      keys: Object.keys(body).sort(),
      ...(at === '' ? {} : { placeKeys: Object.keys(place).sort() }),
    };
  }
  return undefined;
}

/** What a contact created without avatar_url got: its answer's avatar_url. */
export function avatarDefaultOf(contact: Json): AvatarDefault | undefined {
  if (!('avatar_url' in contact)) return { kind: 'absent' };
  const url = contact.avatar_url;
  if (url === null) return { kind: 'null' };
  if (url === '') return { kind: 'empty' };
  if (typeof url !== 'string') return undefined;
  const username = typeof contact.username === 'string' ? contact.username : '';
  let template = url;
  for (const form of username === '' ? [] : [encodeURIComponent(username), username])
    template = template.split(form).join('{username}');
  return { kind: 'url', template };
}

/** How a message holding two reaction names or more lays them out; undefined when it holds fewer. */
export function reactionsLayoutOf(message: Json): 'per-name' | 'merged' | undefined {
  const reactions = message.reactions;
  if (!Array.isArray(reactions) || !reactions.every(isObject)) return undefined;
  const names = new Set(reactions.flatMap((r) => Object.keys(r)));
  if (names.size < 2) return undefined;
  if (reactions.some((r) => Object.keys(r).length > 1)) return 'merged';
  return reactions.every((r) => Object.keys(r).length === 1) ? 'per-name' : undefined;
}

/** The messages of an answer: the one answered, or a page's. */
export function messagesIn(body: unknown): Json[] {
  if (!isObject(body)) return [];
  if (Array.isArray(body.data)) return body.data.filter(isObject);
  return 'id' in body ? [body] : [];
}

/** The orders a list may keep, by field; each is tried in both directions. */
const ORDER_FIELDS: Record<ListName, string[]> = {
  contacts: ['created_at', 'username', 'display_name', 'id'],
  messages: ['created_at', 'message', 'id'],
};

type Compare = (a: unknown, b: unknown) => number | undefined;

const whole = (value: unknown): bigint | undefined =>
  typeof value === 'number' && Number.isInteger(value)
    ? BigInt(value)
    : typeof value === 'string' && /^[0-9]{1,40}$/.test(value)
      ? BigInt(value)
      : undefined;

/** Comparisons by name: numbers (and ids of digits), plain code units, and the locale's collation. */
const COMPARES: Record<string, Compare> = {
  number: (a, b) => {
    if (typeof a === 'number' && typeof b === 'number') return Math.sign(a - b);
    const [x, y] = [whole(a), whole(b)];
    return x === undefined || y === undefined ? undefined : x < y ? -1 : x > y ? 1 : 0;
  },
  code: (a, b) => (typeof a === 'string' && typeof b === 'string' ? (a < b ? -1 : a > b ? 1 : 0) : undefined),
  locale: (a, b) =>
    typeof a === 'string' && typeof b === 'string' ? Math.sign(a.localeCompare(b)) : undefined,
};

const COMPARES_OF: Record<string, string[]> = {
  created_at: ['number'],
  username: ['code', 'locale'],
  display_name: ['code', 'locale'],
  message: ['code', 'locale'],
  id: ['number', 'code', 'locale'],
};

/**
 * Which orders one page of a list breaks and which it shows (a pair of neighbours strictly in that
 * order; ties break none and show none). An order is named `<field> <asc|desc> <comparison>`.
 */
export function pageOrder(list: ListName, items: Json[]): { violated: string[]; supported: string[] } {
  const violated: string[] = [];
  const supported: string[] = [];
  for (const field of ORDER_FIELDS[list]) {
    for (const compare of COMPARES_OF[field]!) {
      for (const direction of ['asc', 'desc'] as const) {
        const name = `${field} ${direction} ${compare}`;
        let broken = false;
        let shown = false;
        for (let i = 0; i + 1 < items.length && !broken; i++) {
          const c = COMPARES[compare]!(items[i]![field], items[i + 1]![field]);
          const step = c === undefined ? undefined : direction === 'asc' ? c : -c;
          if (step === undefined || step > 0) broken = true;
          else if (step < 0) shown = true;
        }
        if (broken) violated.push(name);
        else if (shown) supported.push(name);
      }
    }
  }
  return { violated, supported };
}
