import { eachResource, isMessage, type ProxyRequest, type ProxyResponse, type Wrapper } from './harness';
import type { Rogue } from './servers';

/**
 * Rogues of the mock's conventions (docs/api.md part 2, C1–C20): the real mock with one `mock.*`
 * rule broken the way a real server would break it, and every documented rule kept. Run in the
 * mock rule set, each must fail that one rule and no other (convention-rogues.test.ts).
 */
type Json = Record<string, unknown>;

export interface ConventionRogue extends Rogue {
  /** More arguments of the run, where the fault is only a convention's under them. */
  args?: string[];
}

const LIST = /^\/v1\/(contacts|messages)\/?$/;
const CONTACT = /^\/v1\/contacts\/([^/]+)\/?$/;
const MESSAGE = /^\/v1\/messages\/([^/]+)\/?$/;
const PHONE = /^[0-9 +\-().]{1,32}$/;
const isList = (req: ProxyRequest) => req.method === 'GET' && LIST.test(req.path);
const isCreate = (req: ProxyRequest, kind: 'contacts' | 'messages') =>
  req.method === 'POST' && req.path.replace(/\/$/, '') === `/v1/${kind}`;
const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
const body = (res: ProxyResponse) => res.body as Json;
const auth = (req: ProxyRequest) => ({ authorization: req.headers.authorization ?? '' });

/** Every contact object of an answer: contacts themselves, and the `contact` of each message. */
function eachContact(res: ProxyResponse, edit: (contact: Json) => void): void {
  eachResource(res.body, (item) => {
    if (!isMessage(item)) edit(item);
    else if (item.contact && typeof item.contact === 'object') edit(item.contact as Json);
  });
}

/**
 * Answers a list from the whole list the mock holds (walked page by page), put in `order`, with
 * the cursors and `limit` applied to that order: a server whose list order is its own, and whose
 * paging is right for it. What the mock refuses (a bad limit, an unknown cursor) is refused as is.
 */
function listedIn(order: (items: Json[]) => Json[]): Wrapper {
  return {
    async request(req, inner) {
      if (!isList(req)) return;
      const asked = await inner('GET', `${req.path}?${req.query.toString()}`, auth(req));
      if (!ok(asked)) return asked;
      const filter = new URLSearchParams(req.query);
      for (const key of ['limit', 'starting_after', 'ending_before']) filter.delete(key);
      filter.set('limit', '100');
      const all: Json[] = [];
      for (let more = true; more;) {
        const page = await inner('GET', `${req.path}?${filter.toString()}`, auth(req));
        if (!ok(page)) return page;
        const data = body(page).data as Json[];
        all.push(...data);
        more = body(page).has_more === true && data.length > 0;
        if (more) filter.set('starting_after', String(data.at(-1)!.id));
      }
      const items = order(all);
      const limit = Number(req.query.get('limit') ?? '10');
      const after = req.query.get('starting_after');
      const before = req.query.get('ending_before');
      const at = (id: string) => items.findIndex((item) => String(item.id) === id);
      let data: Json[];
      let hasMore: boolean;
      if (before !== null) {
        const end = at(before);
        data = items.slice(Math.max(0, end - limit), end);
        hasMore = end - limit > 0;
      } else {
        const start = after === null ? 0 : at(after) + 1;
        data = items.slice(start, start + limit);
        hasMore = start + limit < items.length;
      }
      return { status: 200, headers: asked.headers, body: { ...body(asked), has_more: hasMore, data } };
    },
  };
}

