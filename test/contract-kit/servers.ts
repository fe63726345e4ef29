import type { AppOptions } from '../../src/express/app';
import { SENDER } from '../../contract-tests/rules/fields';
import { CONTACT_FIELDS, optionalOf, updatedWith } from '../../contract-tests/rules/resources';
import {
  eachResource,
  isMessage,
  rewritePairs,
  type ProxyRequest,
  type ProxyResponse,
  type Wrapper,
} from './harness';

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

/** Serves the requests `without` picks that carry no Authorization as the last user seen. */
function asLastUser(without: (req: ProxyRequest) => boolean): Wrapper {
  let last = 'Bearer rogue-anonymous';
  return {
    request(req) {
      if (req.headers.authorization) last = req.headers.authorization;
      else if (without(req)) req.headers.authorization = last;
    },
  };
}

/** Where the rogue that keeps a deleted contact's messages says how many it still holds. */
export const KEPT_PATH = '/__rogue/kept';

export interface Rogue {
  /** The rule it breaks. */
  rule: string;
  /** How, in words. */
  how: string;
  make(): Wrapper;
  /** The mock behind it, when not the default world (an account that starts empty, say). */
  options?: AppOptions;
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
    how: 'says has_more=false on a page asked for with a limit of fifty or more, though more follow, on an account that starts empty',
    // Empty, as a new server's: only the kit's own records make a list longer than fifty.
    options: { data: { contacts: [], messages: [] } },
    make: () => ({
      response(req, res) {
        if (isList(req) && ok(res) && Number(req.query.get('limit')) >= 50) body(res).has_more = false;
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
    rule: 'lists.limit',
    how: 'gives one item fewer than a limit of two or more asks',
    make: () => ({
      request(req) {
        const limit = Number(req.query.get('limit'));
        if (isList(req) && Number.isInteger(limit) && limit >= 2) req.query.set('limit', String(limit - 1));
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
          // For the tests: how many messages of deleted contacts it still holds.
          if (req.path === KEPT_PATH) return { status: 200, headers: {}, body: { kept: kept.size } };
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
    make: () => asLastUser(() => true),
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
    rule: 'messages.list.conversation-filter',
    how: 'loses conversation_id on the next page of the messages list',
    make: () => ({
      // The items of the next page come from the unfiltered list; has_more stays the filtered one's.
      async response(req, res, inner) {
        if (!isList(req) || !req.path.startsWith('/v1/messages') || !ok(res)) return;
        if (!req.query.has('starting_after') || !req.query.has('conversation_id')) return;
        const query = new URLSearchParams(req.query);
        query.delete('conversation_id');
        const unfiltered = await inner('GET', `${req.path}?${query}`, auth(req));
        if (ok(unfiltered)) body(res).data = body(unfiltered).data;
      },
    }),
  },
  {
    // The first contact a token creates (for the kit, made while finding values the server takes
    // and deleted at once): no test reads its answers, and the one judge, which reads every
    // exchange of the run, is what catches it. Every view of it shows the same fraction.
    rule: 'api.integer-timestamps',
    how: 'answers the first contact a token creates with a fraction in created_at',
    make: () => {
      const first = new Map<string, string>();
      return {
        response(req, res) {
          if (!ok(res)) return;
          const token = req.headers.authorization ?? '';
          if (req.method === 'POST' && req.path === '/v1/contacts' && !first.has(token))
            first.set(token, String(body(res).id));
          const edit = (item: Json) => {
            if (String(item.id) === first.get(token) && typeof item.created_at === 'number')
              item.created_at += 0.5;
          };
          eachResource(res.body, (item) => {
            edit(item);
            if (isMessage(item) && item.contact && typeof item.contact === 'object')
              edit(item.contact as Json);
          });
        },
      };
    },
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
  {
    // The field table types these fields as timestamps and says no more: how one is written is
    // the one sentence of 2 that this breaks, so no other rule may fail with it.
    rule: 'api.integer-timestamps',
    how: 'answers timestamps as strings of digits',
    make: () => ({
      response(_req, res) {
        const spell = (item: Json) => {
          for (const key of TIMESTAMPS) if (typeof item[key] === 'number') item[key] = String(item[key]);
        };
        eachResource(res.body, (item) => {
          spell(item);
          if (item.contact && typeof item.contact === 'object') spell(item.contact as Json);
        });
      },
    }),
  },
  {
    rule: 'api.auth-required',
    how: "serves the list of one conversation's messages without Authorization, as the last user seen",
    make: () => asLastUser((req) => isList(req) && req.query.has('conversation_id')),
  },
];

const auth = (req: ProxyRequest) => ({ authorization: req.headers.authorization ?? '' });
const idOfPath = (pattern: RegExp, req: ProxyRequest) => pattern.exec(req.path)?.[1];
const isUpdate = (req: ProxyRequest, pattern: RegExp) => req.method === 'PUT' && pattern.test(req.path);
const sentKeys = (req: ProxyRequest) => [...(req.form?.keys() ?? [])];
/** A list request for the first page of a large walk: where a rogue shows what should be gone. */
const firstLargePage = (req: ProxyRequest) =>
  isList(req) &&
  Number(req.query.get('limit') ?? '10') >= 50 &&
  !['starting_after', 'ending_before'].some((k) => req.query.has(k));

/**
 * Shows `ghosts` at the top of a page, dropping from its end what no longer fits under the limit
 * (and then saying has_more, as the items dropped still lie beyond the page).
 */
function haunt(req: ProxyRequest, res: ProxyResponse, ghosts: Json[]): void {
  if (!ok(res) || ghosts.length === 0) return;
  const page = body(res);
  const limit = Number(req.query.get('limit') ?? '10');
  const haunted = [...ghosts, ...(page.data as Json[])];
  page.data = haunted.slice(0, limit);
  if (haunted.length > limit) page.has_more = true;
}

/** Keeps what a DELETE of `pattern` removed, and shows it again at the top of the lists `where` picks. */
function keepsDeleted(where: (req: ProxyRequest) => boolean, pattern: RegExp = CONTACT): Wrapper {
  const ghosts: Json[] = [];
  return {
    async request(req, inner) {
      if (req.method === 'DELETE' && pattern.test(req.path)) {
        const found = await inner('GET', req.path, auth(req));
        if (ok(found)) ghosts.push(body(found));
      }
    },
    response(req, res) {
      // The latest ghosts only: a run that deletes many records must not push live ones off the page.
      if (where(req)) haunt(req, res, ghosts.slice(-10));
    },
  };
}

/** On a message update that `when` picks, hides from then on the attachments the message had before it. */
function hidesEarlierAttachments(when: (req: ProxyRequest) => boolean): Wrapper {
  const hidden = new Map<string, Set<string>>();
  return {
    async request(req, inner) {
      const id = idOfPath(MESSAGE, req);
      if (id && isUpdate(req, MESSAGE) && when(req)) {
        const now = await inner('GET', req.path, auth(req));
        if (ok(now)) hidden.set(id, new Set((body(now).attachments as Json[]).map((a) => String(a.id))));
      }
    },
    response(_req, res) {
      eachResource(res.body, (item) => {
        const gone = hidden.get(String(item.id));
        if (isMessage(item) && gone && Array.isArray(item.attachments))
          item.attachments = (item.attachments as Json[]).filter((a) => !gone.has(String(a.id)));
      });
    },
  };
}

/**
 * Rogues for the model's checks (issue #10): each breaks one thing the model makes certain, in
 * every view at once, as a real server's bug would.
 */
export const MODEL_ROGUES: Rogue[] = [
  {
    rule: 'messages.update.keeps-the-rest',
    how: "drops a message's reactions when its text is edited",
    make: () => {
      const hidden = new Map<string, Json>();
      return {
        async request(req, inner) {
          const id = idOfPath(MESSAGE, req);
          if (id && isUpdate(req, MESSAGE) && sentKeys(req).includes('message')) {
            const now = await inner('GET', req.path, auth(req));
            if (ok(now)) hidden.set(id, JSON.parse(JSON.stringify(body(now).reactions)) as Json);
          }
        },
        response(_req, res) {
          eachResource(res.body, (item) => {
            const dropped = hidden.get(String(item.id)) as unknown as Json[] | undefined;
            if (!isMessage(item) || !dropped || !Array.isArray(item.reactions)) return;
            const gone = new Set(
              dropped.flatMap((r) =>
                Object.entries(r).flatMap(([n, us]) => (us as string[]).map((u) => `${n}:${u}`)),
              ),
            );
            item.reactions = (item.reactions as Json[])
              .map((r) =>
                Object.fromEntries(
                  Object.entries(r).map(([n, us]) => [
                    n,
                    (us as string[]).filter((u) => !gone.has(`${n}:${u}`)),
                  ]),
                ),
              )
              .filter((r) => Object.values(r).some((us) => (us as string[]).length > 0));
          });
        },
      };
    },
  },
  {
    rule: 'messages.update.keeps-the-rest',
    how: "drops a message's attachments when its text is edited",
    make: () => hidesEarlierAttachments((req) => sentKeys(req).includes('message')),
  },
  {
    rule: 'messages.update.keeps-the-rest',
    how: "moves a message's created_at when it is updated",
    make: () => {
      const moved = new Set<string>();
      return {
        response(req, res) {
          // An update the server took: one it refused changes nothing (that would break the rule
          // of the refusal too, e.g. api.auth-required's for one without a token).
          const id = idOfPath(MESSAGE, req);
          if (id && isUpdate(req, MESSAGE) && ok(res)) moved.add(id);
          eachResource(res.body, (item) => {
            if (isMessage(item) && moved.has(String(item.id)))
              item.created_at = (item.created_at as number) + 7;
          });
        },
      };
    },
  },
  {
    rule: 'messages.update.keeps-the-rest',
    how: 'rewrites the text of a message that gets a reaction',
    make: () => {
      const rewritten = new Set<string>();
      return {
        response(req, res) {
          // An update the server took (a refused one changes nothing, the token's own included).
          const id = idOfPath(MESSAGE, req);
          if (id && isUpdate(req, MESSAGE) && ok(res)) {
            if (sentKeys(req).some((k) => k.startsWith('reactions'))) rewritten.add(id);
            if (sentKeys(req).includes('message')) rewritten.delete(id);
          }
          eachResource(res.body, (item) => {
            if (isMessage(item) && rewritten.has(String(item.id)))
              item.message = `${String(item.message)} (reacted)`;
          });
        },
      };
    },
  },
  {
    rule: 'contacts.update.keeps-the-rest',
    how: "resets a contact's avatar_url when its display_name is updated",
    make: () => {
      const reset = new Set<string>();
      const DEFAULT = 'https://example.com/avatars/default.png';
      return {
        response(req, res) {
          // A rename the server took, as above.
          const id = idOfPath(CONTACT, req);
          if (id && isUpdate(req, CONTACT) && sentKeys(req).includes('display_name') && ok(res))
            reset.add(id);
          eachResource(res.body, (item) => {
            if (!isMessage(item) && reset.has(String(item.id))) item.avatar_url = DEFAULT;
            const sender = item.contact as Json | undefined;
            if (isMessage(item) && sender && reset.has(String(sender.id))) sender.avatar_url = DEFAULT;
          });
        },
      };
    },
  },
  {
    rule: 'contacts.list',
    how: 'leaves contacts whose display_name differs from their username out of the list',
    make: () => ({
      response(req, res) {
        if (isList(req) && req.path.startsWith('/v1/contacts') && ok(res))
          body(res).data = (body(res).data as Json[]).filter((c) => c.display_name === c.username);
      },
    }),
  },
  {
    rule: 'contacts.update.display-name',
    how: 'keeps showing the display_name given at creation in the contacts list',
    make: () => {
      const original = new Map<string, unknown>();
      return {
        response(req, res) {
          if (isCreate(req, 'contacts') && ok(res))
            original.set(String(body(res).id), body(res).display_name);
          if (isList(req) && req.path.startsWith('/v1/contacts') && ok(res))
            for (const c of body(res).data as Json[])
              if (original.has(String(c.id))) c.display_name = original.get(String(c.id));
        },
      };
    },
  },
  {
    rule: 'contacts.delete',
    how: 'keeps a deleted contact in the contacts list',
    make: () =>
      keepsDeleted(
        (req) => firstLargePage(req) && req.path.startsWith('/v1/contacts') && !req.query.has('active'),
      ),
  },
  {
    rule: 'contacts.delete',
    how: 'keeps a deleted contact in the list with active=false',
    make: () =>
      keepsDeleted(
        (req) => isList(req) && req.path.startsWith('/v1/contacts') && req.query.get('active') === 'false',
      ),
  },
  {
    rule: 'contacts.delete.cascades-conversation',
    how: "keeps a deleted contact's messages in the list of all messages",
    make: () => {
      const ghosts: Json[] = [];
      return {
        async request(req, inner) {
          if (req.method !== 'DELETE' || !CONTACT.test(req.path)) return;
          const found = await inner('GET', req.path, auth(req));
          if (!ok(found)) return;
          const listed = await inner(
            'GET',
            `/v1/messages?conversation_id=${String(body(found).conversation_id)}&limit=100`,
            auth(req),
          );
          if (ok(listed)) ghosts.push(...(body(listed).data as Json[]));
        },
        response(req, res) {
          if (firstLargePage(req) && req.path.startsWith('/v1/messages') && !req.query.has('conversation_id'))
            haunt(req, res, ghosts);
        },
      };
    },
  },
  {
    rule: 'messages.delete.permanent',
    how: 'keeps a deleted message in the list of all messages',
    make: () =>
      keepsDeleted(
        (req) =>
          firstLargePage(req) && req.path.startsWith('/v1/messages') && !req.query.has('conversation_id'),
        MESSAGE,
      ),
  },
  {
    rule: 'messages.update.edit-text',
    how: 'lists a message with the text it was sent with, after an edit',
    make: () => {
      const original = new Map<string, unknown>();
      return {
        response(req, res) {
          if (isCreate(req, 'messages') && ok(res)) original.set(String(body(res).id), body(res).message);
          if (isList(req) && req.path.startsWith('/v1/messages') && ok(res))
            for (const m of body(res).data as Json[])
              if (original.has(String(m.id))) m.message = original.get(String(m.id));
        },
      };
    },
  },
  {
    rule: 'messages.contact-is-sender',
    how: "puts the user's first contact into every message's contact, whatever the conversation",
    make: () => {
      let first: Json | undefined;
      return {
        response(req, res) {
          if (isCreate(req, 'contacts') && ok(res) && !first) {
            const contact = body(res);
            first = Object.fromEntries(Object.keys(SENDER).map((field) => [field, contact[field]]));
          }
          eachResource(res.body, (item) => {
            if (isMessage(item) && first) item.contact = { ...first };
          });
        },
      };
    },
  },
  {
    rule: 'messages.update.add-reaction',
    how: "replaces a reaction's usernames instead of adding to them",
    make: () => {
      const only = new Map<string, Map<string, string>>();
      return {
        request(req) {
          const id = idOfPath(MESSAGE, req);
          if (!id || !isUpdate(req, MESSAGE)) return;
          for (const [key, value] of req.form?.entries() ?? []) {
            const name = /^reactions\[([^\]]+)\]/.exec(key)?.[1];
            if (name) (only.get(id) ?? only.set(id, new Map()).get(id)!).set(name, value);
          }
        },
        response(_req, res) {
          eachResource(res.body, (item) => {
            const names = only.get(String(item.id));
            if (!isMessage(item) || !names || !Array.isArray(item.reactions)) return;
            item.reactions = (item.reactions as Json[]).map((r) =>
              Object.fromEntries(Object.entries(r).map(([n, us]) => [n, names.has(n) ? [names.get(n)] : us])),
            );
          });
        },
      };
    },
  },
  {
    rule: 'messages.update.add-attachment',
    how: 'replaces the attachments with the one an update adds',
    make: () => hidesEarlierAttachments((req) => sentKeys(req).some((k) => k.startsWith('attachments'))),
  },
  {
    rule: 'lists.has-more',
    how: 'says has_more=true on a last page that is exactly full',
    make: () => ({
      response(req, res) {
        if (!isList(req) || !ok(res)) return;
        const page = body(res);
        if (!page.has_more && (page.data as Json[]).length === Number(req.query.get('limit') ?? '10'))
          page.has_more = true;
      },
    }),
  },
  {
    // Its maximum page size is its own (the document shows none), but has_more is told from the
    // limit asked, not from what the page holds.
    rule: 'lists.has-more',
    how: 'gives fifty records at most whatever the limit, and says has_more from the limit asked',
    make: () => ({
      response(req, res) {
        if (!isList(req) || !ok(res)) return;
        const page = body(res);
        if ((page.data as Json[]).length > 50) page.data = (page.data as Json[]).slice(0, 50);
      },
    }),
  },
  {
    // The walk ends early, its pages whole: no record lost between pages, has_more alone wrong.
    rule: 'lists.has-more',
    how: 'says has_more=false on the second page of a walk, though more follow',
    make: () => ({
      response(req, res) {
        if (isList(req) && ok(res) && req.query.has('starting_after')) body(res).has_more = false;
      },
    }),
  },
  {
    // The same, where messages sent at once are answered out of the order they were made in (its
    // right): the walk's order is the server's, not the order the kit's creates were answered in.
    rule: 'lists.has-more',
    how: 'says has_more=false on the second page of a walk, and answers messages sent at once out of their order',
    make: () => {
      let creates = 0;
      return {
        async response(req, res) {
          if (isCreate(req, 'messages') && ok(res))
            await new Promise((resolve) => setTimeout(resolve, (creates++ % 3) * 20));
          if (isList(req) && ok(res) && req.query.has('starting_after')) body(res).has_more = false;
        },
      };
    },
  },
  {
    rule: 'lists.pages',
    how: 'skips the first item of a next page that is not the last',
    make: () => ({
      response(req, res) {
        if (isList(req) && req.query.has('starting_after') && ok(res) && body(res).has_more)
          body(res).data = (body(res).data as Json[]).slice(1);
      },
    }),
  },
  {
    rule: 'lists.pages',
    how: "repeats the previous page's last item at the top of a last page with room for it",
    make: () => ({
      async response(req, res, inner) {
        const cursor = req.query.get('starting_after');
        if (!isList(req) || !cursor || !ok(res) || body(res).has_more) return;
        // Only where the page has room for one more: a page past its size breaks lists.limit too.
        const size = Math.min(Number(req.query.get('limit') ?? 10), 100);
        if ((body(res).data as Json[]).length >= size) return;
        const kind = req.path.startsWith('/v1/contacts') ? 'contacts' : 'messages';
        const previous = await inner('GET', `/v1/${kind}/${cursor}`, auth(req));
        if (ok(previous)) body(res).data = [body(previous), ...(body(res).data as Json[])];
      },
    }),
  },
  {
    rule: 'lists.pages',
    how: 'leaves out the item just before the cursor on the way back (ending_before)',
    make: () => ({
      response(req, res) {
        if (isList(req) && req.query.has('ending_before') && ok(res))
          body(res).data = (body(res).data as Json[]).slice(0, -1);
      },
    }),
  },
  {
    rule: 'contacts.delete.cascades-conversation',
    how: "shows a deleted contact's messages again at the end of the list of all messages, past its first page",
    make: () => {
      // The messages of each token's deleted contacts, as they were.
      const ghosts = new Map<string, Json[]>();
      const all = async (inner: Parameters<NonNullable<Wrapper['request']>>[1], req: ProxyRequest) => {
        const items: Json[] = [];
        for (let after: string | undefined; ;) {
          const page = await inner(
            'GET',
            `/v1/messages?limit=100${after ? `&starting_after=${after}` : ''}`,
            auth(req),
          );
          items.push(...dataOf(page));
          if (!ok(page) || !body(page).has_more || items.length === 0) return items;
          after = String(items.at(-1)!.id);
        }
      };
      return {
        async request(req, inner) {
          const token = req.headers.authorization ?? '';
          const contact = CONTACT.exec(req.path);
          if (req.method === 'DELETE' && contact) {
            const found = await inner('GET', req.path, auth(req));
            if (!ok(found)) return;
            const conversation = String(body(found).conversation_id);
            const gone = (await all(inner, req)).filter((m) => String(m.conversation_id) === conversation);
            ghosts.set(token, [...(ghosts.get(token) ?? []), ...gone]);
            return;
          }
          const cursor = req.query.get('starting_after') ?? req.query.get('ending_before');
          const mine = ghosts.get(token);
          if (
            !isList(req) ||
            !/messages/.test(req.path) ||
            req.query.has('conversation_id') ||
            !cursor ||
            !mine
          )
            return;
          const limit = Number(req.query.get('limit') ?? '10');
          if (!Number.isInteger(limit) || limit < 1 || limit > 100) return;
          // The list as the mock orders it, then the ghosts (as a query that sorts the rows it
          // should have left out last would show them).
          const merged = [...(await all(inner, req)), ...mine];
          const i = merged.findIndex((m) => String(m.id) === cursor);
          if (i === -1) return;
          const forward = req.query.has('starting_after');
          const from = forward ? i + 1 : Math.max(0, i - limit);
          const to = forward ? i + 1 + limit : i;
          return {
            status: 200,
            headers: {},
            body: { data: merged.slice(from, to), has_more: forward ? to < merged.length : from > 0 },
          };
        },
      };
    },
  },
  {
    rule: 'contacts.delete.cascades-conversation',
    how: "takes messages into a deleted contact's conversation again a second after the delete",
    make: () => {
      // Each deleted contact's conversation: the contact as it was, and when it went.
      const gone = new Map<string, { contact: Json; at: number }>();
      return {
        async request(req, inner) {
          if (req.method === 'DELETE' && CONTACT.test(req.path)) {
            const found = await inner('GET', req.path, auth(req));
            if (ok(found))
              gone.set(String(body(found).conversation_id), { contact: body(found), at: Date.now() });
            return;
          }
          const conversation = isCreate(req, 'messages') ? req.form?.get('conversation_id') : undefined;
          const deleted = conversation ? gone.get(conversation) : undefined;
          if (!deleted || Date.now() - deleted.at < 1000) return;
          const { id, username, phone_number, avatar_url, last_active_at, created_at } = deleted.contact;
          const now = Math.floor(Date.now() / 1000);
          return {
            status: 201,
            headers: {},
            body: {
              id: `Ghost${String(Date.now()).slice(-11)}`,
              conversation_id: conversation,
              message: req.form!.get('message') ?? '',
              contact: { id, username, phone_number, avatar_url, last_active_at, created_at },
              reactions: [],
              attachments: [],
              created_at: now,
              read_at: null,
              updated_at: null,
            },
          };
        },
      };
    },
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
      // Every value of a repeated key (several users of one reaction in one update) kept.
      for (const params of [req.query, req.form])
        if (params) rewritePairs(params, (key, value) => [key, unprefix(value)]);
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

/**
 * An honest server with input formats of its own, as real services validate: German phone numbers
 * in E.164 only (`+49` and 9 to 12 digits), usernames of at most 20 characters of
 * `[A-Za-z0-9_.-]`, https avatar URLs, attachments given as `url` and `name` only (shown back as
 * such), reaction names of `[a-z0-9_]`. Anything else is refused with 422, and nothing changes.
 */
export function strictInputs(): Wrapper {
  const refuse = (param: string): ProxyResponse => ({
    status: 422,
    headers: {},
    body: { error: { param, message: `${param} is not in the accepted format` } },
  });
  const rename = (value: unknown) => {
    if (!Array.isArray(value)) return;
    for (const a of value as Json[]) {
      if (!a || typeof a !== 'object') continue;
      const { filename, file_url, ...rest } = a;
      for (const key of Object.keys(a)) delete a[key];
      Object.assign(a, rest, { name: filename, url: file_url });
    }
  };
  return {
    request(req) {
      const form = req.form;
      if (!form || (req.method !== 'POST' && req.method !== 'PUT')) return;
      const phone = form.get('phone_number');
      if (phone !== null && !/^\+49[0-9]{9,12}$/.test(phone)) return refuse('phone_number');
      const username = form.get('username');
      if (username !== null && !/^[A-Za-z0-9_.-]{1,20}$/.test(username)) return refuse('username');
      const avatar = form.get('avatar_url');
      if (avatar !== null && !/^https:\/\/[^\s]+$/.test(avatar)) return refuse('avatar_url');
      for (const key of [...form.keys()]) {
        const reaction = /^reactions\[([^\]]*)\]/.exec(key);
        if (reaction && !/^[a-z0-9_]{1,32}$/.test(reaction[1]!)) return refuse('reactions');
        const attachment = /^attachments\[(\d+)\]\[([^\]]*)\]$/.exec(key);
        if (attachment && attachment[2] !== 'url' && attachment[2] !== 'name') return refuse('attachments');
      }
      // The mock underneath names the same two fields file_url and filename.
      rewritePairs(form, (key, value) => {
        const at = /^(attachments\[\d+\])\[(url|name)\]$/.exec(key);
        return [at ? `${at[1]}[${at[2] === 'url' ? 'file_url' : 'filename'}]` : key, value];
      });
    },
    response(_req, res) {
      eachResource(res.body, (item) => rename(item.attachments));
    },
  };
}

const lacks = (req: ProxyRequest, key: string) => !req.form || !req.form.has(key);
const refusal = (message: string): ProxyResponse => ({ status: 400, headers: {}, body: { message } });
const dataOf = (res: ProxyResponse) => ((res.body as Json | undefined)?.data as Json[] | undefined) ?? [];

/** Refuses a create that lacks `key` (400), after making it with `filler` in its place. */
function leavesATrace(kind: 'contacts' | 'messages', key: string, filler: string): Wrapper {
  const marked = new WeakSet<ProxyRequest>();
  return {
    request(req) {
      if (!isCreate(req, kind) || !req.form || req.form.has(key)) return;
      req.form.set(key, filler);
      marked.add(req);
    },
    response(req, res) {
      if (!marked.has(req)) return;
      res.status = 400;
      res.body = { error: { type: 'invalid_request_error', message: `${key} is required` } };
    },
  };
}

/**
 * One rogue more for each documented rule that no rogue above breaks, each in the view where the
 * rule is seen: retrieve, the unknown ids, the fields in a list, the page fields, the `active`
 * parameter, the list of all messages, the attachments of a new message, the /v1 prefix.
 */
export const VIEW_ROGUES: Rogue[] = [
  {
    rule: 'messages.list.all-conversations',
    how: 'shows every message a second late in the list of all messages only',
    make: () => ({
      response(req, res) {
        if (req.method !== 'GET' || req.path !== '/v1/messages' || req.query.has('conversation_id')) return;
        if (!ok(res) || !Array.isArray(body(res).data)) return;
        for (const m of body(res).data as Json[]) if (typeof m.created_at === 'number') m.created_at += 1;
      },
    }),
  },
  {
    rule: 'api.v1-prefix',
    how: 'redirects the list of all messages, asked for with a token and nothing else, to /v2/messages',
    make: () => ({
      request(req) {
        const bare = req.method === 'GET' && req.path === '/v1/messages' && req.query.size === 0;
        if (bare && req.headers.authorization)
          return { status: 301, headers: { location: '/v2/messages' }, text: '' };
      },
    }),
  },
  {
    rule: 'contacts.retrieve',
    how: 'answers the retrieve of a contact with its created_at a second late',
    make: () => ({
      response(req, res) {
        if (req.method === 'GET' && CONTACT.test(req.path) && ok(res)) {
          const c = body(res);
          if (typeof c.created_at === 'number') c.created_at += 1;
        }
      },
    }),
  },
  {
    rule: 'messages.retrieve',
    how: 'answers the retrieve of a message with its created_at a second late',
    make: () => ({
      response(req, res) {
        if (req.method === 'GET' && MESSAGE.test(req.path) && ok(res)) {
          const m = body(res);
          if (typeof m.created_at === 'number') m.created_at += 1;
        }
      },
    }),
  },
  {
    rule: 'contacts.unknown-id',
    how: 'answers the delete of a contact it does not have with 204',
    make: () => ({
      response(req, res) {
        if (req.method === 'DELETE' && CONTACT.test(req.path) && res.status === 404) {
          res.status = 204;
          res.body = undefined;
        }
      },
    }),
  },
  {
    rule: 'messages.unknown-id',
    how: 'answers the update of a message it does not have with 200 and an empty object',
    make: () => ({
      response(req, res) {
        if (isUpdate(req, MESSAGE) && res.status === 404 && idOfPath(MESSAGE, req)?.startsWith('zz')) {
          res.status = 200;
          res.body = {};
        }
      },
    }),
  },
  {
    rule: 'contacts.fields',
    how: 'leaves avatar_url out of the contacts in the contacts list',
    make: () => ({
      response(req, res) {
        if (isList(req) && req.path.startsWith('/v1/contacts') && ok(res))
          for (const c of body(res).data as Json[]) delete c.avatar_url;
      },
    }),
  },
  {
    rule: 'messages.fields',
    how: 'leaves updated_at out of the messages of a conversation list',
    make: () => ({
      response(req, res) {
        if (isList(req) && req.query.has('conversation_id') && ok(res))
          for (const m of body(res).data as Json[]) delete m.updated_at;
      },
    }),
  },
  {
    rule: 'lists.page-fields',
    how: 'answers has_more as 0 or 1 on a page asked for without limit',
    make: () => ({
      response(req, res) {
        if (isList(req) && !req.query.has('limit') && ok(res))
          body(res).has_more = body(res).has_more ? 1 : 0;
      },
    }),
  },
  {
    rule: 'contacts.list.active-parameter',
    how: 'refuses active=true with 400',
    make: () => ({
      request(req) {
        if (isList(req) && req.path.startsWith('/v1/contacts') && req.query.get('active') === 'true')
          return refusal('active must be 1 or 0');
      },
    }),
  },
  {
    rule: 'messages.list.all-conversations',
    how: 'leaves conversations of more than ten messages out of the list without conversation_id',
    make: () => {
      const sent = new Map<unknown, number>();
      return {
        response(req, res) {
          if (isCreate(req, 'messages') && ok(res)) {
            const conversation = body(res).conversation_id;
            sent.set(conversation, (sent.get(conversation) ?? 0) + 1);
          }
          if (
            !isList(req) ||
            !req.path.startsWith('/v1/messages') ||
            req.query.has('conversation_id') ||
            !ok(res)
          )
            return;
          body(res).data = (body(res).data as Json[]).filter((m) => (sent.get(m.conversation_id) ?? 0) <= 10);
        },
      };
    },
  },
  {
    rule: 'api.json-objects',
    how: 'answers a contact update with 204 and no body',
    make: () => ({
      response(req, res) {
        if (isUpdate(req, CONTACT) && ok(res)) {
          res.status = 204;
          res.body = undefined;
        }
      },
    }),
  },
  {
    rule: 'api.form-parameters',
    how: 'takes JSON bodies only: every form body of a POST or PUT is refused with 415',
    make: () => ({
      request(req) {
        if ((req.method === 'POST' || req.method === 'PUT') && req.form)
          return { status: 415, headers: {}, body: { message: 'send application/json' } };
      },
    }),
  },
  {
    rule: 'api.form-parameters',
    how: 'takes JSON bodies only: every form body of a POST or PUT is refused with 400, asking for JSON',
    make: () => ({
      request(req) {
        if ((req.method === 'POST' || req.method === 'PUT') && req.form)
          return {
            status: 400,
            headers: {},
            body: { error: { code: 'bad_request', message: 'the request body must be JSON' } },
          };
      },
    }),
  },
  {
    rule: 'messages.send.attachments',
    how: 'stores a new message without the attachments it was sent with',
    make: () => ({
      request(req) {
        if (!isCreate(req, 'messages') || !req.form) return;
        for (const key of [...req.form.keys()]) if (key.startsWith('attachments')) req.form.delete(key);
      },
    }),
  },
  {
    rule: 'messages.update.updated-at',
    how: 'leaves updated_at null after an update that only adds a reaction, in every view',
    make: () => {
      // The messages whose last update only added a reaction: every view shows them never updated.
      const stamped = new Set<string>();
      return {
        response(req, res) {
          if (isUpdate(req, MESSAGE) && ok(res)) {
            const id = idOfPath(MESSAGE, req)!;
            const reactionOnly = sentKeys(req).every((key) => key.startsWith('reactions'));
            if (reactionOnly && sentKeys(req).length > 0) stamped.add(decodeURIComponent(id));
            else stamped.delete(decodeURIComponent(id));
          }
          if (ok(res))
            eachResource(res.body, (item) => {
              if (isMessage(item) && stamped.has(String(item.id))) item.updated_at = null;
            });
        },
      };
    },
  },
  {
    // The create answer is right; what the server holds is not.
    rule: 'contacts.create.display-name-defaults-to-username',
    how: 'names a contact created without display_name by its username in the answer, and "Unnamed" in every read after',
    make: () => {
      const unnamed = new Set<string>();
      return {
        response(req, res) {
          if (!ok(res)) return;
          if (isCreate(req, 'contacts') && !req.form?.has('display_name')) unnamed.add(String(body(res).id));
          if (isUpdate(req, CONTACT) && req.form?.has('display_name'))
            unnamed.delete(decodeURIComponent(idOfPath(CONTACT, req)!));
          if (req.method === 'GET')
            eachResource(res.body, (item) => {
              if (!isMessage(item) && unnamed.has(String(item.id))) item.display_name = 'Unnamed';
            });
        },
      };
    },
  },
  {
    // The send's answer is right; a read of a message never updated is not.
    rule: 'messages.send.new-message-defaults',
    how: 'shows updated_at as created_at in every read of a message never updated',
    make: () => ({
      response(req, res) {
        if (req.method === 'GET' && ok(res))
          eachResource(res.body, (item) => {
            if (isMessage(item) && item.updated_at === null) item.updated_at = item.created_at;
          });
      },
    }),
  },
  {
    // Later reads show the time; the edit's own answer does not.
    rule: 'messages.update.updated-at',
    how: 'answers a text edit with updated_at null',
    make: () => ({
      response(req, res) {
        if (isUpdate(req, MESSAGE) && ok(res) && req.form?.has('message')) body(res).updated_at = null;
      },
    }),
  },
];

/**
 * For each attribute of a contact that a create or an update takes, and that the answer must show
 * as sent (the kit's table, contract-tests/rules/resources.ts): a server that takes the request but
 * not that attribute, as if it had been left out. A field added to the table is tried here too,
 * through the kit and, on the same traffic, the proxy's judge.
 */
function droppedFieldRogues(): Rogue[] {
  const dropping = (operation: 'create' | 'update', field: string): Wrapper => ({
    request(req) {
      const sends =
        operation === 'create' ? isCreate(req, 'contacts') : req.method === 'PUT' && CONTACT.test(req.path);
      if (sends) req.form?.delete(field);
    },
  });
  const shownAsSent = (fields: string[]) =>
    fields.filter((field) => CONTACT_FIELDS[field]!.sent !== undefined);
  return [
    ...shownAsSent(optionalOf(CONTACT_FIELDS)).map((field) => ({
      rule: 'contacts.create',
      how: `takes a contact create that sends ${field} as if ${field} had been left out`,
      make: () => dropping('create', field),
    })),
    ...shownAsSent(updatedWith(CONTACT_FIELDS)).map((field) => ({
      rule: 'contacts.update.display-name',
      how: `takes a contact update that sends ${field} as if ${field} had been left out`,
      make: () => dropping('update', field),
    })),
  ];
}

/**
 * Rogues of the input space and of the whole account: faults that no fixed check was written
 * for, found by the combinations of optional parameters, the values sent and compared in every
 * view, and the model's reading of every record after each step.
 */
export const INPUT_ROGUES: Rogue[] = [
  {
    // The default display name follows the username as the server holds it: the fault is the
    // username's alone (contacts.create), not the default's.
    rule: 'contacts.create',
    how: 'lower-cases the username of every contact it creates',
    make: () => ({
      request(req) {
        const username = isCreate(req, 'contacts') ? req.form?.get('username') : null;
        if (username) req.form!.set('username', username.toLowerCase());
      },
    }),
  },
  {
    rule: 'contacts.create.requires-username-and-phone-number',
    how: 'answers a create without phone_number with 400, and creates the contact all the same',
    make: () => leavesATrace('contacts', 'phone_number', '+15550000000'),
  },
  {
    rule: 'messages.send.requires-conversation-id-and-message',
    how: 'answers a send without message with 400, and sends it with a text of its own all the same',
    make: () => leavesATrace('messages', 'message', 'x'),
  },
  {
    rule: 'contacts.create.requires-username-and-phone-number',
    how: 'creates a contact sent without phone_number, with a number of its own',
    make: () => ({
      request(req) {
        if (isCreate(req, 'contacts') && req.form && !req.form.has('phone_number'))
          req.form.set('phone_number', '+15550000000');
      },
    }),
  },
  {
    rule: 'messages.send.requires-conversation-id-and-message',
    how: 'answers 500 to a send without conversation_id',
    make: () => ({
      request(req) {
        if (isCreate(req, 'messages') && req.form && !req.form.has('conversation_id'))
          return { status: 500, headers: {}, body: { error: { message: 'internal error' } } };
      },
    }),
  },
  {
    rule: 'contacts.delete.cascades-conversation',
    how: "deletes with a contact only the first 20 of its conversation's messages (two pages), and the rest stay",
    make: () => {
      const stayed = new Map<string, Json>();
      return {
        async request(req, inner) {
          const id = idOfPath(MESSAGE, req);
          const ghost = id === undefined ? undefined : stayed.get(id);
          if (ghost && req.method === 'GET') return { status: 200, headers: {}, body: ghost };
          if (req.method !== 'DELETE' || !CONTACT.test(req.path)) return;
          const found = await inner('GET', req.path, auth(req));
          if (!ok(found)) return;
          const listed = await inner(
            'GET',
            `/v1/messages?conversation_id=${String(body(found).conversation_id)}&limit=100`,
            auth(req),
          );
          if (ok(listed))
            for (const m of (body(listed).data as Json[]).slice(20)) stayed.set(String(m.id), m);
        },
        response(req, res) {
          if (!isList(req) || !req.path.startsWith('/v1/messages') || !ok(res)) return;
          const conversation = req.query.get('conversation_id');
          const ghosts = [...stayed.values()].filter(
            (m) => conversation === null || m.conversation_id === conversation,
          );
          if (conversation !== null || firstLargePage(req)) haunt(req, res, ghosts);
        },
      };
    },
  },
  {
    rule: 'messages.delete.permanent',
    how: 'brings a deleted message back, to retrieve and the list of all messages, once 40 more messages are sent',
    make: () => {
      /** Deleted messages, each with the number of messages sent when it was deleted. */
      const trash: { message: Json; at: number }[] = [];
      let sent = 0;
      const back = () => trash.filter((t) => sent - t.at >= 40).map((t) => t.message);
      return {
        async request(req, inner) {
          const id = idOfPath(MESSAGE, req);
          if (id && req.method === 'DELETE') {
            const found = await inner('GET', req.path, auth(req));
            if (ok(found)) trash.push({ message: body(found), at: sent });
          }
          const ghost = back().find((m) => String(m.id) === id);
          if (ghost && req.method === 'GET') return { status: 200, headers: {}, body: ghost };
        },
        response(req, res) {
          if (isCreate(req, 'messages') && ok(res)) sent += 1;
          if (firstLargePage(req) && req.path.startsWith('/v1/messages') && !req.query.has('conversation_id'))
            haunt(req, res, back());
        },
      };
    },
  },
  {
    rule: 'contacts.update.display-name',
    how: 'refuses a contact update without display_name',
    make: () => ({
      request(req) {
        if (req.method === 'PUT' && CONTACT.test(req.path) && lacks(req, 'display_name'))
          return refusal('display_name is required');
      },
    }),
  },
  {
    rule: 'contacts.update.keeps-the-rest',
    how: 'renames a contact updated without display_name',
    make: () => ({
      request(req) {
        if (req.method === 'PUT' && CONTACT.test(req.path) && lacks(req, 'display_name')) {
          req.form = new URLSearchParams({ display_name: 'Unnamed' });
          req.headers['content-type'] = 'application/x-www-form-urlencoded';
        }
      },
    }),
  },
  {
    rule: 'messages.update.add-reaction',
    how: 'refuses a message update of reactions alone, without message text',
    make: () => ({
      request(req) {
        // Attachments without text are taken: refusing them too would break
        // messages.update.add-attachment as well.
        if (
          req.method === 'PUT' &&
          MESSAGE.test(req.path) &&
          lacks(req, 'message') &&
          !sentKeys(req).some((key) => key.startsWith('attachments'))
        )
          return refusal('message is required');
      },
    }),
  },
  {
    rule: 'messages.send',
    how: 'cuts message texts at 200 characters',
    make: () => ({
      request(req) {
        const text = req.form?.get('message');
        if (isCreate(req, 'messages') && text) req.form!.set('message', text.slice(0, 200));
      },
    }),
  },
  {
    rule: 'messages.update.edit-text',
    how: 'escapes < and > in edited texts',
    make: () => ({
      request(req) {
        const text = req.form?.get('message');
        if (req.method === 'PUT' && MESSAGE.test(req.path) && text)
          req.form!.set('message', text.replace(/</g, '&lt;').replace(/>/g, '&gt;'));
      },
    }),
  },
  {
    rule: 'contacts.create',
    how: 'drops the + of phone numbers',
    make: () => ({
      request(req) {
        const phone = req.form?.get('phone_number');
        if (isCreate(req, 'contacts') && phone) req.form!.set('phone_number', phone.replace(/\+/g, ''));
      },
    }),
  },
  {
    rule: 'contacts.create',
    how: 'replaces a given avatar_url with an empty string',
    make: () => {
      const given = new Set<string>();
      return {
        response(req, res) {
          if (isCreate(req, 'contacts') && ok(res) && req.form?.has('avatar_url'))
            given.add(String(body(res).id));
          eachResource(res.body, (item) => {
            const contact = isMessage(item) ? (item.contact as Json) : item;
            if (contact && given.has(String(contact.id))) contact.avatar_url = '';
          });
        },
      };
    },
  },
  {
    rule: 'contacts.update.display-name',
    how: 'upper-cases new display names',
    make: () => ({
      request(req) {
        const name = req.form?.get('display_name');
        if (req.method === 'PUT' && CONTACT.test(req.path) && name)
          req.form!.set('display_name', name.toUpperCase());
      },
    }),
  },
  {
    rule: 'messages.delete.permanent',
    how: 'also deletes the next message of the conversation',
    make: () => ({
      async request(req, inner) {
        const message = MESSAGE.exec(req.path);
        if (req.method !== 'DELETE' || !message) return;
        const found = await inner('GET', req.path, auth(req));
        if (!ok(found)) return;
        const listed = await inner(
          'GET',
          `/v1/messages?conversation_id=${String(body(found).conversation_id)}&limit=100`,
          auth(req),
        );
        const items = dataOf(listed);
        const at = items.findIndex((m) => String(m.id) === message[1]);
        const next = at >= 0 ? (items[at + 1] ?? items[at - 1]) : undefined;
        if (next) await inner('DELETE', `/v1/messages/${String(next.id)}`, auth(req));
      },
    }),
  },
  {
    rule: 'contacts.delete',
    how: "also empties another contact's conversation",
    make: () => ({
      async request(req, inner) {
        const contact = CONTACT.exec(req.path);
        if (req.method !== 'DELETE' || !contact) return;
        const listed = await inner('GET', '/v1/messages?limit=100', auth(req));
        const victim = dataOf(listed).find((m) => String((m.contact as Json | undefined)?.id) !== contact[1]);
        if (!victim) return;
        const all = await inner(
          'GET',
          `/v1/messages?conversation_id=${String(victim.conversation_id)}&limit=100`,
          auth(req),
        );
        for (const m of dataOf(all)) await inner('DELETE', `/v1/messages/${String(m.id)}`, auth(req));
      },
    }),
  },
  {
    rule: 'lists.pages',
    how: 'repeats the last item of a page at the top of the next (starting_after)',
    make: () => ({
      async request(req, inner) {
        const after = req.query.get('starting_after');
        if (!isList(req) || !after) return;
        const res = await forwardTo(inner, req);
        const kind = req.path.includes('contacts') ? 'contacts' : 'messages';
        const previous = await inner('GET', `/v1/${kind}/${after}`, auth(req));
        if (ok(res) && ok(previous)) {
          const data = dataOf(res);
          data.unshift(body(previous));
          if (data.length > Number(req.query.get('limit') ?? 10)) data.pop();
        }
        return res;
      },
    }),
  },
  {
    rule: 'messages.update.edit-text',
    how: 'decodes the text of a message edit twice, when sent as a form (text that looks percent-encoded, %41, becomes other text)',
    make: () => ({
      request(req) {
        const text = isUpdate(req, MESSAGE) ? req.form?.get('message') : undefined;
        if (text === undefined || text === null || !/%[0-9A-Fa-f]{2}/.test(text)) return;
        try {
          req.form!.set('message', decodeURIComponent(text));
        } catch {
          // Not decodable a second time: sent as it came.
        }
      },
    }),
  },
  ...droppedFieldRogues(),
];

async function forwardTo(
  inner: Parameters<NonNullable<Wrapper['request']>>[1],
  req: ProxyRequest,
): Promise<ProxyResponse> {
  return inner(req.method, `${req.path}?${req.query.toString()}`, auth(req));
}
