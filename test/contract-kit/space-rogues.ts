import { eachResource, isMessage, rewritePairs, type ProxyRequest, type ProxyResponse } from './harness';
import type { Rogue } from './servers';

/**
 * Rogues of the input space as the document draws it, not as a list of values: each breaks one
 * rule only where a value class, a long value, a repeat, a count, updates sent at once, many reads,
 * a deleted id or a pair of list parameters shows it, and only the kit's tests of those see it.
 */
type Json = Record<string, unknown>;

const CONTACT = /^\/v1\/contacts\/([^/]+)\/?$/;
const MESSAGE = /^\/v1\/messages\/([^/]+)\/?$/;
const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
const body = (res: ProxyResponse) => res.body as Json;
const auth = (req: ProxyRequest) => ({ authorization: req.headers.authorization ?? '' });
const isUpdate = (req: ProxyRequest, pattern: RegExp) => req.method === 'PUT' && pattern.test(req.path);
const isCreate = (req: ProxyRequest, kind: 'contacts' | 'messages') =>
  req.method === 'POST' && req.path.replace(/\/$/, '') === `/v1/${kind}`;
const isMessagesList = (req: ProxyRequest) => req.method === 'GET' && /^\/v1\/messages\/?$/.test(req.path);
const isContactsList = (req: ProxyRequest) => req.method === 'GET' && /^\/v1\/contacts\/?$/.test(req.path);
const REACTION_KEY = /^reactions\[([^\]]+)\]\[\]$/;

/** Reactions as the mock shows them, name → usernames, one object a name. */
function mergeReactions(shown: unknown, added: [string, string][]): Json[] {
  const names = new Map<string, string[]>();
  for (const item of Array.isArray(shown) ? (shown as Json[]) : [])
    for (const [name, users] of Object.entries(item)) names.set(name, [...(users as string[])]);
  for (const [name, user] of added) {
    const users = names.get(name) ?? [];
    if (!users.includes(user)) users.push(user);
    names.set(name, users);
  }
  return [...names].map(([name, users]) => ({ [name]: users }));
}

