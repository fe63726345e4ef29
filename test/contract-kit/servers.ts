import { eachResource, isMessage, type ProxyRequest, type ProxyResponse, type Wrapper } from './harness';

/**
 * Rogue servers: the real mock with one documented rule broken by a wrapper, each named by the
 * rule id the kit must fail. And honest variants that fill the document's gaps in other ways.
 */
type Json = Record<string, unknown>;

const LIST = /^\/v1\/(contacts|messages)\/?$/;
const CONTACT = /^\/v1\/contacts\/([^/]+)\/?$/;
const MESSAGE = /^\/v1\/messages\/([^/]+)\/?$/;
const isList = (req: ProxyRequest) => req.method === 'GET' && LIST.test(req.path);
const isCreate = (req: ProxyRequest, kind: 'contacts' | 'messages') =>
  req.method === 'POST' && req.path.replace(/\/$/, '') === `/v1/${kind}`;
const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
const body = (res: ProxyResponse) => res.body as Json;
const TIMESTAMPS = ['created_at', 'last_active_at', 'read_at', 'updated_at'];

export interface Rogue {
  /** The rule it breaks. */
  rule: string;
  /** How, in words. */
  how: string;
  make(): Wrapper;
}

export const ROGUES: Rogue[] = [
  {
    rule: 'lists.default-page-size',
    how: 'answers twelve items per page by default',
    make: () => ({
      request(req) {
        if (isList(req) && !req.query.has('limit')) req.query.set('limit', '12');
      },
    }),
  },
  {
    rule: 'lists.has-more',
    how: 'always says has_more=false',
    make: () => ({
      response(req, res) {
        if (isList(req) && ok(res)) body(res).has_more = false;
      },
    }),
  },
  {
    rule: 'lists.has-more',
    how: 'always says has_more=true',
    make: () => ({
      response(req, res) {
        if (isList(req) && ok(res)) body(res).has_more = true;
      },
    }),
  },
  {
    rule: 'lists.limit',
    how: 'ignores limit',
    make: () => ({
      request(req) {
        if (isList(req)) req.query.delete('limit');
      },
    }),
  },
  {
    rule: 'contacts.create.display-name-defaults-to-username',
    how: 'answers display_name null for a contact created without one',
    make: () => ({
      response(req, res) {
        if (isCreate(req, 'contacts') && ok(res) && !req.form?.has('display_name'))
          body(res).display_name = null;
      },
    }),
  },
  {
    rule: 'contacts.create.last-active-at-null',
    how: 'answers a new contact with last_active_at set',
    make: () => ({
      response(req, res) {
        if (isCreate(req, 'contacts') && ok(res)) body(res).last_active_at = body(res).created_at;
      },
    }),
  },
  {
    rule: 'contacts.create.conversation-id',
    how: 'leaves conversation_id out of the create answer',
    make: () => ({
      response(req, res) {
        if (isCreate(req, 'contacts') && ok(res)) delete body(res).conversation_id;
      },
    }),
  },
  {
    rule: 'contacts.delete.cascades-conversation',
    how: "keeps a deleted contact's conversation and messages",
    make: () => {
      const kept = new Map<string, Json>();
      const conversations = new Set<string>();
      return {
        async request(req, inner) {
          const auth = { authorization: req.headers.authorization ?? '' };
          const contact = CONTACT.exec(req.path);
          if (req.method === 'DELETE' && contact) {
            const found = await inner('GET', `/v1/contacts/${contact[1]}`, auth);
            const conversation = (found.body as Json | undefined)?.conversation_id;
            if (typeof conversation === 'string') {
              const listed = await inner(
                'GET',
                `/v1/messages?conversation_id=${conversation}&limit=100`,
                auth,
              );
              for (const m of ((listed.body as Json | undefined)?.data as Json[] | undefined) ?? [])
                kept.set(String(m.id), m);
              conversations.add(conversation);
            }
            return;
          }
          const message = MESSAGE.exec(req.path);
          if (message && kept.has(message[1]!)) {
            if (req.method === 'DELETE') {
              kept.delete(message[1]!);
              return { status: 204, headers: {}, text: '' };
            }
            return { status: 200, headers: {}, body: kept.get(message[1]!) };
          }
          const conversation = req.query.get('conversation_id');
          if (isList(req) && conversation && conversations.has(conversation)) {
            return {
              status: 200,
              headers: {},
              body: {
                has_more: false,
                data: [...kept.values()].filter((m) => m.conversation_id === conversation),
              },
            };
          }
        },
      };
    },
  },
  {
    rule: 'messages.delete.permanent',
    how: 'answers DELETE of a message with 204 and keeps it',
    make: () => ({
      async request(req, inner) {
        if (req.method !== 'DELETE' || !MESSAGE.test(req.path) || !req.headers.authorization) return;
        const found = await inner('GET', req.path, { authorization: req.headers.authorization });
        if (ok(found)) return { status: 204, headers: {}, text: '' };
      },
    }),
  },
  {
    rule: 'messages.send.new-message-defaults',
    how: 'answers a new message with read_at set',
    make: () => ({
      response(req, res) {
        if (isCreate(req, 'messages') && ok(res)) body(res).read_at = body(res).created_at;
      },
    }),
  },
  {
    rule: 'messages.contact-fields',
    how: "puts display_name into a message's contact",
    make: () => ({
      response(_req, res) {
        eachResource(res.body, (item) => {
          if (isMessage(item) && item.contact && typeof item.contact === 'object')
            (item.contact as Json).display_name = 'Shown Name';
        });
      },
    }),
  },
  {
    rule: 'api.auth-required',
    how: 'serves a request without Authorization as the last user seen',
    make: () => {
      let last = 'Bearer rogue-anonymous';
      return {
        request(req) {
          if (req.headers.authorization) last = req.headers.authorization;
          else req.headers.authorization = last;
        },
      };
    },
  },
  {
    rule: 'contacts.update.only-display-name',
    how: "lets PUT change a contact's username",
    make: () => {
      const renamed = new Map<string, string>();
      return {
        request(req) {
          const contact = CONTACT.exec(req.path);
          if (req.method === 'PUT' && contact && req.form?.has('username')) {
            renamed.set(contact[1]!, req.form.get('username')!);
            req.form.delete('username');
          }
        },
        response(_req, res) {
          eachResource(res.body, (item) => {
            const name = renamed.get(String(item.id));
            if (name !== undefined && 'username' in item && !isMessage(item)) item.username = name;
          });
        },
      };
    },
  },
  {
    rule: 'messages.reactions-shape',
    how: 'answers reactions as {name, usernames} objects',
    make: () => ({
      response(_req, res) {
        eachResource(res.body, (item) => {
          if (isMessage(item) && Array.isArray(item.reactions)) {
            item.reactions = (item.reactions as Json[]).flatMap((r) =>
              Object.entries(r).map(([name, usernames]) => ({ name, usernames })),
            );
          }
        });
      },
    }),
  },
  {
    rule: 'messages.update.add-attachment',
    how: 'drops the attachments of an update',
    make: () => ({
      request(req) {
        if (req.method === 'PUT' && MESSAGE.test(req.path) && req.form) {
          for (const key of [...req.form.keys()]) if (key.startsWith('attachments')) req.form.delete(key);
        }
      },
    }),
  },
  {
    rule: 'messages.list.conversation-filter',
    how: 'ignores conversation_id on the messages list',
    make: () => ({
      request(req) {
        if (isList(req) && req.path.startsWith('/v1/messages')) req.query.delete('conversation_id');
      },
    }),
  },
  {
    rule: 'api.integer-timestamps',
    how: 'answers timestamps with a fraction',
    make: () => ({
      response(_req, res) {
        const shift = (item: Json) => {
          for (const key of TIMESTAMPS)
            if (typeof item[key] === 'number') item[key] = (item[key] as number) + 0.5;
        };
        eachResource(res.body, (item) => {
          shift(item);
          if (item.contact && typeof item.contact === 'object') shift(item.contact as Json);
        });
      },
    }),
  },
];

