import type { Contact, Message, Page } from '../src/types';
import { api, createContact, expectError, makeApp, manualClock, sendMessage, snapshot } from './helpers';

const MESSAGE_FIELDS = [
  'id',
  'conversation_id',
  'contact',
  'message',
  'reactions',
  'attachments',
  'read_at',
  'created_at',
  'updated_at',
];
const SENDER_FIELDS = ['id', 'username', 'phone_number', 'avatar_url', 'last_active_at', 'created_at'];

async function conversation(options = {}) {
  const clock = manualClock();
  const app = makeApp({ now: clock.now, ...options });
  const contact = await createContact(app, { username: 'alice', display_name: 'Alice' });
  return { app, clock, contact };
}

describe('POST /v1/messages', () => {
  it('answers 201 with the new message: nulls, empty arrays and the sender (document 4.2 rule 2)', async () => {
    const { app, clock, contact } = await conversation();
    const res = await api(app)
      .post('/v1/messages')
      .type('form')
      .send({ conversation_id: contact.conversation_id, message: 'Hi Alice 👋' })
      .expect(201);
    const message = res.body as Message;
    expect(Object.keys(message)).toEqual(MESSAGE_FIELDS);
    expect(message).toMatchObject({
      conversation_id: contact.conversation_id,
      message: 'Hi Alice 👋',
      reactions: [],
      attachments: [],
      read_at: null,
      updated_at: null,
      created_at: clock.now(),
    });
    expect(message.id).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(Object.keys(message.contact)).toEqual(SENDER_FIELDS);
    // The contact's values of the fields that a message's contact carries (document 2.2).
    const sender = Object.fromEntries(SENDER_FIELDS.map((field) => [field, contact[field as keyof Contact]]));
    expect(message.contact).toEqual(sender);
  });

  it('adds attachments sent with the message (C16)', async () => {
    const { app, contact } = await conversation();
    const res = await api(app)
      .post('/v1/messages')
      .type('form')
      .send(
        'conversation_id=' +
          contact.conversation_id +
          '&message=see+attached' +
          '&attachments[0][filename]=a.pdf&attachments[0][file_url]=https%3A%2F%2Fexample.com%2Fa.pdf' +
          '&attachments[0][file_type]=application%2Fpdf&attachments[0][file_size]=1024' +
          '&attachments[1][filename]=b.bin&attachments[1][file_url]=http%3A%2F%2Fexample.com%2Fb',
      )
      .expect(201);
    const message = res.body as Message;
    expect(message.attachments).toEqual([
      {
        id: expect.stringMatching(/^[A-Za-z0-9]{16}$/),
        message_id: message.id,
        filename: 'a.pdf',
        file_url: 'https://example.com/a.pdf',
        file_type: 'application/pdf',
        file_size: 1024,
        created_at: message.created_at,
      },
      expect.objectContaining({ filename: 'b.bin', file_type: 'application/octet-stream', file_size: null }),
    ]);
  });

  it('answers 404 not_found naming conversation_id for an unknown conversation, and stores nothing', async () => {
    const { app } = await conversation();
    const before = snapshot(app);
    const res = await api(app)
      .post('/v1/messages')
      .type('form')
      .send({ conversation_id: 'AAAAAAAAAAAAAAAA', message: 'hi' })
      .expect(404);
    expectError(res.body, 'not_found', 'conversation_id');
    expect(snapshot(app)).toBe(before);
  });

  it.each([
    ['conversation_id', 'parameter_missing', { message: 'hi' }],
    ['message', 'parameter_missing', {}],
    ['message', 'parameter_invalid', { message: '' }],
    ['message', 'parameter_invalid', { message: 'x'.repeat(4001) }],
    ['attachments', 'parameter_invalid', { message: 'hi', attachments: 'a.pdf' }],
    ['reactions', 'parameter_unknown', { message: 'hi', reactions: 'x' }],
    ['read_at', 'parameter_unknown', { message: 'hi', read_at: '1' }],
  ])('refuses a bad %s with 400 %s, and stores nothing', async (param, code, fields) => {
    const { app, contact } = await conversation();
    const before = snapshot(app);
    const body = { conversation_id: contact.conversation_id, ...fields };
    if (param === 'conversation_id') delete (body as Record<string, unknown>).conversation_id;
    const res = await api(app).post('/v1/messages').type('form').send(body).expect(400);
    expectError(res.body, code, param);
    expect(snapshot(app)).toBe(before);
  });

  it.each([
    ['attachments[0][file_url]', 'attachments[0][filename]=a.pdf'],
    ['attachments[0][filename]', 'attachments[0][file_url]=https%3A%2F%2Fexample.com%2Fa'],
  ])('refuses an attachment without %s', async (param, attachment) => {
    const { app, contact } = await conversation();
    const res = await api(app)
      .post('/v1/messages')
      .type('form')
      .send(`conversation_id=${contact.conversation_id}&message=hi&${attachment}`)
      .expect(400);
    expectError(res.body, 'parameter_missing', param);
  });

  it.each([
    ['attachments[0][file_url]', { filename: 'a', file_url: 'javascript:alert(1)' }],
    ['attachments[0][file_size]', { filename: 'a', file_url: 'https://e.com/a', file_size: -1 }],
    ['attachments[0][file_type]', { filename: 'a', file_url: 'https://e.com/a', file_type: 'pdf' }],
    ['attachments[0][owner]', { filename: 'a', file_url: 'https://e.com/a', owner: 'me' }],
  ])('refuses a bad %s', async (param, attachment) => {
    const { app, contact } = await conversation();
    const res = await api(app)
      .post('/v1/messages')
      .send({ conversation_id: contact.conversation_id, message: 'hi', attachments: [attachment] })
      .expect(400);
    expect(res.body.param).toBe(param);
  });
});