export const SPACE_ROGUES: Rogue[] = [
  {
    rule: 'messages.update.edit-text',
    how: 'cuts texts longer than 4,000 characters to 4,000, on an edit only',
    make: () => ({
      request(req) {
        const text = req.form?.get('message');
        if (isUpdate(req, MESSAGE) && text && text.length > 4000)
          req.form!.set('message', text.slice(0, 4000));
      },
    }),
  },
  {
    rule: 'contacts.update.display-name',
    how: 'takes the joiners and variation selectors out of emoji sequences, on a rename only',
    make: () => ({
      request(req) {
        const name = req.form?.get('display_name');
        if (isUpdate(req, CONTACT) && name)
          req.form!.set('display_name', name.replace(/[\u200d\ufe0f]/g, ''));
      },
    }),
  },
  {
    rule: 'contacts.update.display-name',
    how: 'decodes + as a space and cuts at & in display_name, on a rename only',
    make: () => ({
      request(req) {
        const name = req.form?.get('display_name');
        if (isUpdate(req, CONTACT) && name)
          req.form!.set('display_name', name.replace(/\+/g, ' ').split('&')[0]!);
      },
    }),
  },
  {
    rule: 'messages.update.add-attachment',
    how: 'keeps only the last of several attachments sent in one update',
    make: () => ({
      request(req) {
        if (!isUpdate(req, MESSAGE) || !req.form) return;
        const indexes = new Set(
          [...req.form.keys()]
            .map((k) => /^attachments\[(\d+)\]/.exec(k)?.[1])
            .filter((i) => i !== undefined),
        );
        if (indexes.size < 2) return;
        const last = String(Math.max(...[...indexes].map(Number)));
        const kept = [...req.form].filter(
          ([k]) => !k.startsWith('attachments[') || k.startsWith(`attachments[${last}]`),
        );
        req.form = new URLSearchParams(
          kept.map(([k, v]): [string, string] => [k.replace(`attachments[${last}]`, 'attachments[0]'), v]),
        );
      },
    }),
  },
  {
    rule: 'messages.update.add-reaction',
    how: 'keeps only the first two reaction names of a message, dropping a third',
    make: () => ({
      async request(req, inner) {
        if (!isUpdate(req, MESSAGE) || !req.form) return;
        const keys = [...req.form.keys()].filter((k) => REACTION_KEY.test(k));
        if (keys.length === 0) return;
        const found = await inner('GET', req.path, auth(req));
        if (!ok(found)) return;
        const names = new Set((body(found).reactions as Json[]).flatMap((r) => Object.keys(r)));
        for (const key of keys) {
          const name = REACTION_KEY.exec(key)![1]!;
          if (!names.has(name) && names.size >= 2) req.form.delete(key);
          else names.add(name);
        }
      },
    }),
  },
  {
    rule: 'messages.update.add-reaction',
    how: 'adds reactions by reading the message, waiting, and writing it back whole, so that updates sent at once lose some',
    make: () => {
      const written = new Map<string, Json[]>();
      return {
        async request(req, inner) {
          const id = MESSAGE.exec(req.path)?.[1];
          if (!isUpdate(req, MESSAGE) || !id || !req.form) return;
          const added = [...req.form]
            .filter(([k]) => REACTION_KEY.test(k))
            .map(([k, v]) => [REACTION_KEY.exec(k)![1]!, v] as [string, string]);
          if (added.length === 0) return;
          const read = await inner('GET', req.path, auth(req));
          if (!ok(read)) return;
          const before = written.get(id) ?? body(read).reactions;
          await new Promise((resolve) => setTimeout(resolve, 40));
          written.set(id, mergeReactions(before, added));
        },
        response(_req, res) {
          eachResource(res.body, (item) => {
            const kept = written.get(String(item.id));
            if (isMessage(item) && kept) item.reactions = kept;
          });
        },
      };
    },
  },
  {
    rule: 'messages.send.new-message-defaults',
    how: 'sets updated_at of a message never updated when it is retrieved the third time',
    make: () => {
      const reads = new Map<string, number>();
      const touched = new Map<string, number>();
      return {
        response(req, res) {
          const id = MESSAGE.exec(req.path)?.[1];
          if (id && req.method === 'GET' && ok(res) && body(res).updated_at === null) {
            const n = (reads.get(id) ?? 0) + 1;
            reads.set(id, n);
            if (n === 3) touched.set(id, Math.floor(Date.now() / 1000));
          }
          eachResource(res.body, (item) => {
            const at = touched.get(String(item.id));
            if (isMessage(item) && at !== undefined && item.updated_at === null) item.updated_at = at;
          });
        },
      };
    },
  },
  {
    rule: 'api.unique-ids',
    how: 'gives the next contact created the id of the last contact deleted',
    make: () => {
      const freed: string[] = [];
      /** The id shown → the mock's id, and back. */
      const real = new Map<string, string>();
      const shown = new Map<string, string>();
      const asked = new WeakMap<ProxyRequest, string>();
      const show = (id: unknown) => shown.get(String(id)) ?? id;
      return {
        request(req) {
          const id = CONTACT.exec(req.path)?.[1];
          if (!id) return;
          asked.set(req, id);
          if (real.has(id)) req.path = req.path.replace(id, real.get(id)!);
        },
        response(req, res) {
          if (req.method === 'DELETE' && ok(res) && asked.has(req)) freed.push(asked.get(req)!);
          if (isCreate(req, 'contacts') && ok(res) && freed.length > 0) {
            const reused = freed.pop()!;
            const id = String(body(res).id);
            real.set(reused, id);
            shown.set(id, reused);
          }
          eachResource(res.body, (item) => {
            if (isMessage(item)) (item.contact as Json).id = show((item.contact as Json).id);
            else item.id = show(item.id);
          });
        },
      };
    },
  },
  {
    rule: 'messages.list.conversation-filter',
    how: 'drops conversation_id when limit is given too (the conversation views, read with limit, see it)',
    make: () => ({
      request(req) {
        if (isMessagesList(req) && req.query.has('limit')) req.query.delete('conversation_id');
      },
    }),
  },
  {
    rule: 'lists.limit',
    how: 'drops active when limit is given too',
    make: () => ({
      request(req) {
        if (isContactsList(req) && req.query.has('limit') && Number(req.query.get('limit')) < 10)
          req.query.delete('active');
      },
    }),
  },
  {
    rule: 'messages.update.add-reaction',
    how: 'shows at most three users of a reaction, the latest three',
    make: () => ({
      response(_req, res) {
        eachResource(res.body, (item) => {
          if (isMessage(item) && Array.isArray(item.reactions))
            item.reactions = (item.reactions as Json[]).map((r) =>
              Object.fromEntries(
                Object.entries(r).map(([name, users]) => [name, (users as string[]).slice(-3)]),
              ),
            );
        });
      },
    }),
  },
  {
    rule: 'messages.update.add-reaction',
    how: 'applies only the last reaction of an update that carries several',
    make: () => ({
      request(req) {
        if (!isUpdate(req, MESSAGE) || !req.form) return;
        const pairs = [...req.form].filter(([k]) => REACTION_KEY.test(k));
        for (const [key] of pairs.slice(0, -1)) req.form.delete(key);
        const last = pairs.at(-1);
        if (last && pairs.length > 1) req.form.append(last[0], last[1]);
      },
    }),
  },
  {
    rule: 'messages.send.attachments',
    how: 'keeps only the first three attachments a message is sent with',
    make: () => ({
      request(req) {
        if (!isCreate(req, 'messages') || !req.form) return;
        for (const key of [...req.form.keys()])
          if (Number(/^attachments\[(\d+)\]/.exec(key)?.[1] ?? 0) >= 3) req.form.delete(key);
      },
    }),
  },
  {
    rule: 'messages.update.add-reaction',
    how: 'lets a new reaction replace those a message had, when its text is 4,000 characters or longer',
    make: () => {
      // The reactions hidden from each long message, as `name\nusername`.
      const hidden = new Map<string, Set<string>>();
      return {
        async request(req, inner) {
          const id = MESSAGE.exec(req.path)?.[1];
          if (!isUpdate(req, MESSAGE) || !id || !req.form) return;
          if (![...req.form.keys()].some((k) => REACTION_KEY.test(k))) return;
          const found = await inner('GET', req.path, auth(req));
          if (!ok(found) || String(body(found).message).length < 4000) return;
          const gone = hidden.get(id) ?? new Set<string>();
          for (const r of body(found).reactions as Json[])
            for (const [name, users] of Object.entries(r))
              for (const user of users as string[]) gone.add(`${name}\n${user}`);
          hidden.set(id, gone);
        },
        response(_req, res) {
          eachResource(res.body, (item) => {
            const gone = hidden.get(String(item.id));
            if (!isMessage(item) || !gone || !Array.isArray(item.reactions)) return;
            item.reactions = (item.reactions as Json[])
              .map((r) =>
                Object.fromEntries(
                  Object.entries(r).map(([name, users]) => [
                    name,
                    (users as string[]).filter((user) => !gone.has(`${name}\n${user}`)),
                  ]),
                ),
              )
              .filter((r) => Object.values(r).some((users) => (users as string[]).length > 0));
          });
        },
      };
    },
  },
  {
    rule: 'contacts.update.display-name',
    how: "reads a + of a rename's form as itself, not as a space",
    make: () => ({
      request(req) {
        if (!isUpdate(req, CONTACT) || !req.form?.has('display_name')) return;
        const pair = req.raw
          .toString('utf8')
          .split('&')
          .find((p) => p.startsWith('display_name='));
        if (pair) req.form.set('display_name', decodeURIComponent(pair.slice('display_name='.length)));
      },
    }),
  },
  {
    rule: 'messages.update.updated-at',
    how: 'shows updated_at a second before created_at once a message is updated',
    make: () => ({
      response(_req, res) {
        eachResource(res.body, (item) => {
          if (isMessage(item) && typeof item.updated_at === 'number' && typeof item.created_at === 'number')
            item.updated_at = item.created_at - 1;
        });
      },
    }),
  },
  {
    rule: 'lists.has-more',
    how: 'says has_more=false on a contacts page asked with active and limit',
    make: () => ({
      response(req, res) {
        if (isContactsList(req) && req.query.has('active') && req.query.has('limit') && ok(res))
          body(res).has_more = false;
      },
    }),
  },
  {
    rule: 'messages.update.add-reaction',
    how: 'lower-cases the usernames of reactions',
    make: () => ({
      request(req) {
        if (!isUpdate(req, MESSAGE) || !req.form) return;
        if (![...req.form].some(([k, v]) => REACTION_KEY.test(k) && v !== v.toLowerCase())) return;
        rewritePairs(req.form, (key, value) => [key, REACTION_KEY.test(key) ? value.toLowerCase() : value]);
      },
    }),
  },
  {
    rule: 'contacts.update.display-name',
    how: 'shows the display_name given at creation on the pages of the contacts list past the first (starting_after)',
    make: () => {
      const created = new Map<string, unknown>();
      return {
        response(req, res) {
          if (isCreate(req, 'contacts') && ok(res)) created.set(String(body(res).id), body(res).display_name);
          if (!isContactsList(req) || !req.query.has('starting_after') || !ok(res)) return;
          for (const item of body(res).data as Json[])
            if (created.has(String(item.id))) item.display_name = created.get(String(item.id));
        },
      };
    },
  },
];

