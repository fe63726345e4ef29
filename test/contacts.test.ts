import type { Contact, Page } from '../src/types';
import { api, createContact, expectError, makeApp, manualClock, sendMessage, snapshot } from './helpers';

const CONTACT_FIELDS = [
  'id',
  'username',
  'phone_number',
  'avatar_url',
  'display_name',
  'conversation_id',
  'last_active_at',
  'created_at',
];

describe('POST /v1/contacts', () => {
  it('answers 201 with the created contact and its documented fields', async () => {
    const app = makeApp();
    const res = await api(app)
      .post('/v1/contacts')
      .type('form')
      .send({
        username: 'alice',
        phone_number: '+1 (555) 010-2030',
        avatar_url: 'https://example.com/a.png',
        display_name: 'Alice A.',
      })
      .expect(201)
      .expect('Content-Type', 'application/json; charset=utf-8');
    expect(Object.keys(res.body)).toEqual(CONTACT_FIELDS);
    expect(res.body).toMatchObject({
      username: 'alice',
      phone_number: '+1 (555) 010-2030',
      avatar_url: 'https://example.com/a.png',
      display_name: 'Alice A.',
      last_active_at: null,
    });
    expect(res.body.id).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(res.body.conversation_id).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(res.body.conversation_id).not.toBe(res.body.id);
  });

  it('stamps created_at with the current Unix second', async () => {
    const clock = manualClock(1_812_345_678);
    const contact = await createContact(makeApp({ now: clock.now }));
    expect(contact.created_at).toBe(1_812_345_678);
  });

  describe('without display_name', () => {
    it('defaults display_name to the username', async () => {
      const contact = await createContact(makeApp(), { username: 'bob_42' });
      expect(contact.display_name).toBe('bob_42');
    });

    it('treats an empty display_name as absent', async () => {
      const contact = await createContact(makeApp(), { username: 'carol', display_name: '' });
      expect(contact.display_name).toBe('carol');
    });
  });

  it('gives a contact without avatar_url a generated avatar URL', async () => {
    const contact = await createContact(makeApp(), { username: 'dave' });
    expect(contact.avatar_url).toMatch(/^https:\/\/.+dave/);
  });

  it('gives a username with a lone surrogate (a JSON escape) its avatar too, and stores it as sent', async () => {
    const res = await api(makeApp())
      .post('/v1/contacts')
      .type('json')
      .send('{"username":"a\\ud800b","phone_number":"1"}')
      .expect(201);
    expect(res.body.username).toBe('a\ud800b');
    expect(res.body.avatar_url).toMatch(/seed=a%EF%BF%BDb$/);
  });

  it('gives each contact its own conversation', async () => {
    const app = makeApp();
    const a = await createContact(app);
    const b = await createContact(app);
    expect(a.conversation_id).not.toBe(b.conversation_id);
    const page = await api(app).get(`/v1/messages?conversation_id=${a.conversation_id}`).expect(200);
    expect(page.body).toEqual({ has_more: false, data: [] });
  });

  it('stores strings exactly as sent, unicode included', async () => {
    const contact = await createContact(makeApp(), { username: '  zoë 🚀 ', display_name: ' 李雷 ' });
    expect(contact.username).toBe('  zoë 🚀 ');
    expect(contact.display_name).toBe(' 李雷 ');
  });

  it('accepts a JSON body', async () => {
    const res = await api(makeApp())
      .post('/v1/contacts')
      .send({ username: 'erin', phone_number: '555-0101' })
      .expect(201);
    expect(res.body.display_name).toBe('erin');
  });

  it('accepts a multipart/form-data body', async () => {
    const res = await api(makeApp())
      .post('/v1/contacts')
      .field('username', 'frank')
      .field('phone_number', '555 0102')
      .expect(201);
    expect(res.body.username).toBe('frank');
  });

  describe.each([
    ['username', { phone_number: '5550100' }],
    ['phone_number', { username: 'alice' }],
  ])('without %s', (param, fields) => {
    it('answers 400 parameter_missing naming it, and creates nothing', async () => {
      const app = makeApp();
      const before = snapshot(app);
      const res = await api(app).post('/v1/contacts').type('form').send(fields).expect(400);
      expectError(res.body, 'parameter_missing', param);
      expect(res.body.message).toContain(param);
      expect(snapshot(app)).toBe(before);
    });
  });

  describe.each([
    ['username', { username: '' }],
    ['username', { username: 'x'.repeat(65) }],
    ['phone_number', { phone_number: 'call me' }],
    ['phone_number', { phone_number: '1'.repeat(33) }],
    ['avatar_url', { avatar_url: 'not a url' }],
    ['avatar_url', { avatar_url: 'ftp://example.com/a.png' }],
    ['avatar_url', { avatar_url: `https://example.com/${'a'.repeat(2048)}` }],
    ['avatar_url', { avatar_url: ' https://example.com/a.png' }],
    ['avatar_url', { avatar_url: 'https://example.com/a b.png' }],
    ['avatar_url', { avatar_url: 'https:example.com/a.png' }],
    ['display_name', { display_name: 'x'.repeat(65) }],
  ])('with an invalid %s', (param, fields) => {
    it(`answers 400 parameter_invalid naming it (${JSON.stringify(fields).slice(0, 40)})`, async () => {
      const app = makeApp();
      const before = snapshot(app);
      const res = await api(app)
        .post('/v1/contacts')
        .type('form')
        .send({ username: 'alice', phone_number: '5550100', ...fields })
        .expect(400);
      expectError(res.body, 'parameter_invalid', param);
      expect(snapshot(app)).toBe(before);
    });
  });

  it('counts length in characters, so 64 emoji make a valid username', async () => {
    await createContact(makeApp(), { username: '😀'.repeat(64) });
  });

  it('refuses a non-string JSON value with 400 parameter_invalid', async () => {
    const res = await api(makeApp())
      .post('/v1/contacts')
      .send({ username: 42, phone_number: '1' })
      .expect(400);
    expectError(res.body, 'parameter_invalid', 'username');
  });

  describe.each(['id', 'conversation_id', 'last_active_at', 'created_at', 'nickname'])('with %s', (param) => {
    it('answers 400 parameter_unknown naming it, and creates nothing', async () => {
      const app = makeApp();
      const before = snapshot(app);
      const res = await api(app)
        .post('/v1/contacts')
        .type('form')
        .send({ username: 'alice', phone_number: '5550100', [param]: 'x' })
        .expect(400);
      expectError(res.body, 'parameter_unknown', param);
      expect(snapshot(app)).toBe(before);
    });
  });

  it.each([
    ['a form body', 'form', '=x&username=alice&phone_number=5550100'],
    ['a JSON body', 'json', '{"": "x", "username": "alice", "phone_number": "5550100"}'],
  ])(
    'refuses a parameter without a name in %s, as C13 ignores none, and creates nothing',
    async (_what, type, body) => {
      const app = makeApp();
      const before = snapshot(app);
      const res = await api(app).post('/v1/contacts').type(type).send(body).expect(400);
      expectError(res.body, 'parameter_unknown', '');
      expect(res.body.message).toContain('a parameter without a name');
      expect(snapshot(app)).toBe(before);
      await api(app).get('/v1/contacts?=x&limit=1').expect(400);
    },
  );
});

