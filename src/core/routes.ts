import { errors } from '../errors';
import type { Params } from '../input/params';
import * as fields from '../input/operations';
import type { World } from '../store/world';
import type { Message } from '../types';
import { tellsDeleted, tellsMalformed, type Conventions } from '../twin/profile';
import { fitsFormat } from '../twin/ids';
import { attachmentIn, refuseReactionNames } from './twin-answers';
import { twinList } from './twin-lists';
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
  update(world: World, id: string, params: Params): T | undefined;
  remove(world: World, id: string): boolean;
}

/**
 * The routes of one resource under `base`: list, create, retrieve, update, delete, with the
 * status codes of convention C1 and a 404 for an unknown id, decided here and nowhere else.
 * Retrieve and delete take no parameters, and say so rather than ignore them (C13).
 */
function collectionRoutes<T>(
  base: readonly string[],
  collection: Collection<T>,
  twin: Conventions | undefined,
): Route[] {
  const found = <V>(value: V | undefined | false, x: Exchange): V => {
    if (value !== undefined && value !== false) return value;
    // A twin whose server refuses an id not of its form (src/twin/profile.ts tellsMalformed).
    const format = twin?.ids[collection.name];
    if (twin && format && tellsMalformed(twin) && !fitsFormat(format, x.id))
      throw errors.invalid('id', `${JSON.stringify(x.id)} is not of the form of ${collection.name} ids.`);
    // A twin whose server tells a deleted id from an unknown one (src/twin/profile.ts tellsDeleted).
    if (twin && tellsDeleted(twin) && x.world.wasDeleted(x.id)) throw errors.deleted(collection.name, x.id);
    throw errors.notFound(collection.name, x.id);
  };
  const kind = collection.name === 'contact' ? 'contacts' : 'messages';
  // A twin answers with its server's statuses (src/twin/): the records and rules stay the mock's.
  const status = (op: 'list' | 'create' | 'retrieve' | 'update', mock: number) =>
    twin?.successStatus[`${kind}.${op}`] ?? mock;
  const params = (x: Exchange): Params =>
    twin?.attachments ? withAttachmentsIn(x.params, twin.attachments.sent) : x.params;
  return [
    {
      path: base,
      methods: {
        GET: (x) =>
          twin
            ? twinList(twin, kind, x.world, x.params, x.url)
            : json(200, collection.list(x.world, x.params)),
        POST: (x) => {
          const created = collection.create(x.world, params(x));
          if (!twin?.touchOnSend || kind !== 'messages') return json(status('create', 201), created);
          // The twin's server marks the sender active when a message is sent (src/twin/profile.ts).
          const message = created as { id: string; contact: { id: string }; created_at: number };
          x.world.touchContact(message.contact.id, message.created_at);
          return json(status('create', 201), collection.retrieve(x.world, message.id));
        },
      },
    },
    {
      path: [...base, ':id'],
      methods: {
        GET: (x) => {
          fields.none(x.params);
          return json(status('retrieve', 200), found(collection.retrieve(x.world, x.id), x));
        },
        PUT: (x) => {
          if (twin?.reactionNames && kind === 'messages')
            refuseReactionNames(x.params.get('reactions'), twin.reactionNames);
          return json(status('update', 200), found(collection.update(x.world, x.id, params(x)), x));
        },
        DELETE: (x) => {
          fields.none(x.params);
          const answer = twin?.deleteAnswer[kind];
          const record = answer?.body === 'object' ? collection.retrieve(x.world, x.id) : undefined;
          found(collection.remove(x.world, x.id), x);
          if (answer === undefined || answer.body === 'empty')
            return answer ? { ...noContent(), status: answer.status } : noContent();
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

/** Attachments sent in the twin's server's shape, as the mock's rules read them. */
function withAttachmentsIn(params: Params, keys: readonly string[]): Params {
  const sent = params.get('attachments');
  if (!Array.isArray(sent)) return params;
  const mapped = new Map(params);
  mapped.set(
    'attachments',
    sent.map((item, i) => attachmentIn(item, keys, `attachments[${i}]`)),
  );
  return mapped;
}

/** The ten operations of the document (4.1 contacts, 4.2 messages); `onSent` hears of every message sent. */
export function apiRoutes(onSent?: (world: World, message: Message) => void, twin?: Conventions): Route[] {
  return [
    ...collectionRoutes(
      ['v1', 'contacts'],
      {
        name: 'contact',
        list: (world, params) => world.listContacts(fields.contactList(params)),
        create: (world, params) => world.createContact(fields.contactCreate(params)),
        retrieve: (world, id) => world.getContact(id),
        // A missing record is a 404 before its parameters are judged.
        update: (world, id, params) =>
          world.getContact(id) && world.updateContact(id, fields.contactUpdate(params)),
        remove: (world, id) => world.deleteContact(id),
      },
      twin,
    ),
    ...collectionRoutes(
      ['v1', 'messages'],
      {
        name: 'message',
        list: (world, params) => world.listMessages(fields.messageList(params)),
        create: (world, params) => {
          const message = world.sendMessage(fields.messageSend(params));
          onSent?.(world, message);
          return message;
        },
        retrieve: (world, id) => world.getMessage(id),
        update: (world, id, params) =>
          world.getMessage(id) && world.updateMessage(id, fields.messageUpdate(params)),
        remove: (world, id) => world.deleteMessage(id),
      },
      twin,
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
