/**
 * Shared tools of the reliability suite (issue 6): a real listening server on 127.0.0.1 with its
 * store in reach, a keep-alive HTTP client that sends bytes exactly as given, and the checks
 * that every answer and every world must pass.
 */
import type { Express } from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type AppOptions } from '../../src/express/app';
import { ERROR_STATUS } from '../../src/errors';
import * as fields from '../../src/input/operations';
import type { World } from '../../src/store/world';
import type { Worlds } from '../../src/store/worlds';
import {
  ATTACHMENT_FIELDS,
  CONTACT_FIELDS,
  MESSAGE_FIELDS,
  SENDER_FIELDS,
  STORED_MESSAGE_FIELDS,
} from '../../src/types';

export interface TestServer {
  url: string;
  port: number;
  app: Express;
  worlds: Worlds;
  /** Log lines of the app (evictions, internal errors). */
  logs: string[];
  close(): Promise<void>;
}

/** The app on an ephemeral loopback port, as `listen` runs it, with `app.locals` at hand. */
export async function startServer(options: AppOptions = {}): Promise<TestServer> {
  const logs: string[] = [];
  const app = createApp({ contacts: 6, messages: 40, log: (line) => logs.push(line), ...options });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    app,
    worlds: app.locals.worlds as Worlds,
    logs,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface RawRequest {
  method: string;
  /** Path and query, sent as is (already percent-encoded, or deliberately not). */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One agent per test file: keep-alive, so thousands of requests reuse a few sockets. */
export function client(port: number, sockets = 8) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const send = (request: RawRequest): Promise<RawResponse> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...request.headers };
      if (request.body !== undefined) headers['Content-Length'] = request.body.length;
      const req = http.request(
        { host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString(),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(request.body);
    });
  return { send, close: () => agent.destroy() };
}

export const json = (value: unknown) => Buffer.from(JSON.stringify(value));

/** Words that would show the server's insides: stack frames, file paths, the libraries it uses. */
const INTERNALS =
  /\bat [\w.<>]+ \(|\.(?:ts|js):\d+|node_modules|\/work\/|express|body-parser|busboy|\bqs\b|sorted-btree|lru-cache|raw-body|iconv|TypeError|RangeError|SyntaxError|ReferenceError|Cannot read prop|undefined is not|stack/i;

/**
 * What is wrong with an answer, whatever it is: the headers every answer carries, and for an
 * error, the flat error object of C2 with the status its code has in the catalogue. `sent` is
 * the request's own text, so that an error message may echo what the client sent.
 */
export function answerProblems(res: RawResponse, sent = '', method = 'GET'): string[] {
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`a ${res.status} answer`);
  if (res.headers['x-powered-by'] !== undefined) problems.push('X-Powered-By is set');
  if (res.headers['x-content-type-options'] !== 'nosniff')
    problems.push('no X-Content-Type-Options: nosniff');
  const hasBody = res.text.length > 0 || (method === 'HEAD' && res.status !== 204);
  if (hasBody && res.headers['content-type'] !== 'application/json; charset=utf-8') {
    problems.push(`Content-Type is ${res.headers['content-type']}`);
  }
  if (res.status >= 400 && method !== 'HEAD') {
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      problems.push(`a ${res.status} without a JSON body: ${res.text.slice(0, 80)}`);
      return problems;
    }
    problems.push(...errorObjectProblems(body, res.status));
    const message = (body as { message?: unknown }).message;
    const leaked = typeof message === 'string' ? INTERNALS.exec(message) : null;
    if (leaked && !sent.toLowerCase().includes(leaked[0].toLowerCase())) {
      problems.push(`the error message shows internals (${leaked[0]}): ${message as string}`);
    }
  }
  return problems;
}

export function errorObjectProblems(body: unknown, status: number): string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return ['the error is not an object'];
  const { type, code, message, param, ...rest } = body as Record<string, unknown>;
  const problems: string[] = [];
  if (type !== (status >= 500 ? 'api_error' : 'invalid_request')) problems.push(`type is ${String(type)}`);
  if (typeof code !== 'string' || !(code in ERROR_STATUS))
    problems.push(`code ${String(code)} is not in the catalogue`);
  else if (ERROR_STATUS[code as keyof typeof ERROR_STATUS] !== status && code !== 'simulated_error') {
    problems.push(`code ${code} answered with ${status}`);
  }
  if (typeof message !== 'string' || message.length === 0) problems.push('no message');
  if (param !== undefined && typeof param !== 'string') problems.push('param is not a string');
  if (Object.keys(rest).length > 0) problems.push(`extra fields ${Object.keys(rest).join(', ')}`);
  return problems;
}