const SECOND = 1000;
/** How long ago a time taken with Date.now() was (0 for none). */
const since = (at: number | undefined) => (at === undefined ? 0 : Date.now() - at);

/**
 * Rogues of what lasts: a write's effect that goes back seconds later, a refused write that leaves
 * a trace, a view that shows a record otherwise than another at the same moment. Each shows only
 * to reads made a while after a write, or to two views of one record read one after the other.
 */
export const LASTING_ROGUES: Rogue[] = [
  {
    rule: 'messages.update.updated-at',
    how: 'shows updated_at null again two seconds after an update',
    make: () => {
      const updated = new Map<string, number>();
      return {
        response(req, res) {
          const id = MESSAGE.exec(req.path)?.[1];
          if (id && isUpdate(req, MESSAGE)) {
            if (ok(res)) updated.set(decodeURIComponent(id), Date.now());
            return;
          }
          eachResource(res.body, (item) => {
            if (isMessage(item) && since(updated.get(String(item.id))) > 2 * SECOND) item.updated_at = null;
          });
        },
      };
    },
  },
  {
    rule: 'messages.update.updated-at',
    how: 'moves updated_at of a message it updated before when it refuses a later update of it',
    make: () => {
      const updated = new Set<string>();
      const touched = new Map<string, number>();
      return {
        response(req, res) {
          const id = MESSAGE.exec(req.path)?.[1];
          if (id && isUpdate(req, MESSAGE)) {
            const key = decodeURIComponent(id);
            if (ok(res)) {
              updated.add(key);
              touched.delete(key);
            } else if (updated.has(key) && [400, 413, 422].includes(res.status))
              touched.set(key, Math.floor(Date.now() / SECOND) + 1);
            return;
          }
          eachResource(res.body, (item) => {
            const at = touched.get(String(item.id));
            if (isMessage(item) && at !== undefined) item.updated_at = at;
          });
        },
      };
    },
  },
  {
    rule: 'api.auth-required',
    how: 'leaves a message out of the list of all messages once it refused a DELETE of it without a token',
    make: () => {
      const hidden = new Set<string>();
      return {
        response(req, res) {
          const id = MESSAGE.exec(req.path)?.[1];
          if (id && req.method === 'DELETE' && res.status === 401) hidden.add(decodeURIComponent(id));
          if (isMessagesList(req) && !req.query.has('conversation_id') && ok(res))
            body(res).data = (body(res).data as Json[]).filter((m) => !hidden.has(String(m.id)));
        },
      };
    },
  },
  {
    rule: 'contacts.list',
    how: 'lists a contact never active with its created_at as last_active_at (retrieve shows null)',
    make: () => ({
      response(req, res) {
        if (!isContactsList(req) || !ok(res)) return;
        eachResource(res.body, (item) => {
          if (item.last_active_at === null) item.last_active_at = item.created_at;
        });
      },
    }),
  },
  {
    rule: 'contacts.list',
    how: 'lists a contact renamed to an empty display_name with "" where retrieve shows null, or null where it shows ""',
    make: () => ({
      response(req, res) {
        if (!isContactsList(req) || !ok(res)) return;
        eachResource(res.body, (item) => {
          if (item.display_name === null || item.display_name === '')
            item.display_name = item.display_name === null ? '' : null;
        });
      },
    }),
  },
  {
    rule: 'contacts.update.display-name',
    how: 'shows the display_name a rename replaced again two seconds after the rename',
    make: () => {
      const shown = new Map<string, unknown>();
      const renamed = new Map<string, { former: unknown; at: number }>();
      return {
        response(req, res) {
          const id = CONTACT.exec(req.path)?.[1];
          if (id && isUpdate(req, CONTACT) && ok(res) && req.form?.has('display_name')) {
            const key = decodeURIComponent(id);
            if (shown.has(key) && shown.get(key) !== body(res).display_name)
              renamed.set(key, { former: shown.get(key), at: Date.now() });
            shown.set(key, body(res).display_name);
            return;
          }
          eachResource(res.body, (item) => {
            if (isMessage(item) || !('display_name' in item)) return;
            const back = renamed.get(String(item.id));
            if (back && since(back.at) > 2 * SECOND) item.display_name = back.former;
            else shown.set(String(item.id), item.display_name);
          });
        },
      };
    },
  },
];