describe('GET /v1/contacts/:id', () => {
  it('answers 200 with the contact', async () => {
    const app = makeApp();
    const contact = await createContact(app);
    const res = await api(app).get(`/v1/contacts/${contact.id}`).expect(200);
    expect(res.body).toEqual(contact);
  });

  it('answers 404 not_found for an unknown id', async () => {
    const res = await api(makeApp()).get('/v1/contacts/AAAAAAAAAAAAAAAA').expect(404);
    expectError(res.body, 'not_found');
    expect(res.body.message).toContain('AAAAAAAAAAAAAAAA');
  });

  it('refuses query parameters with 400 parameter_unknown', async () => {
    const app = makeApp();
    const contact = await createContact(app);
    const res = await api(app).get(`/v1/contacts/${contact.id}?expand=all`).expect(400);
    expectError(res.body, 'parameter_unknown', 'expand');
  });

  it('answers HEAD like GET, without a body', async () => {
    const app = makeApp();
    const contact = await createContact(app);
    const res = await api(app).head(`/v1/contacts/${contact.id}`).expect(200);
    expect(res.text ?? '').toBe('');
  });
});

describe('PUT /v1/contacts/:id', () => {
  it('changes display_name and answers 200 with the updated contact', async () => {
    const app = makeApp();
    const contact = await createContact(app);
    const res = await api(app)
      .put(`/v1/contacts/${contact.id}`)
      .type('form')
      .send({ display_name: 'Ally' })
      .expect(200);
    expect(res.body).toEqual({ ...contact, display_name: 'Ally' });
    await api(app)
      .get(`/v1/contacts/${contact.id}`)
      .expect(200, { ...contact, display_name: 'Ally' });
  });

  it('sets display_name to null when it is sent empty', async () => {
    const app = makeApp();
    const contact = await createContact(app);
    const res = await api(app)
      .put(`/v1/contacts/${contact.id}`)
      .type('form')
      .send({ display_name: '' })
      .expect(200);
    expect(res.body.display_name).toBeNull();
  });

  it('accepts JSON null for display_name', async () => {
    const app = makeApp();
    const contact = await createContact(app);
    const res = await api(app).put(`/v1/contacts/${contact.id}`).send({ display_name: null }).expect(200);
    expect(res.body.display_name).toBeNull();
  });

  it('leaves the contact as it is when nothing is sent', async () => {
    const app = makeApp();
    const contact = await createContact(app);
    await api(app).put(`/v1/contacts/${contact.id}`).expect(200, contact);
  });

  describe.each([
    'username',
    'phone_number',
    'avatar_url',
    'conversation_id',
    'last_active_at',
    'created_at',
    'id',
  ])('with %s (not updatable)', (param) => {
    it('answers 400 parameter_unknown naming it, and changes nothing', async () => {
      const app = makeApp();
      const contact = await createContact(app);
      const before = snapshot(app);
      const res = await api(app)
        .put(`/v1/contacts/${contact.id}`)
        .type('form')
        .send({ display_name: 'New', [param]: '5550199' })
        .expect(400);
      expectError(res.body, 'parameter_unknown', param);
      expect(res.body.message).toContain('display_name');
      expect(snapshot(app)).toBe(before);
    });
  });

  it('answers 404 not_found for an unknown id', async () => {
    const res = await api(makeApp())
      .put('/v1/contacts/nope')
      .type('form')
      .send({ display_name: 'x' })
      .expect(404);
    expectError(res.body, 'not_found');
  });
});