const sameKeys = (value: object, fields: string[]) => {
  const keys = Reflect.ownKeys(value);
  return keys.length === fields.length && fields.every((f) => Object.prototype.hasOwnProperty.call(value, f));
};

/** Exactly the documented fields, as own data properties, and nothing inherited from a hostile prototype. */
function shapeProblems(kind: string, value: unknown, fields: string[]): string[] {
  if (value === null || typeof value !== 'object') return [`${kind} is not an object`];
  const proto = Object.getPrototypeOf(value);
  const problems: string[] = [];
  if (proto !== Object.prototype && proto !== null) problems.push(`${kind} has a foreign prototype`);
  if (!sameKeys(value, fields))
    problems.push(`${kind} has fields ${Reflect.ownKeys(value).map(String).join(',')}`);
  return problems;
}

/**
 * Every invariant of the model, read through the store's own interface:
 * - ids are unique across contacts, conversations and messages (C6);
 * - each contact owns exactly one conversation, each conversation one contact;
 * - every message belongs to an existing conversation and names that conversation's contact (C11);
 * - stored objects carry their documented fields and no more (C15, C16);
 * - every list, paged forwards with `starting_after` and backwards with `ending_before`, shows
 *   exactly the stored records, newest first (C7, C8), also per conversation and per activity.
 */
export function modelProblems(world: World): string[] {
  const problems: string[] = [];
  const data = world.toData();
  const ids = new Set<string>();
  const unique = (id: string, what: string) => {
    if (ids.has(id)) problems.push(`${what} ${id} reuses an id`);
    ids.add(id);
  };
  const owner = new Map<string, string>();
  for (const contact of data.contacts) {
    problems.push(...shapeProblems(`contact ${contact.id}`, contact, CONTACT_FIELDS));
    unique(contact.id, 'contact');
    unique(contact.conversation_id, 'conversation');
    owner.set(contact.conversation_id, contact.id);
    const read = world.getContact(contact.id);
    if (JSON.stringify(read) !== JSON.stringify(contact))
      problems.push(`contact ${contact.id} reads differently`);
  }
  for (const message of data.messages) {
    problems.push(...shapeProblems(`message ${message.id}`, message, STORED_MESSAGE_FIELDS));
    unique(message.id, 'message');
    const contactId = owner.get(message.conversation_id);
    if (contactId === undefined) {
      problems.push(
        `message ${message.id} is in conversation ${message.conversation_id}, which has no contact`,
      );
      continue;
    }
    const read = world.getMessage(message.id);
    if (read === undefined) problems.push(`message ${message.id} cannot be read`);
    else {
      problems.push(...shapeProblems(`message ${message.id} as read`, read, MESSAGE_FIELDS));
      problems.push(...shapeProblems(`sender of ${message.id}`, read.contact, SENDER_FIELDS));
      if (read.contact.id !== contactId)
        problems.push(`message ${message.id} names contact ${read.contact.id}`);
    }
    if (!Array.isArray(message.reactions)) problems.push(`message ${message.id} reactions is not a list`);
    else {
      const names = new Set<string>();
      for (const reaction of message.reactions) {
        const keys = Reflect.ownKeys(reaction);
        const name = String(keys[0]);
        const usernames = (reaction as Record<string, unknown>)[name];
        if (keys.length !== 1 || !Array.isArray(usernames) || usernames.some((u) => typeof u !== 'string')) {
          problems.push(`message ${message.id} has a malformed reaction ${JSON.stringify(reaction)}`);
        } else if (names.has(name) || new Set(usernames).size !== usernames.length) {
          problems.push(`message ${message.id} repeats a reaction name or a username`);
        }
        names.add(name);
      }
    }
    for (const attachment of message.attachments) {
      problems.push(...shapeProblems(`attachment ${attachment.id}`, attachment, ATTACHMENT_FIELDS));
      unique(attachment.id, 'attachment');
      if (attachment.message_id !== message.id)
        problems.push(`attachment ${attachment.id} names another message`);
    }
  }
  const newestFirst = <T extends { id: string }>(list: T[]) => list.map((item) => item.id).reverse();
  const lists: [
    string,
    (p: Map<string, unknown>) => { has_more: boolean; data: { id: string }[] },
    string[],
  ][] = [
    ['contacts', (p) => world.listContacts(fields.contactList(p)), newestFirst(data.contacts)],
    [
      'active contacts',
      (p) => world.listContacts(fields.contactList(new Map([...p, ['active', 'true']]))),
      newestFirst(data.contacts.filter((c) => c.last_active_at !== null)),
    ],
    [
      'never active contacts',
      (p) => world.listContacts(fields.contactList(new Map([...p, ['active', 'false']]))),
      newestFirst(data.contacts.filter((c) => c.last_active_at === null)),
    ],
    ['messages', (p) => world.listMessages(fields.messageList(p)), newestFirst(data.messages)],
  ];
  for (const contact of data.contacts.slice(-2)) {
    lists.push([
      `messages of ${contact.conversation_id}`,
      (p) =>
        world.listMessages(fields.messageList(new Map([...p, ['conversation_id', contact.conversation_id]]))),
      newestFirst(data.messages.filter((m) => m.conversation_id === contact.conversation_id)),
    ]);
  }
  for (const [name, list, expected] of lists) {
    try {
      const forwards = walk(list, 'starting_after', 9);
      if (forwards.join() !== expected.join()) problems.push(`the list of ${name} does not match the store`);
      if (expected.length > 0) {
        // Backwards from the oldest item: every other item, still newest first within each page.
        const backwards = walk(list, 'ending_before', 9, expected.at(-1)!);
        if ([...backwards, expected.at(-1)].join() !== expected.join()) {
          problems.push(`the list of ${name}, paged backwards, does not match the store`);
        }
      }
    } catch (error) {
      problems.push(`listing ${name} threw: ${String(error)}`);
    }
  }
  return problems;
}