/** Deep-edits every value under one of `keys`. */
function deepEdit(value: unknown, keys: readonly string[], edit: (v: unknown) => unknown): void {
  if (Array.isArray(value)) for (const item of value) deepEdit(item, keys, edit);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (keys.includes(key)) (value as Json)[key] = edit(child);
      else deepEdit(child, keys, edit);
    }
  }
}

const PREFIX = 'obj_';
const unprefix = (text: string) => text.replace(/\bobj_/g, '');

/**
 * An honest server that fills every gap differently from the mock: 200 on create, 200 with a
 * body on delete, prefixed ids, millisecond timestamps, oldest-first lists paged by a `cursor`
 * token from the body (starting_after is ignored), 422 and its own error body for refusals, and
 * no reaction named heart.
 */
export function honestButDifferent(): Wrapper {
  const dress = (res: ProxyResponse) => {
    if (res.status >= 400 && res.status < 500) {
      res.body = {
        error: {
          status: res.status === 400 ? 422 : res.status,
          detail: (res.body as Json | undefined)?.message ?? 'refused',
        },
      };
      if (res.status === 400) res.status = 422;
      return;
    }
    deepEdit(res.body, ['id', 'conversation_id', 'message_id'], (v) =>
      typeof v === 'string' ? PREFIX + v : v,
    );
    deepEdit(res.body, TIMESTAMPS, (v) => (typeof v === 'number' ? v * 1000 : v));
    if (res.status === 201) res.status = 200;
    if (res.status === 204) {
      res.status = 200;
      res.body = { deleted: true };
    }
  };
  return {
    async request(req, inner) {
      req.path = unprefix(req.path);
      for (const params of [req.query, req.form]) {
        if (!params) continue;
        for (const [key, value] of [...params.entries()]) params.set(key, unprefix(value));
      }
      // Its own reaction names: heart is not one of them.
      if (
        req.method === 'PUT' &&
        MESSAGE.test(req.path) &&
        req.form &&
        [...req.form.keys()].some((k) => k.startsWith('reactions[heart]'))
      ) {
        const refused: ProxyResponse = {
          status: 400,
          headers: {},
          body: { message: 'unknown reaction name' },
        };
        dress(refused);
        return refused;
      }
      if (!isList(req)) return;
      // Lists: oldest first, `limit` 1–100, `cursor` = the last id of the previous page.
      const limit = Number(req.query.get('limit') ?? '10');
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
        const refused: ProxyResponse = {
          status: 400,
          headers: {},
          body: { message: 'limit must be 1 to 100' },
        };
        dress(refused);
        return refused;
      }
      const cursor = req.query.get('cursor');
      const filters = new URLSearchParams(req.query);
      for (const key of ['limit', 'cursor', 'starting_after', 'ending_before']) filters.delete(key);
      const all: Json[] = [];
      let after: string | undefined;
      for (;;) {
        const q = new URLSearchParams(filters);
        q.set('limit', '100');
        if (after) q.set('starting_after', after);
        const page = await inner('GET', `${req.path}?${q}`, {
          authorization: req.headers.authorization ?? '',
        });
        if (!ok(page)) {
          dress(page);
          return page;
        }
        const data = (page.body as Json).data as Json[];
        all.push(...data);
        if (!(page.body as Json).has_more || data.length === 0) break;
        after = String(data.at(-1)!.id);
      }
      all.reverse();
      const start = cursor ? all.findIndex((item) => item.id === cursor) + 1 : 0;
      const data = all.slice(start, start + limit);
      const has_more = start + limit < all.length;
      const res: ProxyResponse = { status: 200, headers: {}, body: { data, has_more } };
      dress(res);
      (res.body as Json).next_cursor = has_more
        ? String(((res.body as Json).data as Json[]).at(-1)!.id)
        : null;
      return res;
    },
    response(_req, res) {
      dress(res);
    },
  };
}

/**
 * An honest server with pages of at most ten and no way to the next page, and reaction names
 * that the kit does not guess.
 */
export function withoutPaging(): Wrapper {
  return {
    request(req) {
      if (
        req.method === 'PUT' &&
        MESSAGE.test(req.path) &&
        req.form &&
        [...req.form.keys()].some((k) => k.startsWith('reactions['))
      ) {
        return { status: 400, headers: {}, body: { message: 'reactions are named by emoji codes here' } };
      }
      if (!isList(req)) return;
      req.query.delete('starting_after');
      req.query.delete('ending_before');
      const limit = Number(req.query.get('limit'));
      if (limit > 10) req.query.set('limit', '10');
    },
  };
}