describe('GET /v1/messages/:id', () => {
  it('answers 200 with the message', async () => {
    const { app, contact } = await conversation();
    const message = await sendMessage(app, contact.conversation_id);
    await api(app).get(`/v1/messages/${message.id}`).expect(200, message);
  });

  it('shows the sender as the contact is now (C11)', async () => {
    const { app, contact } = await conversation();
    const message = await sendMessage(app, contact.conversation_id);
    await api(app)
      .put(`/v1/contacts/${contact.id}`)
      .type('form')
      .send({ display_name: 'Renamed' })
      .expect(200);
    const res = await api(app).get(`/v1/messages/${message.id}`).expect(200);
    expect(Object.keys(res.body.contact)).toEqual(SENDER_FIELDS);
    expect(res.body.contact.id).toBe(contact.id);
  });

  it('answers 404 not_found for an unknown id', async () => {
    const res = await api(makeApp()).get('/v1/messages/AAAAAAAAAAAAAAAA').expect(404);
    expectError(res.body, 'not_found');
  });
});

describe('PUT /v1/messages/:id', () => {
  it('edits the text and sets updated_at (C17)', async () => {
    const { app, clock, contact } = await conversation();
    const message = await sendMessage(app, contact.conversation_id, 'tpyo');
    clock.advance(30);
    const res = await api(app)
      .put(`/v1/messages/${message.id}`)
      .type('form')
      .send({ message: 'typo' })
      .expect(200);
    expect(res.body).toEqual({ ...message, message: 'typo', updated_at: message.created_at + 30 });
    await api(app).get(`/v1/messages/${message.id}`).expect(200, res.body);
  });

  it('adds reactions from reactions[<name>][]=<username> form keys, in the documented shape', async () => {
    const { app, contact } = await conversation();
    const message = await sendMessage(app, contact.conversation_id);
    const first = await api(app)
      .put(`/v1/messages/${message.id}`)
      .type('form')
      .send('reactions[thumbs_up][]=alice&reactions[thumbs_up][]=bob&reactions[heart][]=carol')
      .expect(200);
    expect(first.body.reactions).toEqual([{ thumbs_up: ['alice', 'bob'] }, { heart: ['carol'] }]);
    const second = await api(app)
      .put(`/v1/messages/${message.id}`)
      .type('form')
      .send('reactions[heart][]=alice&reactions[thumbs_up][]=alice&reactions[%2B1][]=dave')
      .expect(200);
    expect(second.body.reactions).toEqual([
      { thumbs_up: ['alice', 'bob'] },
      { heart: ['carol', 'alice'] },
      { '+1': ['dave'] },
    ]);
  });

  it.each([
    ['an array of objects', { reactions: [{ heart: ['carol'] }] }],
    ['an object', { reactions: { heart: ['carol'] } }],
    ['a single username', { reactions: { heart: 'carol' } }],
  ])('accepts JSON reactions as %s', async (_shape, body) => {
    const { app, contact } = await conversation();
    const message = await sendMessage(app, contact.conversation_id);
    const res = await api(app).put(`/v1/messages/${message.id}`).send(body).expect(200);
    expect(res.body.reactions).toEqual([{ heart: ['carol'] }]);
  });

  it('appends attachments (C16)', async () => {
    const { app, contact } = await conversation();
    const message = await sendMessage(app, contact.conversation_id);
    const add = (filename: string) =>
      api(app)
        .put(`/v1/messages/${message.id}`)
        .send({ attachments: [{ filename, file_url: `https://example.com/${filename}` }] })
        .expect(200);
    await add('one.png');
    const res = await add('two.png');
    expect(res.body.attachments.map((a: { filename: string }) => a.filename)).toEqual(['one.png', 'two.png']);
    expect(res.body.attachments[1].message_id).toBe(message.id);
  });

  it.each([
    ['reactions', 'reactions[Thumbs Up][]=alice', 'parameter_invalid'],
    ['reactions[heart][]', `reactions[heart][]=${'x'.repeat(65)}`, 'parameter_invalid'],
    ['conversation_id', 'conversation_id=AAAAAAAAAAAAAAAA', 'parameter_unknown'],
    ['contact', 'contact=x', 'parameter_unknown'],
    ['read_at', 'read_at=1', 'parameter_unknown'],
    ['message', 'message=', 'parameter_invalid'],
  ])('refuses %s (%s) with 400 %s, and changes nothing', async (param, body, code) => {
    const { app, contact } = await conversation();
    const message = await sendMessage(app, contact.conversation_id);
    const before = snapshot(app);
    const res = await api(app)
      .put(`/v1/messages/${message.id}`)
      .type('form')
      .send(`message=ok&${body}`)
      .expect(400);
    expectError(res.body, code, param);
    expect(snapshot(app)).toBe(before);
  });

  it('answers 404 not_found for an unknown id', async () => {
    const res = await api(makeApp()).put('/v1/messages/nope').type('form').send({ message: 'x' }).expect(404);
    expectError(res.body, 'not_found');
  });
});