type ListCall = (p: Map<string, unknown>) => { has_more: boolean; data: { id: string }[] };

/** All ids of a list, page by page through one cursor; stops after a bound in case paging loops. */
function walk(
  list: ListCall,
  cursor: 'starting_after' | 'ending_before',
  limit: number,
  from?: string,
): string[] {
  const seen: string[] = [];
  let at = from;
  for (let pages = 0; pages < 10_000; pages++) {
    const params = new Map<string, unknown>([['limit', String(limit)]]);
    if (at !== undefined) params.set(cursor, at);
    const page = list(params);
    const ids = page.data.map((item) => item.id);
    if (cursor === 'starting_after') seen.push(...ids);
    else seen.unshift(...ids);
    if (!page.has_more || ids.length === 0) return seen;
    at = cursor === 'starting_after' ? ids.at(-1) : ids[0];
  }
  throw new Error('paging did not end');
}

/**
 * Watches the built-in prototypes that a pollution would touch: `changes()` lists every property
 * added, removed or replaced since the guard was made. Cheap enough to run after every request.
 */
export function prototypeGuard(): { changes(): string[] } {
  const protos: [string, object][] = [
    ['Object', Object.prototype],
    ['Array', Array.prototype],
    ['Function', Function.prototype],
    ['String', String.prototype],
    ['Map', Map.prototype],
  ];
  const slots = (proto: object) =>
    Reflect.ownKeys(proto).map((key) => {
      const d = Object.getOwnPropertyDescriptor(proto, key)!;
      return [key, d.value, d.get, d.set] as const;
    });
  const before = protos.map(([, proto]) => slots(proto));
  return {
    changes: () => {
      const changed: string[] = [];
      protos.forEach(([name, proto], i) => {
        const then = before[i]!;
        const keys = Reflect.ownKeys(proto);
        const same =
          keys.length === then.length &&
          then.every(([key, value, get, set]) => {
            if (get === undefined && set === undefined) {
              return (
                Object.prototype.hasOwnProperty.call(proto, key) &&
                Object.is((proto as Record<PropertyKey, unknown>)[key], value)
              );
            }
            const d = Object.getOwnPropertyDescriptor(proto, key);
            return d !== undefined && d.get === get && d.set === set;
          });
        if (!same) {
          const now = new Map(slots(proto).map((slot) => [slot[0], slot]));
          const was = new Map(then.map((slot) => [slot[0], slot]));
          for (const key of new Set([...now.keys(), ...was.keys()])) {
            const a = was.get(key);
            const b = now.get(key);
            if (!a || !b || !Object.is(a[1], b[1]) || a[2] !== b[2] || a[3] !== b[3]) {
              changed.push(`${name}.prototype.${String(key)}`);
            }
          }
        }
      });
      return changed;
    },
  };
}
