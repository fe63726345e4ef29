import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { CONTACT, MESSAGE, SENDER } from '../../contract-tests/rules/fields';
import type { Running } from './harness';
import {
  FLAKY_EDGE,
  startStaging,
  STAGING_DEFAULTS,
  STAGING_HARD_VARIANTS,
  STAGING_VARIANTS,
  type StagingOptions,
} from './staging';

/**
 * The staging servers honour the API document in every variant, whatever they choose where it is
 * silent: driven over HTTP, each test on a fresh token (a fresh, seeded account).
 */
type J = Record<string, any>;
type Pairs = [string, string][];

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

const DAY = 86_400_000;
// The fields the document gives each record, as the kit reads them (contract-tests/rules/fields.ts).
const CONTACT_FIELDS = Object.keys(CONTACT).sort();
const SENDER_FIELDS = Object.keys(SENDER).sort();
const MESSAGE_FIELDS = Object.keys(MESSAGE).sort();
/** The contact's values of the fields a message's contact carries (document 2.2). */
const senderOf = (contact: J): J => Object.fromEntries(SENDER_FIELDS.map((field) => [field, contact[field]]));
const ID_SHAPES: Record<StagingOptions['ids'], RegExp> = {
  numeric: /^[1-9][0-9]*$/,
  hex: /^[0-9a-f]{8,12}$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  prefixed: /^[a-z]+_[A-Za-z0-9]{14}$/,
};
/** The paging parameters of every mechanism, and the one each variant answers to. */
const OWN_PARAMS: Record<StagingOptions['paging'], string[]> = {
  page: ['page'],
  offset: ['offset'],
  token: ['page_token'],
  'link-body': ['after', 'before'],
  'link-header': ['cursor'],
};

let tokens = 0;
let made = 0;
const freshToken = () => `staging-test-${process.pid}-${++tokens}`;