describe('DELETE /v1/contacts/:id', () => {
  it('answers 204 with an empty body, and the contact is gone', async () => {
    const app = makeApp();
    const contact = await createContact(app);
    const res = await api(app).delete(`/v1/contacts/${contact.id}`).expect(204);
    expect(res.text).toBe('');
    await api(app).get(`/v1/contacts/${contact.id}`).expect(404);
    await api(app).delete(`/v1/contacts/${contact.id}`).expect(404);
  });

  describe('cascade (document 4.1 rule 6, C18)', () => {
    it('deletes the conversation and every message in it, and nothing else', async () => {
      const app = makeApp();
      const keep = await createContact(app, { username: 'keep' });
      const kept = await sendMessage(app, keep.conversation_id, 'stays');
      const contact = await createContact(app, { username: 'gone' });
      const messages = [];
      for (let i = 0; i < 3; i++) messages.push(await sendMessage(app, contact.conversation_id, `m${i}`));

      await api(app).delete(`/v1/contacts/${contact.id}`).expect(204);

      for (const m of messages) await api(app).get(`/v1/messages/${m.id}`).expect(404);
      const filtered = await api(app)
        .get(`/v1/messages?conversation_id=${contact.conversation_id}`)
        .expect(404);
      expectError(filtered.body, 'not_found', 'conversation_id');
      const send = await api(app)
        .post('/v1/messages')
        .type('form')
        .send({ conversation_id: contact.conversation_id, message: 'hi' })
        .expect(404);
      expectError(send.body, 'not_found', 'conversation_id');
      const all = await api(app).get('/v1/messages?limit=100').expect(200);
      const ids = (all.body as Page<{ id: string }>).data.map((m) => m.id);
      for (const m of messages) expect(ids).not.toContain(m.id);
      await api(app).get(`/v1/messages/${kept.id}`).expect(200);
    });
  });
});