describe('DELETE /v1/messages/:id', () => {
  it('answers 204 and removes the message permanently', async () => {
    const { app, contact } = await conversation();
    const message = await sendMessage(app, contact.conversation_id);
    const res = await api(app).delete(`/v1/messages/${message.id}`).expect(204);
    expect(res.text).toBe('');
    await api(app).get(`/v1/messages/${message.id}`).expect(404);
    await api(app).put(`/v1/messages/${message.id}`).type('form').send({ message: 'x' }).expect(404);
    await api(app).delete(`/v1/messages/${message.id}`).expect(404);
    const list = await api(app).get(`/v1/messages?conversation_id=${contact.conversation_id}`).expect(200);
    expect(list.body).toEqual({ has_more: false, data: [] });
  });
});

describe('GET /v1/messages', () => {
  async function history(count: number) {
    const { app, clock, contact } = await conversation({ contacts: 3, messages: 30 });
    const sent: Message[] = [];
    for (let i = 0; i < count; i++) {
      sent.push(await sendMessage(app, contact.conversation_id, `message ${i}`));
      if (i % 2) clock.advance(1);
    }
    return { app, contact, newestFirst: sent.reverse() };
  }

  it('restricts to one conversation, newest first, ten per page by default', async () => {
    const { app, contact, newestFirst } = await history(12);
    const res = await api(app).get(`/v1/messages?conversation_id=${contact.conversation_id}`).expect(200);
    expect(res.body).toEqual({ has_more: true, data: newestFirst.slice(0, 10) });
  });

  it('lists messages across all conversations without conversation_id', async () => {
    const { app, contact } = await history(2);
    const res = await api(app).get('/v1/messages?limit=100').expect(200);
    const conversations = new Set((res.body as Page<Message>).data.map((m) => m.conversation_id));
    expect(conversations.size).toBeGreaterThan(1);
    expect(conversations).toContain(contact.conversation_id);
    const times = (res.body as Page<Message>).data.map((m) => m.created_at);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('pages back through a conversation with starting_after and forward again with ending_before', async () => {
    const { app, contact, newestFirst } = await history(25);
    const c = contact.conversation_id;
    const seen: Message[] = [];
    let query = `conversation_id=${c}&limit=7`;
    for (;;) {
      const page = (await api(app).get(`/v1/messages?${query}`).expect(200)).body as Page<Message>;
      seen.push(...page.data);
      if (!page.has_more) break;
      query = `conversation_id=${c}&limit=7&starting_after=${page.data[page.data.length - 1]!.id}`;
    }
    expect(seen).toEqual(newestFirst);
    const newer = await api(app)
      .get(`/v1/messages?conversation_id=${c}&limit=3&ending_before=${newestFirst[5]!.id}`)
      .expect(200);
    expect(newer.body).toEqual({ has_more: true, data: newestFirst.slice(2, 5) });
  });

  it('refuses a cursor from another conversation', async () => {
    const { app, contact } = await history(1);
    const other = await createContact(app, { username: 'other' });
    const foreign = await sendMessage(app, other.conversation_id);
    const res = await api(app)
      .get(`/v1/messages?conversation_id=${contact.conversation_id}&starting_after=${foreign.id}`)
      .expect(400);
    expectError(res.body, 'parameter_invalid', 'starting_after');
  });

  it('answers 404 not_found naming conversation_id for an unknown conversation (C10)', async () => {
    const res = await api(makeApp()).get('/v1/messages?conversation_id=AAAAAAAAAAAAAAAA').expect(404);
    expectError(res.body, 'not_found', 'conversation_id');
  });
});