describe.each(STAGING_VARIANTS.map((v) => [v.name, v.options] as const))(
  'the staging server "%s"',
  (_name, options) => {
    const o: StagingOptions = { ...STAGING_DEFAULTS, ...options };
    let server: Running;
    beforeAll(async () => {
      server = await startStaging(options);
    });
    afterAll(() => server.close());

    const ms = (t: number) => (o.timestamps === 'seconds' ? t * 1000 : t);

    async function call(
      token: string | null,
      method: string,
      path: string,
      form?: Pairs,
      contentType = 'application/x-www-form-urlencoded',
    ): Promise<Answer> {
      const headers: Record<string, string> = {};
      if (token !== null) headers.authorization = `Bearer ${token}`;
      let body: string | undefined;
      if (form) {
        headers['content-type'] = contentType;
        body = form.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
      }
      const url = path.startsWith('http') ? path : `${server.url}${path}`;
      const res = await fetch(url, { method, headers, body });
      const text = await res.text();
      return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
    }

    const get = (token: string, path: string, query: Record<string, string | number> = {}) => {
      const q = new URLSearchParams(
        Object.entries(query).map(([k, v]) => [k, String(v)] as [string, string]),
      ).toString();
      return call(token, 'GET', q ? `${path}?${q}` : path);
    };

    async function createContact(token: string, extra: Pairs = []): Promise<J> {
      const username = `new_${tokens}_${++made}`;
      const answer = await call(token, 'POST', '/v1/contacts', [
        ['username', username],
        ['phone_number', '+1 555 0100 2000'],
        ['avatar_url', `https://example.com/${username}.png`],
        ...extra,
      ]);
      expect(answer.status).toBe(o.createStatus);
      return answer.body as J;
    }

    async function sendMessage(token: string, conversationId: string, text: string, extra: Pairs = []) {
      const answer = await call(token, 'POST', '/v1/messages', [
        ['conversation_id', conversationId],
        ['message', text],
        ...extra,
      ]);
      expect(answer.status).toBe(o.createStatus);
      return answer.body as J;
    }

    const attachment = (i: number, filename: string): Pairs => [
      [`attachments[${i}][filename]`, filename],
      [`attachments[${i}][file_url]`, `https://example.com/files/${filename}`],
      [`attachments[${i}][file_type]`, 'application/pdf'],
    ];

    const linkOf = (answer: Answer, rel: string): string | undefined => {
      const header = answer.headers.get('link') ?? '';
      for (const part of header.split(',')) {
        const found = /<([^>]+)>\s*;\s*rel="([^"]+)"/.exec(part);
        if (found && found[2] === rel) return found[1];
      }
      return undefined;
    };

    /** The next page's path, by the variant's own mechanism. */
    function nextPath(path: string, query: Record<string, string>, pages: Answer[]): string {
      const last = pages[pages.length - 1]!;
      const seen = pages.reduce((n, p) => n + (p.body.data as J[]).length, 0);
      const withQuery = (extra: Record<string, string>) =>
        `${path}?${new URLSearchParams({ ...query, ...extra }).toString()}`;
      switch (o.paging) {
        case 'page':
          return withQuery({ page: String(pages.length + 1) });
        case 'offset':
          return withQuery({ offset: String(seen) });
        case 'token':
          expect(typeof last.body.next_page_token).toBe('string');
          return withQuery({ page_token: last.body.next_page_token as string });
        case 'link-body':
          expect(last.body.links.next).toMatch(/^\/v1\//);
          return last.body.links.next as string;
        case 'link-header': {
          const next = linkOf(last, 'next');
          expect(next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\//);
          return next!;
        }
      }
    }

    /** Every page of a list, to has_more false. */
    async function walk(token: string, path: string, query: Record<string, string> = {}) {
      const q = new URLSearchParams(query).toString();
      const pages: Answer[] = [await call(token, 'GET', q ? `${path}?${q}` : path)];
      while (pages[pages.length - 1]!.body.has_more) {
        expect(pages.length).toBeLessThan(100);
        pages.push(await call(token, 'GET', nextPath(path, query, pages)));
      }
      for (const page of pages) {
        expect(page.status).toBe(200);
        expect(typeof page.body.has_more).toBe('boolean');
        expect(Array.isArray(page.body.data)).toBe(true);
      }
      const items = pages.flatMap((p) => p.body.data as J[]);
      return { pages, items, ids: items.map((i) => i.id as string) };
    }

    /** The reactions of a message as name → usernames, whatever the layout. */
    const reactionsOf = (message: J): Record<string, string[]> => {
      const merged: Record<string, string[]> = {};
      for (const object of message.reactions as J[])
        for (const [name, users] of Object.entries(object))
          (merged[name] ??= []).push(...(users as string[]));
      return merged;
    };

    /** An id in the server's own shape that names nothing. */
    const wellFormedUnknown = (prefix: string) =>
      ({
        numeric: '987654',
        hex: 'ffffffffff',
        uuid: '00000000-0000-4000-8000-000000000000',
        prefixed: `${prefix}${'Z'.repeat(14)}`,
      })[o.ids];

    const refused = (answer: Answer) => {
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
    };

    it('refuses every endpoint without Authorization with a 4xx, and changes nothing', async () => {
      const token = freshToken();
      const contact = await createContact(token, [['display_name', 'Kept']]);
      const message = await sendMessage(token, contact.conversation_id, 'kept text');
      const c = `/v1/contacts/${contact.id}`;
      const m = `/v1/messages/${message.id}`;
      const anonymous = [
        await call(null, 'GET', '/v1/contacts'),
        await call(null, 'POST', '/v1/contacts', [
          ['username', 'anon'],
          ['phone_number', '1'],
        ]),
        await call(null, 'GET', c),
        await call(null, 'PUT', c, [['display_name', 'Changed']]),
        await call(null, 'DELETE', c),
        await call(null, 'GET', '/v1/messages'),
        await call(null, 'POST', '/v1/messages', [
          ['conversation_id', contact.conversation_id],
          ['message', 'anon'],
        ]),
        await call(null, 'GET', m),
        await call(null, 'PUT', m, [['message', 'changed']]),
        await call(null, 'DELETE', m),
        // Other schemes, an empty token, and the token without its scheme.
        ...(await Promise.all(
          ['Basic abc', 'Bearer', 'Bearer ', token].map(async (header) => {
            const res = await fetch(`${server.url}/v1/contacts`, { headers: { authorization: header } });
            await res.text();
            return { status: res.status, body: undefined, headers: res.headers } as Answer;
          }),
        )),
      ];
      for (const answer of anonymous) expect(answer.status).toBe(401);
      expect((await get(token, c)).body.display_name).toBe('Kept');
      const after = (await get(token, m)).body;
      expect(after.message).toBe('kept text');
      expect(after.reactions).toEqual([]);
      expect((await walk(token, '/v1/contacts', { limit: '50' })).ids).toHaveLength(o.seedContacts + 1);
      expect((await walk(token, '/v1/messages', { limit: '50' })).ids).toHaveLength(o.seedMessages + 1);
    });

    it('creates a contact with the fields of 2.1: display_name defaults to the username, last_active_at null, a conversation of its own', async () => {
      const token = freshToken();
      const a = await createContact(token);
      const b = await createContact(token, [['display_name', 'Chosen Name']]);
      expect(Object.keys(a).sort()).toEqual(CONTACT_FIELDS);
      expect(a.display_name).toBe(a.username);
      expect(b.display_name).toBe('Chosen Name');
      for (const contact of [a, b]) {
        expect(contact.last_active_at).toBeNull();
        expect(typeof contact.conversation_id).toBe('string');
        expect(Number.isInteger(contact.created_at)).toBe(true);
        expect(typeof contact.phone_number).toBe('string');
        expect(typeof contact.avatar_url).toBe('string');
      }
      expect(a.conversation_id).not.toBe(b.conversation_id);
      expect((await get(token, `/v1/contacts/${a.id}`)).body).toEqual(a);
      // Without avatar_url the contact still has one (a string, as 2.1 shows).
      const plain = await call(token, 'POST', '/v1/contacts', [
        ['username', 'plain_one'],
        ['phone_number', '+1 555 0100'],
      ]);
      expect(plain.status).toBe(o.createStatus);
      expect(typeof plain.body.avatar_url).toBe('string');
      expect(plain.body.display_name).toBe('plain_one');
      // username and phone_number are required.
      for (const form of [[['phone_number', '1']], [['username', 'x']], []] as Pairs[]) {
        const answer = await call(token, 'POST', '/v1/contacts', form);
        expect(answer.status).toBe(o.invalidStatus);
      }
      expect((await walk(token, '/v1/contacts', { limit: '50' })).ids).toHaveLength(o.seedContacts + 3);
    });

    it(`updates display_name only: other keys are ${o.unknownKeys === 'refuse' ? 'refused' : 'ignored'}, never applied`, async () => {
      const token = freshToken();
      const contact = await createContact(token);
      const renamed = await call(token, 'PUT', `/v1/contacts/${contact.id}`, [['display_name', 'Renamed']]);
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({ ...contact, display_name: 'Renamed' });
      const attempts: Pairs = [
        ['username', 'someone_else'],
        ['phone_number', '+1 555 9999'],
        ['avatar_url', 'https://example.com/other.png'],
        ['conversation_id', 'other'],
        ['last_active_at', '1700000000'],
        ['created_at', '1600000000'],
        ['id', 'other'],
      ];
      for (const pair of attempts) {
        const answer = await call(token, 'PUT', `/v1/contacts/${contact.id}`, [pair]);
        if (o.unknownKeys === 'refuse') expect(answer.status).toBe(o.invalidStatus);
        else expect(answer.body).toEqual({ ...contact, display_name: 'Renamed' });
      }
      expect((await get(token, `/v1/contacts/${contact.id}`)).body).toEqual({
        ...contact,
        display_name: 'Renamed',
      });
    });

    it('sends a message with the fields of 2.2: no reactions or attachments, read_at and updated_at null, and the six-field contact of its conversation', async () => {
      const token = freshToken();
      const contact = await createContact(token, [['display_name', 'Shown']]);
      const message = await sendMessage(token, contact.conversation_id, 'hello there');
      expect(Object.keys(message).sort()).toEqual(MESSAGE_FIELDS);
      expect(message).toMatchObject({
        conversation_id: contact.conversation_id,
        message: 'hello there',
        reactions: [],
        attachments: [],
        read_at: null,
        updated_at: null,
      });
      expect(Number.isInteger(message.created_at)).toBe(true);
      const now = (await get(token, `/v1/contacts/${contact.id}`)).body;
      expect(Object.keys(message.contact).sort()).toEqual(SENDER_FIELDS);
      expect(message.contact).toEqual(senderOf(now));
      // With attachments, it carries them; the required fields are required.
      const attached = await sendMessage(token, contact.conversation_id, 'files', [
        ...attachment(0, 'a.pdf'),
        ...attachment(1, 'b.pdf'),
      ]);
      expect(attached.attachments).toHaveLength(2);
      expect(JSON.stringify(attached.attachments)).toContain('a.pdf');
      refused(await call(token, 'POST', '/v1/messages', [['message', 'no conversation']]));
      refused(await call(token, 'POST', '/v1/messages', [['conversation_id', contact.conversation_id]]));
      refused(
        await call(token, 'POST', '/v1/messages', [
          ['conversation_id', 'no-such-conversation'],
          ['message', 'x'],
        ]),
      );
    });

    it(`adds reactions (${o.reactionsLayout}) and attachments on update, keeps what was there, and edits the text only when sent`, async () => {
      const token = freshToken();
      const contact = await createContact(token);
      const original = await sendMessage(
        token,
        contact.conversation_id,
        'first text',
        attachment(0, 'one.pdf'),
      );
      const path = `/v1/messages/${original.id}`;
      const put = async (form: Pairs) => {
        const answer = await call(token, 'PUT', path, form);
        expect(answer.status).toBe(200);
        return answer.body as J;
      };
      const reacted = await put([
        ['reactions[thumbs_up][]', 'alice'],
        ['reactions[thumbs_up][]', 'bob'],
        ['reactions[like][]', 'carol'],
      ]);
      expect(reactionsOf(reacted)).toEqual({ thumbs_up: ['alice', 'bob'], like: ['carol'] });
      if (o.reactionsLayout === 'merged') expect(reacted.reactions).toHaveLength(1);
      else expect(reacted.reactions).toEqual([{ thumbs_up: ['alice', 'bob'] }, { like: ['carol'] }]);
      expect(reacted.message).toBe('first text');
      expect(reacted.attachments).toEqual(original.attachments);
      expect(Number.isInteger(reacted.updated_at)).toBe(true);
      expect(ms(reacted.updated_at)).toBeGreaterThanOrEqual(ms(original.created_at));

      const more = await put([['reactions[thumbs_up][]', 'dave']]);
      expect(reactionsOf(more)).toEqual({ thumbs_up: ['alice', 'bob', 'dave'], like: ['carol'] });

      const attached = await put(attachment(0, 'two.pdf'));
      expect(attached.attachments).toHaveLength(2);
      expect(attached.attachments[0]).toEqual(original.attachments[0]);
      expect(JSON.stringify(attached.attachments[1])).toContain('two.pdf');

      const edited = await put([['message', 'second text']]);
      expect(edited.message).toBe('second text');
      expect(reactionsOf(edited)).toEqual(reactionsOf(more));
      expect(edited.attachments).toEqual(attached.attachments);
      for (const kept of ['id', 'conversation_id', 'created_at', 'contact'])
        expect(edited[kept]).toEqual(original[kept]);
      const retrieved = (await get(token, path)).body;
      expect({ ...retrieved, read_at: null }).toEqual({ ...edited, read_at: null });
      // A refused update changes nothing.
      refused(await call(token, 'PUT', path, [['message', '']]));
      expect((await get(token, path)).body.message).toBe('second text');
    });

    it(`${o.reactionNames === 'restricted' ? 'refuses reaction names other than thumbs_up and like' : 'takes any [a-z_]+ reaction name'}, and changes nothing when it refuses`, async () => {
      const token = freshToken();
      const contact = await createContact(token);
      const message = await sendMessage(token, contact.conversation_id, 'react to me');
      const path = `/v1/messages/${message.id}`;
      const heart = await call(token, 'PUT', path, [
        ['reactions[like][]', 'erin'],
        ['reactions[heart][]', 'erin'],
      ]);
      if (o.reactionNames === 'restricted') {
        expect(heart.status).toBe(o.invalidStatus);
        expect((await get(token, path)).body.reactions).toEqual([]);
      } else {
        expect(heart.status).toBe(200);
        expect(reactionsOf(heart.body)).toEqual({ like: ['erin'], heart: ['erin'] });
      }
      expect((await call(token, 'PUT', path, [['reactions[Heart!][]', 'erin']])).status).toBe(
        o.invalidStatus,
      );
      expect((await call(token, 'PUT', path, [['reactions[like][]', '']])).status).toBe(o.invalidStatus);
    });

    it(`${o.repeatedReaction === 'once' ? 'keeps a username once' : 'lists a username twice'} when it reacts twice with one name`, async () => {
      const token = freshToken();
      const contact = await createContact(token);
      const message = await sendMessage(token, contact.conversation_id, 'twice');
      const path = `/v1/messages/${message.id}`;
      await call(token, 'PUT', path, [['reactions[like][]', 'frank']]);
      const again = await call(token, 'PUT', path, [['reactions[like][]', 'frank']]);
      expect(reactionsOf(again.body)).toEqual({
        like: o.repeatedReaction === 'once' ? ['frank'] : ['frank', 'frank'],
      });
    });

    it(`deletes a contact with its conversation and every message in it (then ${o.goneStatus}; its list ${o.deletedConversationList === 'refuse' ? 'refused' : 'empty'})`, async () => {
      const token = freshToken();
      const contact = await createContact(token);
      const messages = [
        await sendMessage(token, contact.conversation_id, 'doomed one'),
        await sendMessage(token, contact.conversation_id, 'doomed two'),
      ];
      const removed = await call(token, 'DELETE', `/v1/contacts/${contact.id}`);
      if (o.deleteAnswer === '200-object') {
        expect(removed.status).toBe(200);
        expect(removed.body.id).toBe(contact.id);
      } else if (o.deleteAnswer === '202-deleted') {
        expect(removed).toMatchObject({ status: 202, body: { id: contact.id, deleted: true } });
      } else {
        expect(removed).toMatchObject({ status: 204, body: undefined });
      }
      expect((await get(token, `/v1/contacts/${contact.id}`)).status).toBe(o.goneStatus);
      expect((await call(token, 'PUT', `/v1/contacts/${contact.id}`, [['display_name', 'x']])).status).toBe(
        o.goneStatus,
      );
      expect((await call(token, 'DELETE', `/v1/contacts/${contact.id}`)).status).toBe(o.goneStatus);
      for (const message of messages) {
        expect((await get(token, `/v1/messages/${message.id}`)).status).toBe(o.goneStatus);
        expect((await call(token, 'PUT', `/v1/messages/${message.id}`, [['message', 'x']])).status).toBe(
          o.goneStatus,
        );
      }
      const listed = await get(token, '/v1/messages', { conversation_id: contact.conversation_id });
      if (o.deletedConversationList === 'refuse') expect(listed.status).toBe(o.goneStatus);
      else expect(listed.body).toMatchObject({ has_more: false, data: [] });
      const sent = await call(token, 'POST', '/v1/messages', [
        ['conversation_id', contact.conversation_id],
        ['message', 'into the void'],
      ]);
      expect(sent.status).toBe(o.goneStatus);
      expect((await walk(token, '/v1/contacts', { limit: '50' })).ids).not.toContain(contact.id);
      const all = await walk(token, '/v1/messages', { limit: '50' });
      expect(all.items.filter((m) => m.conversation_id === contact.conversation_id)).toEqual([]);
      expect(all.ids).toHaveLength(o.seedMessages);
    });

    it('deletes a message permanently: gone from retrieve, update and every list', async () => {
      const token = freshToken();
      const contact = await createContact(token);
      const keep = await sendMessage(token, contact.conversation_id, 'keep me');
      const drop = await sendMessage(token, contact.conversation_id, 'drop me');
      const removed = await call(token, 'DELETE', `/v1/messages/${drop.id}`);
      expect(removed.status).toBe({ '200-object': 200, '202-deleted': 202, '204': 204 }[o.deleteAnswer]);
      if (o.deleteAnswer === '200-object')
        expect(removed.body).toMatchObject({ id: drop.id, message: 'drop me' });
      expect((await get(token, `/v1/messages/${drop.id}`)).status).toBe(o.goneStatus);
      expect((await call(token, 'PUT', `/v1/messages/${drop.id}`, [['message', 'back']])).status).toBe(
        o.goneStatus,
      );
      expect((await call(token, 'DELETE', `/v1/messages/${drop.id}`)).status).toBe(o.goneStatus);
      expect((await walk(token, '/v1/messages', { conversation_id: contact.conversation_id })).ids).toEqual([
        keep.id,
      ]);
      expect((await walk(token, '/v1/messages', { limit: '50' })).ids).not.toContain(drop.id);
      expect((await get(token, `/v1/contacts/${contact.id}`)).status).toBe(200);
    });

    it(`refuses unknown ids with 404, and a malformed one with ${o.malformedId === 'invalid' ? o.invalidStatus : 404}`, async () => {
      const token = freshToken();
      const contact = await createContact(token);
      const message = await sendMessage(token, contact.conversation_id, 'known');
      // Ids that cannot be its.
      const malformed = 'zz0unknown0id';
      expect([contact.id, message.id]).not.toContain(malformed);
      for (const [kind, prefix] of [
        ['contacts', 'ct_'],
        ['messages', 'msg_'],
      ] as const) {
        const unknown = wellFormedUnknown(prefix);
        expect(unknown).toMatch(ID_SHAPES[o.ids]);
        for (const [method, form] of [
          ['GET', undefined],
          ['PUT', kind === 'contacts' ? [['display_name', 'x']] : [['message', 'x']]],
          ['DELETE', undefined],
        ] as const) {
          expect(
            (await call(token, method, `/v1/${kind}/${unknown}`, form as Pairs | undefined)).status,
          ).toBe(404);
          expect(
            (await call(token, method, `/v1/${kind}/${malformed}`, form as Pairs | undefined)).status,
          ).toBe(o.malformedId === 'invalid' ? o.invalidStatus : 404);
        }
      }
      // Another token's ids are unknown here: each token is its own account.
      expect((await get(freshToken(), `/v1/contacts/${contact.id}`)).status).toBe(404);
    });

    it(`walks each list to its end by ${o.paging}: no duplicates, no gaps, has_more false on an exactly full last page`, async () => {
      const token = freshToken();
      const contacts = await walk(token, '/v1/contacts');
      expect(contacts.ids).toHaveLength(o.seedContacts);
      expect(new Set(contacts.ids).size).toBe(o.seedContacts);
      for (const page of contacts.pages.slice(0, -1)) expect(page.body).toMatchObject({ has_more: true });
      expect(contacts.pages.at(-1)!.body.has_more).toBe(false);
      expect(contacts.pages.slice(0, -1).every((p) => p.body.data.length === o.defaultLimit)).toBe(true);
      // The same items in the same order, whatever the page size.
      expect((await walk(token, '/v1/contacts', { limit: '50' })).ids).toEqual(contacts.ids);
      expect((await walk(token, '/v1/contacts', { limit: '4' })).ids).toEqual(contacts.ids);
      const messages = await walk(token, '/v1/messages', { limit: '13' });
      expect(new Set(messages.ids).size).toBe(o.seedMessages);
      expect((await walk(token, '/v1/messages')).ids).toEqual(messages.ids);
      // A conversation of exactly two pages: the second is full and says has_more=false.
      const contact = await createContact(token);
      const sent: string[] = [];
      for (let i = 0; i < 6; i++) sent.push((await sendMessage(token, contact.conversation_id, `m${i}`)).id);
      const two = await walk(token, '/v1/messages', { conversation_id: contact.conversation_id, limit: '3' });
      expect(two.pages.map((p) => [p.body.data.length, p.body.has_more])).toEqual([
        [3, true],
        [3, false],
      ]);
      expect([...two.ids].sort()).toEqual([...sent].sort());
      const one = await get(token, '/v1/messages', { conversation_id: contact.conversation_id, limit: 6 });
      expect([one.body.data.length, one.body.has_more]).toEqual([6, false]);
      // The contacts list with one more contact: still every contact once.
      const again = await walk(token, '/v1/contacts', { limit: '7' });
      expect([...again.ids].sort()).toEqual([...contacts.ids, contact.id].sort());
    });

    it(`${['token', 'link-body', 'link-header'].includes(o.paging) ? 'walks back to the first page by its prev token or link' : 'reaches any page directly, and answers an empty last page past the end'}`, async () => {
      const token = freshToken();
      const forward = await walk(token, '/v1/contacts', { limit: '6' });
      const expected = forward.pages.map((p) => (p.body.data as J[]).map((c) => c.id));
      if (o.paging === 'page' || o.paging === 'offset') {
        const param = o.paging;
        const value = (n: number) => String(param === 'page' ? n + 1 : n * 6);
        const third = await get(token, '/v1/contacts', { limit: 6, [param]: value(2) });
        expect(third.body.data.map((c: J) => c.id)).toEqual(expected[2]);
        const past = await get(token, '/v1/contacts', { limit: 6, [param]: value(expected.length + 1) });
        expect(past.body).toMatchObject({ has_more: false, data: [] });
        refused(await get(token, '/v1/contacts', { [param]: '-1' }));
        refused(await get(token, '/v1/contacts', { [param]: 'abc' }));
        return;
      }
      const prevOf = (answer: Answer): string | undefined => {
        if (o.paging === 'token') {
          const prev = answer.body.prev_page_token as string | null;
          return prev ? `/v1/contacts?${new URLSearchParams({ limit: '6', page_token: prev })}` : undefined;
        }
        if (o.paging === 'link-body') return (answer.body.links.prev as string | null) ?? undefined;
        return linkOf(answer, 'prev');
      };
      expect(prevOf(forward.pages[0]!)).toBeUndefined();
      const back: string[][] = [];
      let at: Answer = forward.pages.at(-1)!;
      back.unshift((at.body.data as J[]).map((c) => c.id));
      for (let path = prevOf(at); path; path = prevOf(at)) {
        at = await call(token, 'GET', path);
        expect(at.status).toBe(200);
        back.unshift((at.body.data as J[]).map((c) => c.id));
      }
      expect(back.flat()).toEqual(expected.flat());
      expect(back[0]).toEqual(expected[0]);
      if (o.paging === 'token') {
        // Opaque tokens in the chosen alphabet, '+' and '/' included in plain base64.
        const single = await walk(token, '/v1/contacts', { limit: '1' });
        expect(new Set(single.ids).size).toBe(o.seedContacts);
        const given = single.pages.slice(0, -1).map((p) => p.body.next_page_token as string);
        for (const t of given)
          expect(t).toMatch(o.tokenAlphabet === 'base64' ? /^[A-Za-z0-9+/]+={0,2}$/ : /^[A-Za-z0-9_-]+$/);
        if (o.tokenAlphabet === 'base64') expect(given.some((t) => /[+/]/.test(t))).toBe(true);
      }
      // A token or cursor the server did not give is refused.
      refused(await get(token, '/v1/contacts', { [OWN_PARAMS[o.paging][0]!]: 'not-a-token' }));
    });

    it('ignores the paging parameters of every other mechanism: they give the first page again', async () => {
      const token = freshToken();
      const first = await get(token, '/v1/contacts');
      const lastId = (first.body.data as J[]).at(-1)!.id as string;
      const others: Record<string, string> = {
        starting_after: lastId,
        ending_before: lastId,
        after: lastId,
        before: lastId,
        cursor: lastId,
        since_id: lastId,
        page_token: 'abc',
        next: 'abc',
        page: '2',
        offset: '10',
      };
      for (const [param, value] of Object.entries(others)) {
        if (OWN_PARAMS[o.paging].includes(param)) continue;
        const answer = await get(token, '/v1/contacts', { [param]: value });
        expect({ param, status: answer.status, data: answer.body.data }).toEqual({
          param,
          status: 200,
          data: first.body.data,
        });
      }
    });

    it(`pages at most ${o.defaultLimit} by default, fewer with limit; limit above 50 ${o.overLimit === 'refuse' ? 'refused' : 'clamped'}, non-integers refused`, async () => {
      const token = freshToken();
      for (const path of ['/v1/contacts', '/v1/messages']) {
        const page = await get(token, path);
        expect(page.body.data).toHaveLength(o.defaultLimit);
        expect(page.body.has_more).toBe(true);
        expect((await get(token, path, { limit: 3 })).body.data).toHaveLength(3);
        expect((await get(token, path, { limit: 50 })).body.data.length).toBeLessThanOrEqual(50);
        const over = await get(token, path, { limit: 51 });
        if (o.overLimit === 'refuse') expect(over.status).toBe(o.invalidStatus);
        else expect(over.body.data).toHaveLength(Math.min(50, path === '/v1/contacts' ? o.seedContacts : 50));
        for (const bad of ['0', '2.5', 'ten', '-3', ''])
          expect((await get(token, path, { limit: bad })).status).toBe(o.invalidStatus);
      }
    });

    it(`orders every list totally and stably (${o.order})`, async () => {
      const token = freshToken();
      const before = await walk(token, '/v1/contacts', { limit: '50' });
      expect((await walk(token, '/v1/contacts')).ids).toEqual(before.ids);
      const made = [await createContact(token), await createContact(token), await createContact(token)];
      const after = (await walk(token, '/v1/contacts', { limit: '50' })).items;
      const positions = made.map((c) => after.findIndex((item) => item.id === c.id));
      // The older contacts keep their relative order.
      expect(after.map((c) => c.id).filter((id) => before.ids.includes(id))).toEqual(before.ids);
      const messages = (await walk(token, '/v1/messages', { limit: '50' })).items;
      const ordered = (values: (string | number)[]) => values.every((v, i) => i === 0 || values[i - 1]! <= v);
      switch (o.order) {
        case 'oldest':
          expect(positions).toEqual([after.length - 3, after.length - 2, after.length - 1]);
          expect(ordered(after.map((c) => c.created_at))).toBe(true);
          expect(ordered(messages.map((m) => m.created_at))).toBe(true);
          break;
        case 'alpha':
          expect(ordered(after.map((c) => c.username))).toBe(true);
          expect(ordered(messages.map((m) => m.message))).toBe(true);
          break;
        case 'hash':
          // New contacts land anywhere: not all at the start, not all at the end.
          expect(positions.some((p) => p > 0 && p < after.length - 1)).toBe(true);
          expect(ordered(after.map((c) => c.created_at))).toBe(false);
          expect(ordered(after.map((c) => -c.created_at))).toBe(false);
          break;
      }
    });

    it('lists messages of every conversation without conversation_id, and of one conversation with it', async () => {
      const token = freshToken();
      const a = await createContact(token);
      const b = await createContact(token);
      const inA = [
        await sendMessage(token, a.conversation_id, 'in a 1'),
        await sendMessage(token, a.conversation_id, 'in a 2'),
      ];
      const inB = await sendMessage(token, b.conversation_id, 'in b');
      const onlyA = await walk(token, '/v1/messages', { conversation_id: a.conversation_id });
      expect([...onlyA.ids].sort()).toEqual(inA.map((m) => m.id).sort());
      const all = await walk(token, '/v1/messages', { limit: '50' });
      expect(all.ids).toEqual(expect.arrayContaining([...inA.map((m) => m.id), inB.id]));
      expect(new Set(all.items.map((m) => m.conversation_id)).size).toBeGreaterThan(10);
      const unknown = await get(token, '/v1/messages', { conversation_id: wellFormedUnknown('conv_') });
      if (o.deletedConversationList === 'refuse') expect(unknown.status).toBe(404);
      else expect(unknown.body).toMatchObject({ has_more: false, data: [] });
    });

    it(`splits the contacts by active=true and active=false (${o.active})`, async () => {
      const token = freshToken();
      const all = await walk(token, '/v1/contacts', { limit: '50' });
      const yes = await walk(token, '/v1/contacts', { active: 'true', limit: '50' });
      const no = await walk(token, '/v1/contacts', { active: 'false', limit: '50' });
      expect(yes.ids.length).toBeGreaterThan(0);
      expect(no.ids.length).toBeGreaterThan(0);
      expect([...yes.ids, ...no.ids].sort()).toEqual([...all.ids].sort());
      const written = new Set(
        (await walk(token, '/v1/messages', { limit: '50' })).items.map((m) => m.conversation_id),
      );
      const now = Date.now();
      const meaning = (c: J) =>
        o.active === 'ever'
          ? c.last_active_at !== null
          : o.active === 'recent'
            ? c.last_active_at !== null && ms(c.last_active_at) >= now - 30 * DAY
            : written.has(c.conversation_id);
      expect(yes.items.every(meaning)).toBe(true);
      expect(no.items.some(meaning)).toBe(false);
      // The three meanings really differ on the seeded data.
      const ever = all.items.filter((c) => c.last_active_at !== null).map((c) => c.id);
      const recent = all.items.filter(
        (c) => c.last_active_at !== null && ms(c.last_active_at) >= now - 30 * DAY,
      );
      const withMessages = all.items.filter((c) => written.has(c.conversation_id));
      expect(new Set([ever.length, recent.length, withMessages.length]).size).toBe(3);
      refused(await get(token, '/v1/contacts', { active: 'maybe' }));
    });

    it('starts each token with a seeded account in every state the document allows', async () => {
      const token = freshToken();
      const contacts = (await walk(token, '/v1/contacts', { limit: '50' })).items;
      const messages = (await walk(token, '/v1/messages', { limit: '50' })).items;
      expect(contacts).toHaveLength(o.seedContacts);
      expect(messages).toHaveLength(o.seedMessages);
      expect(o.seedContacts).toBeGreaterThanOrEqual(30);
      expect(o.seedMessages).toBeGreaterThanOrEqual(100);
      for (const c of contacts) expect(Object.keys(c).sort()).toEqual(CONTACT_FIELDS);
      for (const m of messages) expect(Object.keys(m).sort()).toEqual(MESSAGE_FIELDS);
      const count = (items: J[], test: (item: J) => boolean) => items.filter(test).length;
      expect(count(contacts, (c) => c.display_name === null)).toBeGreaterThan(0);
      expect(count(contacts, (c) => c.display_name === c.username)).toBeGreaterThan(0);
      expect(
        count(contacts, (c) => typeof c.display_name === 'string' && c.display_name !== c.username),
      ).toBeGreaterThan(0);
      expect(count(contacts, (c) => c.last_active_at === null)).toBeGreaterThan(0);
      expect(count(contacts, (c) => ms(c.last_active_at ?? 0) > Date.now() - 30 * DAY)).toBeGreaterThan(0);
      expect(
        count(contacts, (c) => c.last_active_at !== null && ms(c.last_active_at) < Date.now() - 30 * DAY),
      ).toBeGreaterThan(0);
      const written = new Set(messages.map((m) => m.conversation_id));
      expect(count(contacts, (c) => !written.has(c.conversation_id))).toBeGreaterThan(0);
      expect(count(messages, (m) => m.read_at !== null)).toBeGreaterThan(0);
      expect(count(messages, (m) => m.read_at === null)).toBeGreaterThan(0);
      expect(count(messages, (m) => m.updated_at !== null)).toBeGreaterThan(0);
      expect(count(messages, (m) => m.attachments.length > 0)).toBeGreaterThan(0);
      expect(count(messages, (m) => m.reactions.length === 0)).toBeGreaterThan(0);
      expect(
        count(messages, (m) => {
          const r = reactionsOf(m);
          return Object.keys(r).length >= 2 && Object.values(r).some((users) => users.length >= 2);
        }),
      ).toBeGreaterThan(0);
      // Every message's contact is its conversation's contact, with the six fields.
      const byConversation = new Map(contacts.map((c) => [c.conversation_id, c]));
      for (const m of messages) {
        expect(m.contact).toEqual(senderOf(byConversation.get(m.conversation_id)!));
        expect(ms(m.created_at)).toBeGreaterThanOrEqual(ms(m.contact.created_at));
      }
      // Deterministic: another token starts with the same account.
      const other = (await walk(freshToken(), '/v1/contacts', { limit: '50' })).items;
      expect(other.map((c) => [c.id, c.username, c.display_name])).toEqual(
        contacts.map((c) => [c.id, c.username, c.display_name]),
      );
    });

    it(`answers in its own shapes: ${o.ids} ids, integer ${o.timestamps}, ${o.errorShape} errors`, async () => {
      const token = freshToken();
      const contact = await createContact(token);
      const message = await sendMessage(token, contact.conversation_id, 'shapes', attachment(0, 'shape.pdf'));
      const shape = ID_SHAPES[o.ids];
      for (const id of [contact.id, contact.conversation_id, message.id, message.attachments[0].id])
        expect(id).toMatch(shape);
      if (o.ids === 'prefixed') {
        expect(contact.id).toMatch(/^ct_/);
        expect(contact.conversation_id).toMatch(/^conv_/);
        expect(message.id).toMatch(/^msg_/);
      }
      const now = Date.now();
      for (const t of [contact.created_at, message.created_at, message.contact.created_at]) {
        expect(Number.isInteger(t)).toBe(true);
        expect(Math.abs(ms(t) - now)).toBeLessThan(5_000);
      }
      if (o.attachments === 'own-shape') {
        expect(message.attachments[0]).toEqual({
          id: expect.any(String),
          name: 'shape.pdf',
          url: 'https://example.com/files/shape.pdf',
          content_type: 'application/pdf',
          size: null,
        });
      } else {
        expect(message.attachments[0]).toEqual({
          id: expect.any(String),
          filename: 'shape.pdf',
          file_url: 'https://example.com/files/shape.pdf',
          file_type: 'application/pdf',
        });
      }
      const error = await get(token, '/v1/contacts', { limit: 'x' });
      expect(error.status).toBe(o.invalidStatus);
      const body = error.body as J;
      // Not the mock's flat {type, code, message, param}.
      expect(body).not.toHaveProperty('code');
      expect(body).not.toHaveProperty('message');
      if (o.errorShape === 'nested')
        expect(body.error).toMatchObject({ status: o.invalidStatus, message: expect.any(String) });
      else if (o.errorShape === 'list') expect(body.errors[0]).toMatchObject({ detail: expect.any(String) });
      else {
        expect(body).toMatchObject({
          status: o.invalidStatus,
          title: expect.any(String),
          detail: expect.any(String),
        });
        expect(error.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
      // Only form bodies are taken.
      const json = await call(token, 'PUT', `/v1/contacts/${contact.id}`, [['x', 'y']], 'application/json');
      expect(json.status).toBe(415);
      expect((await call(token, 'PATCH', `/v1/contacts/${contact.id}`)).status).toBe(405);
      expect((await call(token, 'GET', '/v2/contacts')).status).toBe(404);
    });

    it(`${o.touchOnMessage ? 'sets' : 'keeps'} the contact's last_active_at on a new message, and ${o.readOnRetrieve ? 'sets' : 'keeps'} read_at on retrieve`, async () => {
      const token = freshToken();
      const contact = await createContact(token);
      const message = await sendMessage(token, contact.conversation_id, 'touch');
      const now = (await get(token, `/v1/contacts/${contact.id}`)).body;
      if (o.touchOnMessage) {
        expect(now.last_active_at).toBe(message.created_at);
        expect(message.contact.last_active_at).toBe(message.created_at);
      } else {
        expect(now.last_active_at).toBeNull();
      }
      const listed = (await get(token, '/v1/messages', { conversation_id: contact.conversation_id })).body
        .data[0];
      expect(listed.read_at).toBeNull();
      const retrieved = (await get(token, `/v1/messages/${message.id}`)).body;
      if (o.readOnRetrieve) {
        expect(Number.isInteger(retrieved.read_at)).toBe(true);
        const again = (await get(token, `/v1/messages/${message.id}`)).body;
        expect(again.read_at).toBe(retrieved.read_at);
      } else {
        expect(retrieved.read_at).toBeNull();
      }
      // Neither changes what the update rule protects.
      expect({ ...retrieved, read_at: null, contact: null }).toEqual({
        ...message,
        read_at: null,
        contact: null,
      });
    });
  },
);

describe('a page_token server with base64url tokens', () => {
  it('walks its lists by URL-safe tokens', async () => {
    const options = { ...STAGING_VARIANTS.find((v) => v.options.paging === 'token')!.options };
    const server = await startStaging({ ...options, tokenAlphabet: 'base64url' });
    try {
      const seen: string[] = [];
      let path = '/v1/contacts?limit=1';
      for (;;) {
        const res = await fetch(`${server.url}${path}`, { headers: { authorization: 'Bearer url-safe' } });
        const body = (await res.json()) as J;
        seen.push(...(body.data as J[]).map((c) => c.id as string));
        if (!body.has_more) break;
        expect(body.next_page_token).toMatch(/^[A-Za-z0-9_-]+$/);
        path = `/v1/contacts?limit=1&page_token=${body.next_page_token}`;
      }
      expect(new Set(seen).size).toBe(options.seedContacts);
    } finally {
      await server.close();
    }
  });
});

describe('the staging variants', () => {
  it('take every value of every option between them', () => {
    const values = (key: keyof StagingOptions) =>
      new Set(STAGING_VARIANTS.map((v) => ({ ...STAGING_DEFAULTS, ...v.options })[key]));
    const expected: Partial<Record<keyof StagingOptions, unknown[]>> = {
      order: ['hash', 'oldest', 'alpha'],
      paging: ['page', 'offset', 'token', 'link-body', 'link-header'],
      overLimit: ['refuse', 'clamp'],
      ids: ['numeric', 'hex', 'uuid', 'prefixed'],
      malformedId: ['not-found', 'invalid'],
      timestamps: ['seconds', 'milliseconds'],
      createStatus: [200, 201],
      deleteAnswer: ['200-object', '202-deleted', '204'],
      goneStatus: [404, 410],
      invalidStatus: [400, 422],
      errorShape: ['nested', 'list', 'problem'],
      reactionsLayout: ['per-name', 'merged'],
      reactionNames: ['restricted', 'any'],
      repeatedReaction: ['once', 'twice'],
      attachments: ['own-shape', 'as-sent'],
      active: ['ever', 'recent', 'has-messages'],
      touchOnMessage: [true, false],
      readOnRetrieve: [true, false],
      deletedConversationList: ['refuse', 'empty'],
      unknownKeys: ['refuse', 'ignore'],
      normalizePhone: [true, false],
    };
    for (const [key, all] of Object.entries(expected))
      expect({ key, values: values(key as keyof StagingOptions) }).toEqual({ key, values: new Set(all) });
    expect(STAGING_VARIANTS.length).toBeGreaterThanOrEqual(4);
    expect(new Set(STAGING_VARIANTS.map((v) => v.name)).size).toBe(STAGING_VARIANTS.length);
  });

  it('leave the hard options off, and the hard variants take each of them, one each', () => {
    // formats, gzip, rateLimit, prefix, sharedIds, settleMs, ties, ownFields and flakyEdge are off in every STAGING_VARIANTS
    // entry (they are unchanged); STAGING_HARD_VARIANTS cover them, each turning on one.
    const hard: Record<HardOption, unknown[]> = {
      formats: ['loose', 'strict'],
      gzip: [false, true],
      rateLimit: [undefined, { requests: 40, windowMs: 1000 }],
      prefix: [undefined, '/api'],
      sharedIds: [false, true],
      settleMs: [undefined, 300],
      ties: [undefined, 'older-first'],
      ownFields: [undefined, true],
      flakyEdge: [undefined, FLAKY_EDGE],
    };
    const valueOf = (v: { options: Partial<StagingOptions> }, key: HardOption) =>
      ({ ...STAGING_DEFAULTS, ...v.options })[key];
    for (const [key, all] of Object.entries(hard) as [HardOption, unknown[]][]) {
      expect({ key, values: new Set(STAGING_VARIANTS.map((v) => valueOf(v, key))) }).toEqual({
        key,
        values: new Set([all[0]]),
      });
      expect({ key, values: new Set(STAGING_HARD_VARIANTS.map((v) => valueOf(v, key))) }).toEqual({
        key,
        values: new Set(all),
      });
    }
    for (const variant of STAGING_HARD_VARIANTS) {
      const on = HARD_OPTIONS.filter((key) => valueOf(variant, key) !== hard[key][0]);
      expect({ name: variant.name, on }).toEqual({ name: variant.name, on: [expect.any(String)] });
    }
    expect(STAGING_HARD_VARIANTS.map((v) => v.name)).toEqual([
      'strict input formats',
      'gzip answers',
      'rate limited with Retry-After',
      'under a path prefix /api',
      'ids repeat across kinds',
      'lists settle after 300 ms',
      'newest first, ties in insertion order',
      'own fields on records, pages and errors',
      'behind a flaky edge',
    ]);
  });
});

/*
 * The hard variants' options, each proven over HTTP on the hard variant that turns it on (and, where
 * a contrast proves more, on the same variant with the option changed).
 */
type HardOption =
  'formats' | 'gzip' | 'rateLimit' | 'prefix' | 'sharedIds' | 'settleMs' | 'ties' | 'ownFields' | 'flakyEdge';
const HARD_OPTIONS: HardOption[] = [
  'formats',
  'gzip',
  'rateLimit',
  'prefix',
  'sharedIds',
  'settleMs',
  'ties',
  'ownFields',
  'flakyEdge',
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function hardVariant(name: string): { options: Partial<StagingOptions>; o: StagingOptions } {
  const variant = STAGING_HARD_VARIANTS.find((v) => v.name === name);
  if (!variant) throw new Error(`No hard variant ${JSON.stringify(name)}.`);
  return { options: variant.options, o: { ...STAGING_DEFAULTS, ...variant.options } };
}

/** One request by fetch (which takes and decodes gzip by itself). */
async function send(
  server: Running,
  token: string | null,
  method: string,
  path: string,
  form?: Pairs,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = form.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  }
  const res = await fetch(path.startsWith('http') ? path : `${server.url}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
}

/** One request by node:http, which neither asks for nor decodes compression: the bytes as sent. */
function raw(
  server: Running,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const linkHeader = (answer: Answer, rel: string): string | undefined => {
  for (const part of (answer.headers.get('link') ?? '').split(',')) {
    const found = /<([^>]+)>\s*;\s*rel="([^"]+)"/.exec(part);
    if (found && found[2] === rel) return found[1];
  }
  return undefined;
};

/** Every page of a list to has_more false, by the server's own mechanism; links followed as given. */
async function listAll(
  server: Running,
  o: StagingOptions,
  token: string,
  path: string,
  query: Record<string, string> = {},
): Promise<{ pages: Answer[]; items: J[]; ids: string[] }> {
  const withQuery = (extra: Record<string, string>) => {
    const q = new URLSearchParams({ ...query, ...extra }).toString();
    return q ? `${path}?${q}` : path;
  };
  const pages = [await send(server, token, 'GET', withQuery({}))];
  for (;;) {
    const last = pages.at(-1)!;
    expect(last.status).toBe(200);
    if (!last.body.has_more) break;
    expect(pages.length).toBeLessThan(100);
    const seen = pages.reduce((n, p) => n + (p.body.data as J[]).length, 0);
    const next = {
      page: () => withQuery({ page: String(pages.length + 1) }),
      offset: () => withQuery({ offset: String(seen) }),
      token: () => withQuery({ page_token: last.body.next_page_token as string }),
      'link-body': () => last.body.links.next as string,
      'link-header': () => linkHeader(last, 'next')!,
    }[o.paging]();
    pages.push(await send(server, token, 'GET', next));
  }
  const items = pages.flatMap((p) => p.body.data as J[]);
  return { pages, items, ids: items.map((i) => i.id as string) };
}

/** The parameter an error names, in the variant's error shape. */
const paramOf = (o: StagingOptions, body: any): unknown =>
  o.errorShape === 'nested'
    ? body?.error?.param
    : o.errorShape === 'list'
      ? body?.errors?.[0]?.source?.parameter
      : body?.invalid_params?.[0]?.name;

/** A refusal with the status, in the variant's error shape. */
function expectError(o: StagingOptions, answer: Answer, status: number): void {
  expect(answer.status).toBe(status);
  if (o.errorShape === 'nested')
    expect(answer.body.error).toMatchObject({ status, message: expect.any(String) });
  else if (o.errorShape === 'list')
    expect(answer.body.errors[0]).toMatchObject({ code: expect.any(String), detail: expect.any(String) });
  else {
    expect(answer.body).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  }
}

describe('formats: strict (the hard variant "strict input formats")', () => {
  const { options, o } = hardVariant('strict input formats');
  let server: Running;
  beforeAll(async () => {
    server = await startStaging(options);
  });
  afterAll(() => server.close());

  const contactForm = (over: Record<string, string> = {}): Pairs =>
    Object.entries({ username: `strict_${++made}`, phone_number: '+15550102783', ...over });
  const createContact = async (token: string, over: Record<string, string> = {}): Promise<J> => {
    const answer = await send(server, token, 'POST', '/v1/contacts', contactForm(over));
    expect(answer.status).toBe(o.createStatus);
    return answer.body as J;
  };
  const refusedFor = async (answer: Promise<Answer>, param: string) => {
    const got = await answer;
    expect({ param, status: got.status, at: paramOf(o, got.body) }).toEqual({
      param,
      status: o.invalidStatus,
      at: param,
    });
    expectError(o, got, o.invalidStatus);
  };

  it('refuses a phone number other than E.164 (+1 555 0102 7838) and takes +15550102783; a refused create leaves no trace', async () => {
    const token = freshToken();
    const refusedNames: string[] = [];
    for (const phone of [
      '+1 555 0102 7838',
      '15550102783',
      '+1-555-010-2783',
      '+1 (555) 0102783',
      '+05550102783',
      '+123456',
      '+1234567890123456',
      ' +15550102783',
    ]) {
      const form = contactForm({ phone_number: phone });
      refusedNames.push(form[0]![1]);
      await refusedFor(send(server, token, 'POST', '/v1/contacts', form), 'phone_number');
    }
    const taken = [
      await createContact(token, { phone_number: '+15550102783' }),
      await createContact(token, { phone_number: '+1234567' }),
      await createContact(token, { phone_number: '+123456789012345' }),
    ];
    expect(taken.map((c) => c.phone_number)).toEqual(['+15550102783', '+1234567', '+123456789012345']);
    const list = await listAll(server, o, token, '/v1/contacts', { limit: '50' });
    expect(list.ids).toHaveLength(o.seedContacts + 3);
    expect(list.ids).toEqual(expect.arrayContaining(taken.map((c) => c.id)));
    const usernames = list.items.map((c) => c.username as string);
    for (const name of refusedNames) expect(usernames).not.toContain(name);
    // Its seeded numbers are E.164 too.
    for (const c of list.items) expect(c.phone_number).toMatch(/^\+[1-9][0-9]{6,14}$/);
  });

  it('refuses usernames, avatar_urls and display_names out of format, takes them at their limits, and a refused update changes nothing', async () => {
    const token = freshToken();
    const bad: [string, string][] = [
      ['username', 'two words'],
      ['username', 'x'.repeat(41)],
      ['username', 'josé'],
      ['username', 'a/b'],
      ['username', ''],
      ['avatar_url', 'example.com/a.png'],
      ['avatar_url', '/avatars/a.png'],
      ['avatar_url', 'ftp://example.com/a.png'],
      ['avatar_url', 'https://'],
      ['avatar_url', 'https://example.com/a b.png'],
      ['avatar_url', ''],
      ['display_name', ''],
      ['display_name', 'x'.repeat(101)],
      ['display_name', 'tab\there'],
      ['display_name', 'line\nbreak'],
      ['display_name', 'bell\u0007'],
      ['display_name', 'del\u007f'],
    ];
    for (const [key, value] of bad)
      await refusedFor(send(server, token, 'POST', '/v1/contacts', contactForm({ [key]: value })), key);
    const good = [
      await createContact(token, { username: 'a.b-c_D9' }),
      await createContact(token, { username: 'x'.repeat(40) }),
      await createContact(token, { avatar_url: 'http://example.com/a.png' }),
      await createContact(token, { avatar_url: 'https://cdn.example.com:8443/a/b.png?size=64#x' }),
      await createContact(token, { display_name: 'x'.repeat(100) }),
      await createContact(token, { display_name: '😀'.repeat(100) }),
      await createContact(token, { display_name: 'Zoë Ñandú 山田' }),
    ];
    expect(good.map((c) => c.display_name).slice(4)).toEqual([
      'x'.repeat(100),
      '😀'.repeat(100),
      'Zoë Ñandú 山田',
    ]);
    expect((await listAll(server, o, token, '/v1/contacts', { limit: '50' })).ids).toHaveLength(
      o.seedContacts + good.length,
    );
    // On update: '' no longer means "back to the username" (1 to 100 characters).
    const contact = good[0]!;
    const path = `/v1/contacts/${contact.id}`;
    for (const value of ['', 'x'.repeat(101), 'nul\u0000'])
      await refusedFor(send(server, token, 'PUT', path, [['display_name', value]]), 'display_name');
    expect((await send(server, token, 'GET', path)).body).toEqual(contact);
    const renamed = await send(server, token, 'PUT', path, [['display_name', 'Renamed ✓']]);
    expect(renamed.body).toEqual({ ...contact, display_name: 'Renamed ✓' });
  });

  it('takes message texts of 1 to 4000 characters, on send and on update', async () => {
    const token = freshToken();
    const contact = await createContact(token);
    const sendText = (message: string) =>
      send(server, token, 'POST', '/v1/messages', [
        ['conversation_id', contact.conversation_id],
        ['message', message],
      ]);
    await refusedFor(sendText(''), 'message');
    await refusedFor(sendText('a'.repeat(4001)), 'message');
    await refusedFor(sendText('😀'.repeat(4001)), 'message');
    const longest = await sendText('a'.repeat(4000));
    expect(longest.status).toBe(o.createStatus);
    const wide = await sendText('😀'.repeat(4000));
    expect(wide.status).toBe(o.createStatus);
    expect(wide.body.message).toBe('😀'.repeat(4000));
    const path = `/v1/messages/${longest.body.id}`;
    await refusedFor(send(server, token, 'PUT', path, [['message', 'b'.repeat(4001)]]), 'message');
    const after = (await send(server, token, 'GET', path)).body;
    expect(after.message).toBe('a'.repeat(4000));
    expect(after.updated_at).toBeNull();
    const listed = await listAll(server, o, token, '/v1/messages', {
      conversation_id: contact.conversation_id,
    });
    expect([...listed.ids].sort()).toEqual([longest.body.id, wide.body.id].sort());
  });

  it('stores attachments sent as attachments[i][url] and [name] (with ids of its own) and refuses other keys, changing nothing', async () => {
    const token = freshToken();
    const contact = await createContact(token);
    const sent = await send(server, token, 'POST', '/v1/messages', [
      ['conversation_id', contact.conversation_id],
      ['message', 'files'],
      ['attachments[0][url]', 'https://example.com/files/report.pdf'],
      ['attachments[0][name]', 'report.pdf'],
      ['attachments[1][url]', 'https://example.com/files/photo.jpg'],
      ['attachments[1][name]', 'photo.jpg'],
      ['attachments[1][content_type]', 'image/jpeg'],
      ['attachments[1][size]', '2048'],
      ['attachments[2][url]', 'http://example.com/raw'],
    ]);
    expect(sent.status).toBe(o.createStatus);
    // The variant's ids (staging.ts newId): an attachment's are of the same kind.
    const id = expect.stringMatching(/^[0-9a-f]{8,12}$/);
    expect(sent.body.attachments).toEqual([
      {
        id,
        name: 'report.pdf',
        url: 'https://example.com/files/report.pdf',
        content_type: 'application/octet-stream',
        size: null,
      },
      {
        id,
        name: 'photo.jpg',
        url: 'https://example.com/files/photo.jpg',
        content_type: 'image/jpeg',
        size: 2048,
      },
      { id, name: null, url: 'http://example.com/raw', content_type: 'application/octet-stream', size: null },
    ]);
    expect(new Set(sent.body.attachments.map((a: J) => a.id)).size).toBe(3);
    const path = `/v1/messages/${sent.body.id}`;
    expect((await send(server, token, 'GET', path)).body.attachments).toEqual(sent.body.attachments);
    const listed = await listAll(server, o, token, '/v1/messages', {
      conversation_id: contact.conversation_id,
    });
    expect(listed.items[0]!.attachments).toEqual(sent.body.attachments);

    const refusals: [Pairs, string][] = [
      [
        [
          ['attachments[0][filename]', 'a.pdf'],
          ['attachments[0][file_url]', 'https://example.com/a.pdf'],
        ],
        'attachments[0][filename]',
      ],
      [[['attachments[0][file_url]', 'https://example.com/a.pdf']], 'attachments[0][file_url]'],
      [
        [
          ['attachments[0][url]', 'https://example.com/a.pdf'],
          ['attachments[0][file_type]', 'application/pdf'],
        ],
        'attachments[0][file_type]',
      ],
      [[['attachments[0][name]', 'a.pdf']], 'attachments[0][url]'],
      [[['attachments[0][url]', 'files/a.pdf']], 'attachments[0][url]'],
      [[['attachments[0][url]', 'ftp://example.com/a.pdf']], 'attachments[0][url]'],
      [
        [
          ['attachments[0][url]', 'https://example.com/a.pdf'],
          ['attachments[0][size]', 'big'],
        ],
        'attachments[0][size]',
      ],
      [
        [
          ['attachments[0][url]', 'https://example.com/a.pdf'],
          ['attachments[0][name]', ''],
        ],
        'attachments[0][name]',
      ],
      // The first one is good: still nothing is added.
      [
        [
          ['attachments[0][url]', 'https://example.com/good.pdf'],
          ['attachments[1][filename]', 'bad.pdf'],
        ],
        'attachments[1][filename]',
      ],
    ];
    for (const [form, param] of refusals) await refusedFor(send(server, token, 'PUT', path, form), param);
    const unchanged = (await send(server, token, 'GET', path)).body;
    expect(unchanged.attachments).toEqual(sent.body.attachments);
    expect(unchanged.updated_at).toBeNull();
    const added = await send(server, token, 'PUT', path, [
      ['attachments[0][url]', 'https://example.com/files/more.txt'],
      ['attachments[0][name]', 'more.txt'],
    ]);
    expect(added.status).toBe(200);
    expect(added.body.attachments).toHaveLength(4);
    expect(added.body.attachments[3]).toMatchObject({
      id,
      name: 'more.txt',
      url: 'https://example.com/files/more.txt',
    });
  });

  it('refuses reaction names other than [a-z0-9_]{1,32} besides its own rule, and reacting names that are no usernames', async () => {
    const token = freshToken();
    const contact = await createContact(token);
    const react = async (srv: Running, pairs: Pairs) => {
      const c =
        srv === server ? contact : (await send(srv, token, 'POST', '/v1/contacts', contactForm())).body;
      const m = await send(srv, token, 'POST', '/v1/messages', [
        ['conversation_id', c.conversation_id],
        ['message', 'react'],
      ]);
      return send(srv, token, 'PUT', `/v1/messages/${m.body.id}`, pairs);
    };
    // The variant's own rule (restricted) stays.
    expect((await react(server, [['reactions[like][]', 'erin']])).status).toBe(200);
    await refusedFor(react(server, [['reactions[heart][]', 'erin']]), 'reactions[heart]');
    await refusedFor(react(server, [['reactions[like][]', 'two words']]), 'reactions[like][]');
    // With any name: strict adds the length and the alphabet; loose takes what it took.
    const any = await startStaging({ ...options, reactionNames: 'any' });
    const loose = await startStaging({ ...options, reactionNames: 'any', formats: 'loose' });
    try {
      expect((await react(any, [['reactions[party_popper][]', 'erin']])).status).toBe(200);
      expect((await react(any, [[`reactions[${'a'.repeat(32)}][]`, 'erin']])).status).toBe(200);
      await refusedFor(
        react(any, [[`reactions[${'a'.repeat(33)}][]`, 'erin']]),
        `reactions[${'a'.repeat(33)}]`,
      );
      expect((await react(loose, [[`reactions[${'a'.repeat(33)}][]`, 'erin']])).status).toBe(200);
      expect((await react(loose, [['reactions[like][]', 'two words']])).status).toBe(200);
    } finally {
      await any.close();
      await loose.close();
    }
  });

  it('keeps loose formats as they were: any non-empty string where the document says string', async () => {
    const loose = await startStaging({ ...options, formats: 'loose' });
    try {
      const token = freshToken();
      const contact = await send(loose, token, 'POST', '/v1/contacts', [
        ['username', 'two words josé'],
        ['phone_number', '+1 555 0102 7838'],
        ['avatar_url', 'not a url'],
        ['display_name', 'tab\there'],
      ]);
      expect(contact.status).toBe(o.createStatus);
      expect(contact.body.phone_number).toBe('+155501027838');
      const message = await send(loose, token, 'POST', '/v1/messages', [
        ['conversation_id', contact.body.conversation_id],
        ['message', 'a'.repeat(4001)],
        ['attachments[0][filename]', 'a.pdf'],
        ['attachments[0][file_url]', 'https://example.com/a.pdf'],
      ]);
      expect(message.status).toBe(o.createStatus);
      expect(message.body.attachments[0]).toMatchObject({ name: 'a.pdf', url: 'https://example.com/a.pdf' });
      const reset = await send(loose, token, 'PUT', `/v1/contacts/${contact.body.id}`, [
        ['display_name', ''],
      ]);
      expect(reset.body.display_name).toBe('two words josé');
    } finally {
      await loose.close();
    }
  });
});

describe('gzip (the hard variant "gzip answers")', () => {
  const { options, o } = hardVariant('gzip answers');
  let server: Running;
  beforeAll(async () => {
    server = await startStaging(options);
  });
  afterAll(() => server.close());

  it('compresses its answers when Accept-Encoding takes gzip, to the same JSON, and only then', async () => {
    const token = freshToken();
    const auth = { authorization: `Bearer ${token}` };
    const plain = await raw(server, 'GET', '/v1/contacts?limit=50', {
      ...auth,
      'accept-encoding': 'identity',
    });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    const json = JSON.parse(plain.body.toString('utf8')) as J;
    expect(json.data).toHaveLength(Math.min(50, o.seedContacts));
    for (const accept of [
      'gzip',
      'gzip, deflate, br',
      'br;q=1.0, gzip;q=0.5',
      '*',
      'deflate, *;q=0.1',
      'GZIP',
    ]) {
      const packed = await raw(server, 'GET', '/v1/contacts?limit=50', {
        ...auth,
        'accept-encoding': accept,
      });
      expect({ accept, status: packed.status, encoding: packed.headers['content-encoding'] }).toEqual({
        accept,
        status: 200,
        encoding: 'gzip',
      });
      expect(packed.headers.vary).toMatch(/accept-encoding/i);
      expect(Number(packed.headers['content-length'])).toBe(packed.body.length);
      expect([...packed.body.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
      expect(packed.body.length).toBeLessThan(plain.body.length);
      expect(JSON.parse(gunzipSync(packed.body).toString('utf8'))).toEqual(json);
    }
    for (const accept of ['identity', 'gzip;q=0', 'deflate, br', '*;q=0', 'gzip;q=0, *']) {
      const unpacked = await raw(server, 'GET', '/v1/contacts?limit=50', {
        ...auth,
        'accept-encoding': accept,
      });
      expect({ accept, encoding: unpacked.headers['content-encoding'] }).toEqual({
        accept,
        encoding: undefined,
      });
      expect(JSON.parse(unpacked.body.toString('utf8'))).toEqual(json);
    }
    const none = await raw(server, 'GET', '/v1/contacts?limit=50', auth);
    expect(none.headers['content-encoding']).toBeUndefined();
  });

  it('compresses refusals and the answers to writes too, and a client that decodes reads them as they are', async () => {
    const token = freshToken();
    const gz = { 'accept-encoding': 'gzip' };
    const decode = (answer: { body: Buffer }) => JSON.parse(gunzipSync(answer.body).toString('utf8')) as J;
    const anonymous = await raw(server, 'GET', '/v1/contacts', gz);
    expect([anonymous.status, anonymous.headers['content-encoding']]).toEqual([401, 'gzip']);
    expect(decode(anonymous).errors[0]).toMatchObject({ detail: expect.any(String) });
    const auth = { ...gz, authorization: `Bearer ${token}` };
    const form = 'username=zipped_one&phone_number=%2B15550102783';
    const created = await raw(
      server,
      'POST',
      '/v1/contacts',
      { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      form,
    );
    expect([created.status, created.headers['content-encoding']]).toEqual([o.createStatus, 'gzip']);
    const contact = decode(created);
    expect(contact).toMatchObject({ username: 'zipped_one', phone_number: '+15550102783' });
    const unknown = await raw(server, 'GET', '/v1/nothing', auth);
    expect([unknown.status, unknown.headers['content-encoding']]).toEqual([404, 'gzip']);
    // fetch asks for gzip and decodes it.
    const fetched = await send(server, token, 'GET', `/v1/contacts/${contact.id}`);
    expect(fetched.headers.get('content-encoding')).toBe('gzip');
    expect(fetched.body).toEqual(contact);
    const removed = await raw(server, 'DELETE', `/v1/contacts/${contact.id}`, auth);
    expect(removed.headers['content-encoding']).toBe('gzip');
    expect(decode(removed)).toEqual({ id: contact.id, deleted: true });
    const walked = await listAll(server, o, token, '/v1/messages', { limit: '50' });
    expect(walked.ids).toHaveLength(o.seedMessages);
  });
});

describe('rateLimit (the hard variant "rate limited with Retry-After")', () => {
  const { options, o } = hardVariant('rate limited with Retry-After');
  const limit = o.rateLimit!;
  let server: Running;
  beforeAll(async () => {
    server = await startStaging(options);
  });
  afterAll(() => server.close());

  it('answers 429 with Retry-After beyond the limit of a token, changes nothing then, and takes requests again after waiting', async () => {
    const token = freshToken();
    const created: string[] = [];
    let refused: Answer | undefined;
    let refusedName = '';
    for (let i = 0; i < limit.requests * 3 && !refused; i++) {
      const username = `burst_${tokens}_${i}`;
      const answer = await send(server, token, 'POST', '/v1/contacts', [
        ['username', username],
        ['phone_number', '+15550100000'],
      ]);
      if (answer.status === 429) {
        refused = answer;
        refusedName = username;
      } else {
        expect(answer.status).toBe(o.createStatus);
        created.push(username);
      }
    }
    expect(refused).toBeDefined();
    expect(created.length).toBeGreaterThanOrEqual(limit.requests);
    expectError(o, refused!, 429);
    const retry = refused!.headers.get('retry-after');
    expect(retry).toMatch(/^[1-9][0-9]*$/);
    expect(Number(retry)).toBeLessThanOrEqual(Math.ceil(limit.windowMs / 1000));
    // Every endpoint of this token is held back; another token is not.
    const held = await send(server, token, 'GET', '/v1/contacts');
    expectError(o, held, 429);
    expect(held.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect((await send(server, freshToken(), 'GET', '/v1/contacts')).status).toBe(200);
    await sleep(Number(retry) * 1000);
    const list = await listAll(server, o, token, '/v1/contacts', { limit: '50' });
    expect(list.ids).toHaveLength(o.seedContacts + created.length);
    const usernames = list.items.map((c) => c.username as string);
    expect(usernames).toEqual(expect.arrayContaining(created));
    expect(usernames).not.toContain(refusedName);
  });
});

describe('prefix (the hard variant "under a path prefix /api")', () => {
  const { options, o } = hardVariant('under a path prefix /api');
  let server: Running;
  beforeAll(async () => {
    server = await startStaging(options);
  });
  afterAll(() => server.close());

  it('serves every endpoint under /api/v1 only: plain /v1 is 404', async () => {
    const token = freshToken();
    const contact = await send(server, token, 'POST', '/api/v1/contacts', [
      ['username', 'prefixed_one'],
      ['phone_number', '+15550102783'],
    ]);
    expect(contact.status).toBe(o.createStatus);
    const message = await send(server, token, 'POST', '/api/v1/messages', [
      ['conversation_id', contact.body.conversation_id],
      ['message', 'under /api'],
    ]);
    expect(message.status).toBe(o.createStatus);
    const c = `/v1/contacts/${contact.body.id}`;
    const m = `/v1/messages/${message.body.id}`;
    for (const path of ['/api/v1/contacts', '/api/v1/messages', `/api${c}`, `/api${m}`])
      expect({ path, status: (await send(server, token, 'GET', path)).status }).toEqual({
        path,
        status: 200,
      });
    for (const path of [
      '/v1/contacts',
      '/v1/messages',
      c,
      m,
      '/api/contacts',
      '/api/v2/contacts',
      '/apiv1/contacts',
    ])
      expect({ path, status: (await send(server, token, 'GET', path)).status }).toEqual({
        path,
        status: 404,
      });
    expect(
      (
        await send(server, token, 'POST', '/v1/contacts', [
          ['username', 'x'],
          ['phone_number', '+15550102783'],
        ])
      ).status,
    ).toBe(404);
    expect((await send(server, token, 'PUT', c, [['display_name', 'x']])).status).toBe(404);
    expect((await send(server, token, 'DELETE', m)).status).toBe(404);
    const patch = await send(server, token, 'PATCH', `/api${c}`);
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toContain('PUT');
    expect(
      (await send(server, token, 'PUT', `/api${c}`, [['display_name', 'Renamed']])).body.display_name,
    ).toBe('Renamed');
    expect((await send(server, token, 'DELETE', `/api${m}`)).status).toBe(
      { '200-object': 200, '202-deleted': 202, '204': 204 }[o.deleteAnswer],
    );
    expect((await send(server, token, 'GET', `/api${m}`)).status).toBe(o.goneStatus);
  });

  it('writes the prefix into every paging link, in the body and in a Link header', async () => {
    const token = freshToken();
    expect(o.paging).toBe('link-body');
    const walked = await listAll(server, o, token, '/api/v1/contacts', { limit: '7' });
    expect(walked.pages.length).toBeGreaterThan(2);
    for (const page of walked.pages.slice(0, -1))
      expect(page.body.links.next).toMatch(/^\/api\/v1\/contacts\?/);
    for (const page of walked.pages.slice(1)) expect(page.body.links.prev).toMatch(/^\/api\/v1\/contacts\?/);
    expect(new Set(walked.ids).size).toBe(o.seedContacts);
    expect(walked.ids).toHaveLength(o.seedContacts);
    const back = await send(server, token, 'GET', walked.pages[1]!.body.links.prev as string);
    expect(back.body.data.map((x: J) => x.id)).toEqual(walked.pages[0]!.body.data.map((x: J) => x.id));
    const messages = await listAll(server, o, token, '/api/v1/messages', { limit: '50' });
    expect(messages.ids).toHaveLength(o.seedMessages);
    for (const page of messages.pages.slice(0, -1))
      expect(page.body.links.next).toMatch(/^\/api\/v1\/messages\?/);

    const headers = await startStaging({ ...options, paging: 'link-header' });
    try {
      const ho: StagingOptions = { ...o, paging: 'link-header' };
      const pages = await listAll(headers, ho, token, '/api/v1/contacts', { limit: '7' });
      const origin = `${headers.url}/api/v1/contacts?`;
      for (const page of pages.pages.slice(0, -1))
        expect(linkHeader(page, 'next')!.startsWith(origin)).toBe(true);
      for (const page of pages.pages.slice(1))
        expect(linkHeader(page, 'prev')!.startsWith(origin)).toBe(true);
      expect(new Set(pages.ids).size).toBe(o.seedContacts);
    } finally {
      await headers.close();
    }
  });
});

describe('ties (the hard variant "newest first, ties in insertion order")', () => {
  const { options } = hardVariant('newest first, ties in insertion order');
  let server: Running;
  beforeAll(async () => {
    server = await startStaging(options);
  });
  afterAll(() => server.close());

  it('lists messages newest first, and those of the same second in the order they were sent', async () => {
    const token = freshToken();
    const contact = (await send(server, token, 'GET', '/v1/contacts?limit=1')).body.data[0];
    const sent: string[] = [];
    for (let i = 0; i < 4; i++)
      sent.push(
        (
          await send(server, token, 'POST', '/v1/messages', [
            ['conversation_id', contact.conversation_id],
            ['message', `tie ${i}`],
          ])
        ).body.id,
      );
    const listed = (
      await send(server, token, 'GET', `/v1/messages?conversation_id=${contact.conversation_id}&limit=50`)
    ).body.data as { id: string; created_at: number }[];
    let ties = 0;
    for (let i = 0; i + 1 < listed.length; i++) {
      const [a, b] = [listed[i]!, listed[i + 1]!];
      expect(a.created_at).toBeGreaterThanOrEqual(b.created_at);
      if (a.created_at === b.created_at && sent.includes(a.id) && sent.includes(b.id)) {
        ties++;
        expect(sent.indexOf(a.id)).toBeLessThan(sent.indexOf(b.id));
      }
    }
    // Four sends in a row: at least two in one second (the clock's second may turn once).
    expect(ties).toBeGreaterThan(0);
  });
});

describe('ownFields (the hard variant "own fields on records, pages and errors")', () => {
  const { options } = hardVariant('own fields on records, pages and errors');
  let server: Running;
  beforeAll(async () => {
    server = await startStaging(options);
  });
  afterAll(() => server.close());

  it('adds object and its own URL to every record, object and total_count to every page, and doc_url to errors', async () => {
    const token = freshToken();
    const page = await send(server, token, 'GET', '/v1/contacts?limit=2');
    const all = await send(server, token, 'GET', '/v1/contacts?limit=50');
    expect(page.body).toMatchObject({ object: 'list', total_count: all.body.data.length, has_more: true });
    const contact = page.body.data[0];
    expect(contact).toMatchObject({ object: 'contact', url: `/v1/contacts/${contact.id}` });
    expect((await send(server, token, 'GET', contact.url)).body).toEqual(contact);
    const sent = await send(server, token, 'POST', '/v1/messages', [
      ['conversation_id', contact.conversation_id],
      ['message', 'Hello'],
    ]);
    expect(sent.body).toMatchObject({
      object: 'message',
      links: { self: `/v1/messages/${sent.body.id}` },
      contact: { object: 'contact', id: contact.id },
    });
    expect(sent.body.contact).not.toHaveProperty('url');
    const refused = await send(server, token, 'GET', '/v1/contacts?limit=abc');
    expect(refused.body).toMatchObject({
      error: { param: 'limit', doc_url: 'https://staging.example/docs/errors' },
    });
  });
});

describe('sharedIds (the hard variant "ids repeat across kinds")', () => {
  const { options, o } = hardVariant('ids repeat across kinds');
  let server: Running;
  beforeAll(async () => {
    server = await startStaging(options);
  });
  afterAll(() => server.close());

  const everything = async (srv: Running, token: string) => {
    const contacts = await listAll(srv, o, token, '/v1/contacts', { limit: '50' });
    const messages = await listAll(srv, o, token, '/v1/messages', { limit: '50' });
    return { contacts, messages, conversations: contacts.items.map((c) => c.conversation_id as string) };
  };

  it('has a contact, a conversation and a message with the same id, each kept apart, and ids unique within a kind', async () => {
    const token = freshToken();
    const { contacts, messages, conversations } = await everything(server, token);
    for (const ids of [contacts.ids, messages.ids, conversations]) {
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of ids) expect(id).toMatch(/^[1-9][0-9]*$/);
    }
    const messageIds = new Set(messages.ids);
    const shared = contacts.ids.filter((id) => messageIds.has(id) && conversations.includes(id));
    expect(shared.length).toBeGreaterThan(1);
    // One id, three records: retrieve tells them apart by the path.
    const [id, other] = shared as [string, string];
    const asContact = (await send(server, token, 'GET', `/v1/contacts/${id}`)).body;
    const asMessage = (await send(server, token, 'GET', `/v1/messages/${id}`)).body;
    expect(asContact).toMatchObject({ id, username: expect.any(String) });
    expect(asMessage).toMatchObject({ id, message: expect.any(String) });
    const inConversation = await listAll(server, o, token, '/v1/messages', { conversation_id: id });
    expect(inConversation.items.every((m) => m.conversation_id === id)).toBe(true);
    // Deleting the message leaves the contact and the conversation of that id.
    await send(server, token, 'DELETE', `/v1/messages/${id}`);
    expect((await send(server, token, 'GET', `/v1/messages/${id}`)).status).toBe(o.goneStatus);
    expect((await send(server, token, 'GET', `/v1/contacts/${id}`)).body).toEqual(asContact);
    const sent = await send(server, token, 'POST', '/v1/messages', [
      ['conversation_id', id],
      ['message', 'still here'],
    ]);
    expect(sent.status).toBe(o.createStatus);
    // Deleting a contact leaves the message of its id, unless it was in its conversation.
    const otherMessage = (await send(server, token, 'GET', `/v1/messages/${other}`)).body;
    await send(server, token, 'DELETE', `/v1/contacts/${other}`);
    expect((await send(server, token, 'GET', `/v1/contacts/${other}`)).status).toBe(o.goneStatus);
    expect((await send(server, token, 'GET', `/v1/messages/${other}`)).status).toBe(
      otherMessage.conversation_id === other ? o.goneStatus : 200,
    );
    // New records go on counting within their kind: a new contact's id is again a message's.
    const created = await send(server, token, 'POST', '/v1/contacts', [
      ['username', 'counted_on'],
      ['phone_number', '+15550102783'],
    ]);
    expect(contacts.ids).not.toContain(created.body.id);
    expect(messageIds.has(created.body.id as string)).toBe(true);
  });

  it('without sharedIds, conversations count apart from contacts and messages', async () => {
    const apart = await startStaging({ ...options, sharedIds: false });
    try {
      const { contacts, messages, conversations } = await everything(apart, freshToken());
      const others = new Set([...contacts.ids, ...messages.ids]);
      expect(conversations.filter((id) => others.has(id))).toEqual([]);
    } finally {
      await apart.close();
    }
  });
});

describe('settleMs (the hard variant "lists settle after 300 ms")', () => {
  const { options, o } = hardVariant('lists settle after 300 ms');
  const settle = o.settleMs!;
  let server: Running;
  beforeAll(async () => {
    server = await startStaging(options);
  });
  afterAll(() => server.close());

  const settled = () => sleep(settle + 60);
  const contactsOf = (token: string) => listAll(server, o, token, '/v1/contacts', { limit: '50' });
  const messagesOf = (token: string, query: Record<string, string> = {}) =>
    listAll(server, o, token, '/v1/messages', { limit: '50', ...query });
  const create = async (token: string, username: string): Promise<J> => {
    const answer = await send(server, token, 'POST', '/v1/contacts', [
      ['username', username],
      ['phone_number', '+15550102783'],
    ]);
    expect(answer.status).toBe(o.createStatus);
    return answer.body as J;
  };
  const say = async (token: string, contact: J, text: string): Promise<J> => {
    const answer = await send(server, token, 'POST', '/v1/messages', [
      ['conversation_id', contact.conversation_id as string],
      ['message', text],
    ]);
    expect(answer.status).toBe(o.createStatus);
    return answer.body as J;
  };

  it('lists a created contact and message only settleMs after the create; retrieve sees them at once', async () => {
    const token = freshToken();
    // The seeded account is there from the start.
    expect((await contactsOf(token)).ids).toHaveLength(o.seedContacts);
    const contact = await create(token, 'settling_one');
    expect((await send(server, token, 'GET', `/v1/contacts/${contact.id}`)).body).toEqual(contact);
    expect((await contactsOf(token)).ids).not.toContain(contact.id);
    const message = await say(token, contact, 'settling text');
    expect((await send(server, token, 'GET', `/v1/messages/${message.id}`)).status).toBe(200);
    expect((await messagesOf(token)).ids).not.toContain(message.id);
    // Its new conversation lists empty, not refused.
    expect((await messagesOf(token, { conversation_id: contact.conversation_id })).ids).toEqual([]);
    await settled();
    const now = (await send(server, token, 'GET', `/v1/contacts/${contact.id}`)).body;
    expect((await contactsOf(token)).items.find((c) => c.id === contact.id)).toEqual(now);
    const listed = await messagesOf(token, { conversation_id: contact.conversation_id });
    expect(listed.ids).toEqual([message.id]);
    expect(listed.items[0]).toEqual((await send(server, token, 'GET', `/v1/messages/${message.id}`)).body);
    expect((await messagesOf(token)).ids).toHaveLength(o.seedMessages + 1);
  });

  it('shows an update in the lists only settleMs after it, and pages them as before', async () => {
    const token = freshToken();
    const contact = await create(token, 'settling_two');
    const message = await say(token, contact, 'first text');
    await settled();
    const renamed = await send(server, token, 'PUT', `/v1/contacts/${contact.id}`, [
      ['display_name', 'Renamed'],
    ]);
    expect(renamed.body.display_name).toBe('Renamed');
    const edited = await send(server, token, 'PUT', `/v1/messages/${message.id}`, [
      ['message', 'second text'],
      ['reactions[like][]', 'erin'],
    ]);
    expect(edited.body.message).toBe('second text');
    expect((await send(server, token, 'GET', `/v1/contacts/${contact.id}`)).body.display_name).toBe(
      'Renamed',
    );
    const early = await contactsOf(token);
    expect(early.items.find((c) => c.id === contact.id)!.display_name).toBe('settling_two');
    const earlyMessage = (await messagesOf(token, { conversation_id: contact.conversation_id })).items[0]!;
    expect([earlyMessage.message, earlyMessage.reactions, earlyMessage.updated_at]).toEqual([
      'first text',
      [],
      null,
    ]);
    await settled();
    expect((await contactsOf(token)).items.find((c) => c.id === contact.id)!.display_name).toBe('Renamed');
    const lateMessage = (await messagesOf(token, { conversation_id: contact.conversation_id })).items[0]!;
    // (This retrieve sets read_at, which the lists show only later.)
    const retrieved = (await send(server, token, 'GET', `/v1/messages/${message.id}`)).body;
    expect({ ...lateMessage, read_at: null }).toEqual({ ...retrieved, read_at: null });
    expect(lateMessage.message).toBe('second text');
    // Pages as before: every contact once, in the same order, whatever the page size.
    const whole = await contactsOf(token);
    expect(whole.ids).toHaveLength(o.seedContacts + 1);
    expect((await listAll(server, o, token, '/v1/contacts', { limit: '4' })).ids).toEqual(whole.ids);
  });

  it('drops a deleted message, and a deleted contact with its conversation and messages, from the lists settleMs after the delete', async () => {
    const token = freshToken();
    const doomed = await create(token, 'settling_three');
    const kept = await create(token, 'settling_four');
    const inDoomed = [await say(token, doomed, 'doomed one'), await say(token, doomed, 'doomed two')];
    const alone = await say(token, kept, 'deleted alone');
    await settled();
    expect((await send(server, token, 'DELETE', `/v1/messages/${alone.id}`)).status).toBeLessThan(300);
    expect((await send(server, token, 'DELETE', `/v1/contacts/${doomed.id}`)).status).toBeLessThan(300);
    expect((await send(server, token, 'GET', `/v1/messages/${alone.id}`)).status).toBe(o.goneStatus);
    expect((await send(server, token, 'GET', `/v1/contacts/${doomed.id}`)).status).toBe(o.goneStatus);
    expect((await send(server, token, 'GET', `/v1/messages/${inDoomed[0]!.id}`)).status).toBe(o.goneStatus);
    // The lists still show them.
    expect((await contactsOf(token)).ids).toContain(doomed.id);
    expect((await messagesOf(token)).ids).toEqual(
      expect.arrayContaining([alone.id, ...inDoomed.map((m) => m.id)]),
    );
    expect((await messagesOf(token, { conversation_id: doomed.conversation_id })).ids.sort()).toEqual(
      inDoomed.map((m) => m.id).sort(),
    );
    await settled();
    expect((await contactsOf(token)).ids).not.toContain(doomed.id);
    expect((await contactsOf(token)).ids).toContain(kept.id);
    const all = await messagesOf(token);
    for (const gone of [alone, ...inDoomed]) expect(all.ids).not.toContain(gone.id);
    expect(all.ids).toHaveLength(o.seedMessages);
    const conversation = await send(
      server,
      token,
      'GET',
      `/v1/messages?conversation_id=${doomed.conversation_id}`,
    );
    if (o.deletedConversationList === 'refuse') expect(conversation.status).toBe(o.goneStatus);
    else expect(conversation.body).toMatchObject({ has_more: false, data: [] });
  });
});

describe('the hard staging variants', () => {
  it.each(STAGING_HARD_VARIANTS.map((v) => [v.name, v.options] as const))(
    '"%s" serves its seeded lists',
    async (_name, options) => {
      const o: StagingOptions = { ...STAGING_DEFAULTS, ...options };
      const server = await startStaging(options);
      try {
        const token = freshToken();
        const base = `${o.prefix ?? ''}/v1`;
        const first = await send(server, token, 'GET', `${base}/contacts`);
        expect(first.status).toBe(200);
        expect(first.body).toMatchObject({ has_more: true });
        expect(first.body.data).toHaveLength(o.defaultLimit);
        expect((await listAll(server, o, token, `${base}/messages`, { limit: '50' })).ids).toHaveLength(
          o.seedMessages,
        );
      } finally {
        await server.close();
      }
    },
  );
});