export const CONVENTION_ROGUES: ConventionRogue[] = [
  {
    rule: 'mock.success-codes',
    how: 'answers a create with 200 instead of 201',
    make: () => ({
      response(req, res) {
        if ((isCreate(req, 'contacts') || isCreate(req, 'messages')) && res.status === 201) res.status = 200;
      },
    }),
  },
  {
    rule: 'mock.error-body',
    how: 'answers refusals with the type invalid_request_error',
    make: () => ({
      response(_req, res) {
        if (res.status >= 400 && res.status < 500 && res.body && typeof res.body === 'object')
          body(res).type = 'invalid_request_error';
      },
    }),
  },
  {
    rule: 'mock.error-statuses',
    how: 'answers 401 without WWW-Authenticate',
    make: () => ({
      response(_req, res) {
        if (res.status === 401) delete res.headers['www-authenticate'];
      },
    }),
  },
  {
    rule: 'mock.token-isolation',
    how: "serves the retrieve of a contact or message by id from any token's data",
    make: () => {
      const tokens = new Set<string>();
      return {
        async response(req, res, inner) {
          const authorization = req.headers.authorization;
          if (!authorization) return;
          tokens.add(authorization);
          if (req.method !== 'GET' || res.status !== 404) return;
          if (!CONTACT.test(req.path) && !MESSAGE.test(req.path)) return;
          for (const other of tokens) {
            if (other === authorization) continue;
            const found = await inner('GET', req.path, { authorization: other });
            if (ok(found)) {
              res.status = found.status;
              res.body = found.body;
              return;
            }
          }
        },
      };
    },
  },
  {
    rule: 'mock.unix-seconds',
    how: "answers a contact's created_at and last_active_at in milliseconds",
    make: () => ({
      response(_req, res) {
        eachContact(res, (contact) => {
          for (const key of ['created_at', 'last_active_at'])
            if (typeof contact[key] === 'number') contact[key] = (contact[key] as number) * 1000;
        });
      },
    }),
  },
  {
    rule: 'mock.ids',
    how: 'prefixes contact ids with ct_',
    make: () => {
      const strip = (id: string) => id.replace(/^ct_/, '');
      return {
        request(req) {
          const contact = CONTACT.exec(req.path);
          if (contact) req.path = `/v1/contacts/${strip(contact[1]!)}`;
          if (req.path.startsWith('/v1/contacts'))
            for (const key of ['starting_after', 'ending_before']) {
              const cursor = req.query.get(key);
              if (cursor !== null) req.query.set(key, strip(cursor));
            }
        },
        response(_req, res) {
          eachContact(res, (contact) => {
            if (typeof contact.id === 'string') contact.id = `ct_${contact.id}`;
          });
        },
      };
    },
  },
  {
    rule: 'mock.newest-first',
    how: 'lists oldest first (and pages that order right)',
    make: () => listedIn((items) => [...items].reverse()),
  },
  {
    rule: 'mock.limit-bounds',
    how: 'takes a limit over 100 as 100',
    make: () => ({
      request(req) {
        const limit = req.query.get('limit');
        if (isList(req) && limit !== null && /^\d+$/.test(limit) && Number(limit) > 100)
          req.query.set('limit', '100');
      },
    }),
  },
  {
    rule: 'mock.cursor-walks',
    how: 'takes starting_after and ending_before together, ignoring ending_before',
    make: () => ({
      request(req) {
        if (isList(req) && req.query.has('starting_after')) req.query.delete('ending_before');
      },
    }),
  },
  {
    rule: 'mock.active-filter',
    how: 'reads active backwards: active=true lists the contacts never active',
    make: () => ({
      request(req) {
        const active = req.query.get('active');
        if (isList(req) && (active === 'true' || active === 'false'))
          req.query.set('active', active === 'true' ? 'false' : 'true');
      },
    }),
  },
  {
    rule: 'mock.unknown-conversation',
    how: 'answers the messages of an unknown conversation with an empty page',
    make: () => ({
      response(req, res) {
        if (isList(req) && req.query.has('conversation_id') && res.status === 404) {
          res.status = 200;
          res.body = { has_more: false, data: [] };
        }
      },
    }),
  },
  {
    rule: 'mock.sender-exact',
    how: "adds the contact's url to a message's contact",
    make: () => ({
      response(_req, res) {
        eachResource(res.body, (item) => {
          if (isMessage(item) && item.contact && typeof item.contact === 'object') {
            const contact = item.contact as Json;
            contact.url = `/v1/contacts/${String(contact.id)}`;
          }
        });
      },
    }),
  },
  {
    rule: 'mock.request-bodies',
    how: 'refuses multipart bodies with 415',
    make: () => ({
      request(req) {
        if ((req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data'))
          return {
            status: 415,
            headers: {},
            body: {
              type: 'invalid_request',
              code: 'unsupported_media_type',
              message: 'Send a form or JSON body.',
            },
          };
      },
    }),
  },
  {
    rule: 'mock.unknown-parameters',
    how: 'ignores what a contact update sends besides display_name',
    make: () => ({
      request(req) {
        if (req.method !== 'PUT' || !CONTACT.test(req.path) || !req.form) return;
        for (const key of [...req.form.keys()]) if (key !== 'display_name') req.form.delete(key);
      },
    }),
  },
  {
    rule: 'mock.field-rules',
    how: 'takes any text as a phone_number, letters too',
    make: () => {
      const phones = new Map<string, string>();
      const given = new WeakMap<ProxyRequest, string>();
      return {
        request(req) {
          const phone = req.form?.get('phone_number');
          if (!isCreate(req, 'contacts') || phone == null || phone === '' || PHONE.test(phone)) return;
          given.set(req, phone);
          req.form!.set('phone_number', '+1 555 0100');
        },
        response(req, res) {
          const phone = given.get(req);
          if (phone !== undefined && ok(res)) phones.set(String(body(res).id), phone);
          eachContact(res, (contact) => {
            const kept = phones.get(String(contact.id));
            if (kept !== undefined) contact.phone_number = kept;
          });
        },
      };
    },
  },
  {
    rule: 'mock.reactions',
    how: 'lists reaction names in alphabetical order',
    make: () => ({
      response(_req, res) {
        eachResource(res.body, (item) => {
          if (isMessage(item) && Array.isArray(item.reactions))
            item.reactions = (item.reactions as Json[])
              .map((r) => [Object.keys(r)[0] ?? '', r] as const)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([, r]) => r);
        });
      },
    }),
  },
  {
    rule: 'mock.attachments',
    how: 'leaves message_id out of attachments',
    make: () => ({
      response(_req, res) {
        eachResource(res.body, (item) => {
          if (isMessage(item) && Array.isArray(item.attachments))
            for (const attachment of item.attachments as Json[]) delete attachment.message_id;
        });
      },
    }),
  },
  {
    // A time once the message is updated (the document's rule), but not the time of the update: an
    // hour ahead of it, as by a clock of its own (the document, which cannot know the server's
    // clock, does not hold a time to the client's).
    rule: 'mock.updated-at',
    how: 'sets updated_at an hour after the time of each update',
    make: () => {
      const ahead = new Map<string, number>();
      return {
        response(req, res) {
          const id = MESSAGE.exec(req.path)?.[1];
          if (id && req.method === 'PUT' && ok(res)) ahead.set(id, Math.floor(Date.now() / 1000) + 3600);
          eachResource(res.body, (item) => {
            const at = ahead.get(String(item.id));
            if (isMessage(item) && item.updated_at !== null && at !== undefined) item.updated_at = at;
          });
        },
      };
    },
  },
  {
    // A contact's delete that leaves its messages to a job a second later: the document lets an
    // indirect effect show late (--settle-ms); the mock's convention C18 does not.
    rule: 'mock.cascade-at-once',
    how: "deletes a deleted contact's messages a second later",
    args: ['--settle-ms', '3000'],
    make: () => {
      const lingering = new Map<string, { message: Json; until: number }>();
      return {
        async request(req, inner) {
          const message = MESSAGE.exec(req.path);
          const ghost = message ? lingering.get(message[1]!) : undefined;
          if (ghost && Date.now() < ghost.until && req.method === 'GET')
            return { status: 200, headers: {}, body: ghost.message };
          if (req.method !== 'DELETE' || !CONTACT.test(req.path)) return;
          const found = await inner('GET', req.path, auth(req));
          if (!ok(found)) return;
          const filter = new URLSearchParams({
            conversation_id: String(body(found).conversation_id),
            limit: '100',
          });
          const until = Date.now() + 1000;
          for (let more = true; more;) {
            const page = await inner('GET', `/v1/messages?${filter.toString()}`, auth(req));
            if (!ok(page)) break;
            const data = body(page).data as Json[];
            for (const m of data) lingering.set(String(m.id), { message: m, until });
            more = body(page).has_more === true && data.length > 0;
            if (more) filter.set('starting_after', String(data.at(-1)!.id));
          }
        },
      };
    },
  },
  {
    rule: 'mock.cors',
    how: 'answers a CORS preflight with 200',
    make: () => ({
      response(req, res) {
        if (req.method === 'OPTIONS' && res.status === 204) res.status = 200;
      },
    }),
  },
  {
    rule: 'mock.routing',
    how: 'answers a path that ends in a slash with 404',
    make: () => ({
      request(req) {
        if (req.path.startsWith('/v1/') && req.path.length > 4 && req.path.endsWith('/'))
          return {
            status: 404,
            headers: {},
            body: { type: 'invalid_request', code: 'route_not_found', message: `No route ${req.path}.` },
          };
      },
    }),
  },
];
