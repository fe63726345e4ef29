import { errors } from '../errors';
import type { Params } from '../input/params';
import * as fields from '../input/operations';
import type { World } from '../store/world';
import type { Message } from '../types';
import type { ConventionsLayer } from './conventions';
import { json, noContent, type CoreAnswer } from './answer';
import type { CoreRequest } from './request';
import { pathOf } from './request';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What a route's handler is given: the request as read so far, with its token, world and parameters. */
interface Exchange {
  /** The path and query, as the request gave it. */
  readonly url: string;
  /** The decoded `:id` of the path, for routes that have one. */
  readonly id: string;
  readonly token: string;
  readonly world: World;
  /** Query and body parameters (see core/body.ts). */
  readonly params: Params;
}

/**
 * One path and its methods, each answered by a handler given an exchange `X`. `path` is split in
 * segments; `:id` matches any one segment. Any other method is answered 405 with an `Allow`
 * header that lists these (convention C3), so the list is written once.
 */
export interface Route<X = Exchange> {
  path: readonly string[];
  methods: Partial<Record<Method, (exchange: X) => CoreAnswer | Promise<CoreAnswer>>>;
}

/** The methods a route allows, for `Allow`: HEAD with GET. */
function allowed(route: Route<never>): string[] {
  return Object.keys(route.methods).flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]));
}

/**
 * The route of `segments` (a path split at '/', without its leading ''), and its `:id`
 * percent-decoded. Segments match without regard to case, and a trailing '/' is allowed, as in
 * Express's defaults.
 */
function findRoute<R extends Route<never>>(
  routes: readonly R[],
  segments: readonly string[],
): { route: R; id: string } | undefined {
  const parts = segments.length > 1 && segments.at(-1) === '' ? segments.slice(0, -1) : segments;
  for (const route of routes) {
    if (route.path.length !== parts.length) continue;
    let id = '';
    let matches = true;
    for (let i = 0; i < parts.length && matches; i++) {
      const expected = route.path[i]!;
      if (expected === ':id') {
        if (parts[i] === '') matches = false;
        else id = decodeSegment(parts[i]!);
      } else matches = expected === parts[i]!.toLowerCase();
    }
    if (matches) return { route, id };
  }
  return undefined;
}

function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw errors.malformedUrl();
  }
}

/** The five operations of one resource, as store calls with typed inputs read by the fields. */
interface Collection<T> {
  name: 'contact' | 'message';
  list(world: World, params: Params): unknown;
  create(world: World, params: Params): T;
  retrieve(world: World, id: string): T | undefined;
  has(world: World, id: string): boolean;
  update(world: World, id: string, params: Params): T | undefined;
  remove(world: World, id: string): boolean;
}

/**
 * The routes of one resource under `base`: list, create, retrieve, update, delete, with the
 * statuses and refusals of the conventions in force (C1 and a 404 for an unknown id, the mock's
 * own), decided here and nowhere else. Retrieve and delete take no parameters, and say so rather
 * than ignore them (C13).
 */
function collectionRoutes<T extends { id: string }>(
  base: readonly string[],
  collection: Collection<T>,
  conventions: ConventionsLayer,
): Route[] {
  const kind = collection.name === 'contact' ? 'contacts' : 'messages';
  const found = <V>(value: V | undefined | false, x: Exchange): V => {
    if (value !== undefined && value !== false) return value;
    throw conventions.missing(collection.name, x.id, x.world);
  };
  const status = (op: 'create' | 'retrieve' | 'update') => conventions.successStatus[`${kind}.${op}`];
  return [
    {
      path: base,
      methods: {
        GET: (x) =>
          conventions.list(kind, x.world, x.params, x.url, () => collection.list(x.world, x.params)),
        POST: (x) => {
          const created = collection.create(x.world, conventions.writeParams(kind, 'create', x.params));
          return json(status('create'), conventions.created(kind, x.world, created));
        },
      },
    },
    {
      path: [...base, ':id'],
      methods: {
        GET: (x) => {
          fields.none(x.params);
          return json(status('retrieve'), found(collection.retrieve(x.world, x.id), x));
        },
        PUT: (x) => {
          // A missing record is refused before its parameters are judged.
          found(collection.has(x.world, x.id), x);
          const params = conventions.writeParams(kind, 'update', x.params);
          return json(status('update'), found(collection.update(x.world, x.id, params), x));
        },
        DELETE: (x) => {
          fields.none(x.params);
          const answer = conventions.deleteAnswer[kind];
          const record = answer.body === 'object' ? collection.retrieve(x.world, x.id) : undefined;
          found(collection.remove(x.world, x.id), x);
          if (answer.body === 'empty') return { ...noContent(), status: answer.status };
          if (answer.body === 'object') return json(answer.status, record);
          const marker: Record<string, unknown> = {};
          for (const key of answer.keys ?? []) {
            if (key === 'id') marker.id = x.id;
            else if (key === 'deleted') marker.deleted = true;
            else if (key === 'object') marker.object = collection.name;
          }
          return json(answer.status, marker);
        },
      },
    },
  ];
}

/**
 * The ten operations of the document (4.1 contacts, 4.2 messages), under the conventions in force;
 * `onSent` hears of every message sent.
 */
export function apiRoutes(
  conventions: ConventionsLayer,
  onSent?: (world: World, message: Message) => void,
): Route[] {
  const read = conventions.readers;
  return [
    ...collectionRoutes(
      ['v1', 'contacts'],
      {
        name: 'contact',
        list: (world, params) => world.listContacts(fields.contactList(params)),
        create: (world, params) => world.createContact(read.contactCreate(params)),
        retrieve: (world, id) => world.getContact(id),
        has: (world, id) => world.getContact(id) !== undefined,
        update: (world, id, params) => world.updateContact(id, read.contactUpdate(params)),
        remove: (world, id) => world.deleteContact(id),
      },
      conventions,
    ),
    ...collectionRoutes(
      ['v1', 'messages'],
      {
        name: 'message',
        list: (world, params) => world.listMessages(fields.messageList(params)),
        create: (world, params) => {
          const message = world.sendMessage(read.messageSend(params));
          onSent?.(world, message);
          return message;
        },
        retrieve: (world, id) => world.getMessage(id),
        has: (world, id) => world.getMessage(id) !== undefined,
        update: (world, id, params) => world.updateMessage(id, read.messageUpdate(params)),
        remove: (world, id) => world.deleteMessage(id),
      },
      conventions,
    ),
  ];
}

/** The handler of the route and method asked for, or the 404 or 405 refusal. */
export function route<X>(
  routes: readonly Route<X>[],
  request: CoreRequest,
  segments: string[],
): { handler: (x: X) => CoreAnswer | Promise<CoreAnswer>; id: string } {
  const found = findRoute(routes, segments);
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  if (found === undefined) throw errors.routeNotFound(request.method, pathOf(request.url));
  const handler = found.route.methods[method as keyof Route['methods']];
  if (handler === undefined) {
    throw errors.methodNotAllowed(request.method, pathOf(request.url), allowed(found.route as Route<never>));
  }
  return { handler, id: found.id };
}