describe('GET /v1/contacts', () => {
  async function appWith(count: number, options = {}) {
    const clock = manualClock();
    const app = makeApp({ contacts: 0, messages: 0, now: clock.now, ...options });
    const created: Contact[] = [];
    for (let i = 0; i < count; i++) {
      created.push(await createContact(app, { username: `user${i}` }));
      if (i % 3 === 0) clock.advance(1); // some ties in created_at, broken by creation order
    }
    return { app, created, newestFirst: [...created].reverse() };
  }

  it('answers a page of at most 10 contacts by default, with has_more', async () => {
    const { app, newestFirst } = await appWith(12);
    const res = await api(app).get('/v1/contacts').expect(200);
    expect(Object.keys(res.body)).toEqual(['has_more', 'data']);
    expect(res.body.has_more).toBe(true);
    expect(res.body.data).toEqual(newestFirst.slice(0, 10));
  });

  it('says has_more false when the page holds the rest', async () => {
    const { app } = await appWith(10);
    const res = await api(app).get('/v1/contacts').expect(200);
    expect(res.body.data).toHaveLength(10);
    expect(res.body.has_more).toBe(false);
  });

  it('lists newest first, ties broken by creation order', async () => {
    const { app, newestFirst } = await appWith(7);
    const res = await api(app).get('/v1/contacts').expect(200);
    expect(res.body.data.map((c: Contact) => c.username)).toEqual(newestFirst.map((c) => c.username));
  });

  it('honours limit from 1 to 100', async () => {
    const { app, newestFirst } = await appWith(12);
    const one = await api(app).get('/v1/contacts?limit=1').expect(200);
    expect(one.body).toEqual({ has_more: true, data: newestFirst.slice(0, 1) });
    const all = await api(app).get('/v1/contacts?limit=100').expect(200);
    expect(all.body).toEqual({ has_more: false, data: newestFirst });
  });

  it.each(['0', '101', '-1', '1.5', 'ten', '', '10abc'])(
    'refuses limit=%s with 400 parameter_invalid',
    async (limit) => {
      const { app } = await appWith(1);
      const res = await api(app).get(`/v1/contacts?limit=${limit}`).expect(400);
      expectError(res.body, 'parameter_invalid', 'limit');
    },
  );

  it('walks forward with starting_after and back with ending_before, with no gap or duplicate', async () => {
    const { app, newestFirst } = await appWith(23);
    const forward: Contact[] = [];
    const pages: Page<Contact>[] = [];
    let query = 'limit=5';
    for (;;) {
      const page = (await api(app).get(`/v1/contacts?${query}`).expect(200)).body as Page<Contact>;
      pages.push(page);
      forward.push(...page.data);
      if (!page.has_more) break;
      query = `limit=5&starting_after=${page.data[page.data.length - 1]!.id}`;
    }
    expect(forward).toEqual(newestFirst);
    expect(pages.map((p) => p.data.length)).toEqual([5, 5, 5, 5, 3]);

    const backward: Contact[] = [];
    let before = forward[forward.length - 1]!.id;
    for (;;) {
      const page = (await api(app).get(`/v1/contacts?limit=5&ending_before=${before}`).expect(200))
        .body as Page<Contact>;
      backward.unshift(...page.data);
      if (!page.has_more) break;
      before = page.data[0]!.id;
    }
    expect(backward).toEqual(newestFirst.slice(0, -1));
  });

  it('answers an empty last page after the oldest contact', async () => {
    const { app, newestFirst } = await appWith(3);
    const res = await api(app).get(`/v1/contacts?starting_after=${newestFirst[2]!.id}`).expect(200);
    expect(res.body).toEqual({ has_more: false, data: [] });
  });

  it('refuses both cursors at once', async () => {
    const { app, created } = await appWith(3);
    const res = await api(app)
      .get(`/v1/contacts?starting_after=${created[0]!.id}&ending_before=${created[1]!.id}`)
      .expect(400);
    expectError(res.body, 'parameter_invalid', 'ending_before');
  });

  it.each(['starting_after', 'ending_before'])('refuses a %s id that is not in the list', async (cursor) => {
    const { app } = await appWith(3);
    const res = await api(app).get(`/v1/contacts?${cursor}=AAAAAAAAAAAAAAAA`).expect(400);
    expectError(res.body, 'parameter_invalid', cursor);
  });

  it('filters with active=true / active=false (C9), and pages within the filter', async () => {
    const app = makeApp({ contacts: 30, messages: 100 });
    const all = ((await api(app).get('/v1/contacts?limit=100').expect(200)).body as Page<Contact>).data;
    const active = (
      (await api(app).get('/v1/contacts?limit=100&active=true').expect(200)).body as Page<Contact>
    ).data;
    const never = (
      (await api(app).get('/v1/contacts?limit=100&active=false').expect(200)).body as Page<Contact>
    ).data;
    expect(active.length).toBeGreaterThan(0);
    expect(never.length).toBeGreaterThan(0);
    expect(active.every((c) => c.last_active_at !== null)).toBe(true);
    expect(never.every((c) => c.last_active_at === null)).toBe(true);
    expect(active).toEqual(all.filter((c) => c.last_active_at !== null));
    expect(never).toEqual(all.filter((c) => c.last_active_at === null));

    const second = await api(app)
      .get(`/v1/contacts?limit=2&active=true&starting_after=${active[1]!.id}`)
      .expect(200);
    expect(second.body.data).toEqual(active.slice(2, 4));
    const wrongList = await api(app)
      .get(`/v1/contacts?active=true&starting_after=${never[0]!.id}`)
      .expect(400);
    expectError(wrongList.body, 'parameter_invalid', 'starting_after');
  });

  it.each(['yes', '1', 'TRUE', ''])('refuses active=%s with 400 parameter_invalid', async (value) => {
    const res = await api(makeApp()).get(`/v1/contacts?active=${value}`).expect(400);
    expectError(res.body, 'parameter_invalid', 'active');
  });

  it('refuses an unknown query parameter with 400 parameter_unknown', async () => {
    const res = await api(makeApp()).get('/v1/contacts?page=2').expect(400);
    expectError(res.body, 'parameter_unknown', 'page');
  });

  it('refuses a repeated parameter', async () => {
    const res = await api(makeApp()).get('/v1/contacts?limit=2&limit=3').expect(400);
    expectError(res.body, 'parameter_invalid', 'limit');
  });
});
