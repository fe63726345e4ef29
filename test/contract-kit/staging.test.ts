import type { Running } from './harness';
import { startStaging, STAGING_DEFAULTS, STAGING_VARIANTS, type StagingOptions } from './staging';

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
const CONTACT_FIELDS = [
  'avatar_url',
  'conversation_id',
  'created_at',
  'display_name',
  'id',
  'last_active_at',
  'phone_number',
  'username',
];
const SENDER_FIELDS = ['avatar_url', 'created_at', 'id', 'last_active_at', 'phone_number', 'username'];
const MESSAGE_FIELDS = [
  'attachments',
  'contact',
  'conversation_id',
  'created_at',
  'id',
  'message',
  'reactions',
  'read_at',
  'updated_at',
];
const ID_SHAPES: Record<StagingOptions['ids'], RegExp> = {
  numeric: /^[1-9][0-9]*$/,
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
      const { display_name: _d, conversation_id: _c, ...six } = now;
      expect(message.contact).toEqual(six);
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
        const { display_name: _d, conversation_id: _c, ...six } = byConversation.get(m.conversation_id)!;
        expect(m.contact).toEqual(six);
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
      ids: ['numeric', 'uuid', 'prefixed'],
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
});
