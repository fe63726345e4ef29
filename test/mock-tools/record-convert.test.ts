import { FixtureError, validateFixture } from '../../src/fixtures';
import { toFixture } from '../../src/recording/convert';
import type { RecordedAccount } from '../../src/recording/recorder';
import { defaultAvatarUrl } from '../../src/resources/formats';

/**
 * The conversion of a recorded account into a fixture of the mock, record by record: what passes
 * as it is, what is converted (and said), what is only warned of, and what cannot be converted.
 */
type Json = Record<string, unknown>;

const T = 1_700_000_000;
const CONTACT_ID = 'C0ntact000000001';
const CONVERSATION_ID = 'C0nversation0001';

function contact(over: Json = {}): Json {
  return {
    id: CONTACT_ID,
    username: 'alice',
    phone_number: '+1 555 0100',
    avatar_url: 'https://example.com/alice.png',
    display_name: 'Alice Liddell',
    conversation_id: CONVERSATION_ID,
    last_active_at: T + 500,
    created_at: T,
    ...over,
  };
}

function message(id: string, over: Json = {}): Json {
  return {
    id,
    conversation_id: CONVERSATION_ID,
    contact: { id: CONTACT_ID, username: 'alice' },
    message: `text of ${id}`,
    reactions: [],
    attachments: [],
    read_at: null,
    created_at: T + 100,
    updated_at: null,
    ...over,
  };
}

function account(
  contacts: Json[],
  conversations: Record<string, Json[]>,
  extra: Partial<RecordedAccount> = {},
) {
  return {
    baseUrl: 'https://api.example.com',
    contacts,
    conversations: Object.entries(conversations).map(([conversation_id, messages]) => ({
      conversation_id,
      messages,
    })),
    notes: [],
    requests: 0,
    ...extra,
  } satisfies RecordedAccount;
}

/** Converts, checks the result as --fixtures would, and gives the conversions as a record. */
async function convert(recorded: RecordedAccount, seed = 1) {
  const converted = await toFixture(recorded, seed);
  const data = validateFixture(JSON.parse(JSON.stringify(converted.data)));
  return {
    ...converted,
    data,
    said: Object.fromEntries(converted.conversions.map(({ what, count }) => [what, count])),
    warned: Object.fromEntries(converted.warnings.map(({ what, count }) => [what, count])),
  };
}

async function refusal(recorded: RecordedAccount): Promise<{ path: string; message: string }> {
  try {
    await toFixture(recorded, 1);
  } catch (error) {
    if (error instanceof FixtureError) return { path: error.path, message: error.message };
    throw error;
  }
  throw new Error('converted');
}

describe('records as the mock has them', () => {
  it('pass unchanged, with nothing said', async () => {
    const m = message('M0000000000000001', {
      reactions: [{ heart: ['alice', 'bob'] }],
      attachments: [
        {
          id: 'A0000000000000001',
          message_id: 'M0000000000000001',
          filename: 'a.pdf',
          file_url: 'https://example.com/a.pdf',
          file_type: 'application/pdf',
          file_size: 12,
          created_at: T + 100,
        },
      ],
    });
    const result = await convert(account([contact()], { [CONVERSATION_ID]: [m] }));
    const { contact: _sender, ...stored } = m;
    // As the mock reads these records as a fixture: a field with a fixed default they lack is that default.
    expect(result.data).toEqual(validateFixture({ contacts: [contact()], messages: [stored] }));
    expect(result.conversions).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.notes).toEqual([]);
  });
});

describe('timestamps', () => {
  it.each<[string, unknown, string]>([
    ['milliseconds', (T + 100) * 1000 + 999, 'timestamps in milliseconds → seconds'],
    ['microseconds', (T + 100) * 1e6 + 5, 'timestamps in microseconds → seconds'],
    ['nanoseconds', (T + 100) * 1e9, 'timestamps in nanoseconds → seconds'],
    ['numeric text', String(T + 100), 'timestamps as numeric text → numbers'],
    ['a fraction of a second', T + 100.75, 'timestamps with a fraction of a second → whole seconds'],
    [
      'ISO 8601 in UTC',
      new Date((T + 100) * 1000).toISOString(),
      'timestamps as date text (ISO 8601) → Unix seconds',
    ],
    [
      'ISO 8601 with an offset',
      '2023-11-14T23:15:00+01:00',
      'timestamps as date text (ISO 8601) → Unix seconds',
    ],
    [
      'ISO 8601 without a zone, read as UTC',
      '2023-11-14 22:15:00',
      'timestamps as date text (ISO 8601) → Unix seconds',
    ],
  ])('%s → whole Unix seconds', async (_name, created, said) => {
    const result = await convert(
      account([contact()], { [CONVERSATION_ID]: [message('M1', { created_at: created })] }),
    );
    expect(result.data.messages[0]!.created_at).toBe(T + 100);
    expect(result.said[said]).toBe(1);
  });

  it('tells the unit of each field from its largest value, so that a small one is read alike', async () => {
    const result = await convert(
      account([contact({ created_at: T * 1000, last_active_at: 0 })], {
        [CONVERSATION_ID]: [message('M1', { created_at: (T + 100) * 1000, read_at: 5_000 })],
      }),
    );
    expect(result.data.contacts[0]).toMatchObject({ created_at: T, last_active_at: 0 });
    expect(result.data.messages[0]).toMatchObject({ created_at: T + 100, read_at: 5 });
    expect(result.said['timestamps in milliseconds → seconds']).toBe(4);
  });

  it('missing nullable ones are null, and said', async () => {
    const { last_active_at: _l, ...withoutActivity } = contact();
    const { read_at: _r, updated_at: _u, ...bare } = message('M1');
    const result = await convert(account([withoutActivity], { [CONVERSATION_ID]: [bare] }));
    expect(result.data.contacts[0]!.last_active_at).toBeNull();
    expect(result.data.messages[0]).toMatchObject({ read_at: null, updated_at: null });
    expect(result.said).toMatchObject({
      'a contact without last_active_at → null': 1,
      'a message without read_at → null': 1,
      'a message without updated_at → null': 1,
    });
  });
});

describe('ids', () => {
  it('ids the mock cannot take get new ones, the same wherever they are named', async () => {
    const conversation = 'conversation:42';
    const result = await convert(
      account([contact({ id: 'contact/1', conversation_id: conversation })], {
        [conversation]: [
          message('message 1', {
            conversation_id: conversation,
            contact: { id: 'contact/1' },
            attachments: [
              {
                id: 'x'.repeat(65),
                message_id: 'message 1',
                filename: 'a.pdf',
                file_url: 'https://e.com/a.pdf',
              },
            ],
          }),
        ],
      }),
    );
    const [c] = result.data.contacts;
    const [m] = result.data.messages;
    for (const id of [c!.id, c!.conversation_id, m!.id, m!.attachments[0]!.id])
      expect(id).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(m!.conversation_id).toBe(c!.conversation_id);
    expect(m!.attachments[0]!.message_id).toBe(m!.id);
    expect(result.said['ids that the mock cannot take → new ids, consistently']).toBe(4);
    expect(result.warnings).toEqual([]);
  });

  it('numbers become text; an id that another record holds already gets a new one', async () => {
    const result = await convert(
      account([contact({ id: 1, conversation_id: 1 })], {
        '1': [
          message('2', { conversation_id: 1, contact: { id: 1 }, created_at: T + 200 }),
          message('1', { conversation_id: 1, contact: { id: 1 } }),
        ],
      }),
    );
    expect(result.data.contacts[0]!.id).toBe('1');
    expect(result.data.contacts[0]!.conversation_id).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(result.data.messages.map((m) => m.id)).toEqual([expect.stringMatching(/^[A-Za-z0-9]{16}$/), '2']);
    expect(result.said).toMatchObject({
      'numeric ids → the same digits as text': 2,
      'ids that another record has already → new ids, consistently': 2,
    });
  });

  it('new ids are drawn from the seed', async () => {
    const recorded = account([contact({ id: 'c:1' })], { [CONVERSATION_ID]: [] });
    expect((await convert(recorded, 4)).data).toEqual((await convert(recorded, 4)).data);
    expect((await convert(recorded, 4)).data.contacts[0]!.id).not.toBe(
      (await convert(recorded, 5)).data.contacts[0]!.id,
    );
  });
});

describe('order', () => {
  const times = (data: { created_at: number; id: string }[]) => data.map((r) => r.id);

  it('a newest-first list becomes creation order, the later of one second last', async () => {
    const result = await convert(
      account([contact()], {
        [CONVERSATION_ID]: [
          message('M3', { created_at: T + 300 }),
          message('M2b', { created_at: T + 200 }),
          message('M2a', { created_at: T + 200 }),
          message('M1', { created_at: T + 100 }),
        ],
      }),
    );
    expect(times(result.data.messages)).toEqual(['M1', 'M2a', 'M2b', 'M3']);
    expect(result.notes).toEqual([]);
  });

  it('messages of different conversations in one second follow the list of every message', async () => {
    const contacts = [
      contact(),
      contact({ id: 'C2', username: 'bob', conversation_id: 'V2', created_at: T + 1 }),
    ];
    const conversations = {
      [CONVERSATION_ID]: [message('Ma', { created_at: T + 100 })],
      V2: [
        message('Mc', { conversation_id: 'V2', contact: { id: 'C2' }, created_at: T + 200 }),
        message('Mb', { conversation_id: 'V2', contact: { id: 'C2' }, created_at: T + 100 }),
      ],
    };
    // Newest first, Ma before Mb: Ma was made after Mb.
    const newestFirst = await convert(account(contacts, conversations, { order: ['Mc', 'Ma', 'Mb'] }));
    expect(times(newestFirst.data.messages)).toEqual(['Mb', 'Ma', 'Mc']);
    // Oldest first, Ma before Mb: Ma was made first.
    const oldestFirst = await convert(account(contacts, conversations, { order: ['Ma', 'Mb', 'Mc'] }));
    expect(times(oldestFirst.data.messages)).toEqual(['Ma', 'Mb', 'Mc']);
    // Without that list, the conversations in their contacts' order.
    expect(times((await convert(account(contacts, conversations))).data.messages)).toEqual([
      'Ma',
      'Mb',
      'Mc',
    ]);
  });

  it('a list in another order is put in creation order, and said', async () => {
    const result = await convert(
      account([contact()], {
        [CONVERSATION_ID]: [
          message('M2', { created_at: T + 200 }),
          message('M3', { created_at: T + 300 }),
          message('M1', { created_at: T + 100 }),
        ],
      }),
    );
    expect(times(result.data.messages)).toEqual(['M1', 'M2', 'M3']);
    expect(result.notes).toEqual([
      'the server does not list messages by time; the fixture holds them by created_at',
    ]);
  });
});

describe('contacts', () => {
  it('fills what the mock always has, in its way, and says so', async () => {
    const { display_name: _d, avatar_url: _a, ...bare } = contact();
    const result = await convert(
      account(
        [
          { ...bare, email: 'alice@example.com' },
          contact({
            id: 'C2',
            created_at: T + 1,
            username: 'bob',
            conversation_id: 'V2',
            phone_number: 'tel:+44 20 7946 0958 ext. 12',
            avatar_url: '/avatars/bob.png',
            display_name: 'B'.repeat(70),
          }),
          contact({
            id: 'C3',
            created_at: T + 2,
            username: 'carol',
            conversation_id: 'V3',
            phone_number: 15550100,
            avatar_url: 'data:image/png;base64,AAAA',
          }),
        ],
        {},
      ),
    );
    expect(
      result.data.contacts.map(({ username, phone_number, avatar_url, display_name }) => ({
        username,
        phone_number,
        avatar_url,
        display_name,
      })),
    ).toEqual([
      {
        username: 'alice',
        phone_number: '+1 555 0100',
        avatar_url: defaultAvatarUrl('alice'),
        display_name: 'alice',
      },
      {
        username: 'bob',
        phone_number: '+44 20 7946 0958 . 12',
        avatar_url: 'https://api.example.com/avatars/bob.png',
        display_name: 'B'.repeat(64),
      },
      {
        username: 'carol',
        phone_number: '15550100',
        avatar_url: defaultAvatarUrl('carol'),
        display_name: 'Alice Liddell',
      },
    ]);
    expect(result.said).toEqual({
      "a contact's field `email` → left out": 1,
      'a contact without avatar_url → the mock’s default avatar': 1,
      'a contact without display_name → its username': 1,
      'phone numbers with other characters → digits, spaces and + - ( ) . only': 1,
      'relative URLs → absolute, on the server’s origin': 1,
      'display names longer than 64 characters → cut to 64': 1,
      'phone numbers as numbers → text': 1,
      'an avatar_url that is not an http(s) URL → the mock’s default avatar': 1,
    });
  });
});

describe('messages', () => {
  it('fills missing lists, finds the text under another name, and checks the sender', async () => {
    const { reactions: _r, attachments: _a, message: text, conversation_id: _c, ...bare } = message('M1');
    const result = await convert(
      account([contact()], {
        [CONVERSATION_ID]: [
          { ...bare, body: text },
          message('M2', { contact: { id: 'someone else' }, created_at: T + 200 }),
          message('M3', { conversation_id: 'V9' }),
        ],
      }),
    );
    expect(result.data.messages.map((m) => m.id)).toEqual(['M1', 'M2']);
    expect(result.data.messages[0]).toMatchObject({ message: 'text of M1', reactions: [], attachments: [] });
    expect(result.said).toMatchObject({
      'a message without conversation_id → the conversation it was listed in': 1,
      "a message's text under `body` → message": 1,
      'a message without reactions → []': 1,
      'a message without attachments → []': 1,
    });
    expect(result.warnings).toEqual([
      {
        what: "a message whose contact is not its conversation's contact (the mock shows the conversation's)",
        count: 1,
        example: `conversation ${CONVERSATION_ID} messages[1] (id M2)`,
      },
      {
        what: 'a message listed under another conversation than its own (kept in its own)',
        count: 1,
        example: `conversation ${CONVERSATION_ID} messages[2] (id M3)`,
      },
      {
        what: 'a message of a conversation that no listed contact holds (left out)',
        count: 1,
        example: `conversation ${CONVERSATION_ID} messages[2] (id M3)`,
      },
    ]);
  });

  it('a message listed twice is kept once', async () => {
    const result = await convert(account([contact()], { [CONVERSATION_ID]: [message('M1'), message('M1')] }));
    expect(result.data.messages).toHaveLength(1);
  });
});

describe('reactions', () => {
  const reactionsOf = (reactions: unknown) =>
    convert(account([contact()], { [CONVERSATION_ID]: [message('M1', { reactions })] }));

  it.each<[string, unknown, unknown[], string]>([
    [
      'one object',
      { heart: ['bob'] },
      [{ heart: ['bob'] }],
      'reactions as one object → a list of one object per name',
    ],
    [
      'several names in one object',
      [{ heart: ['bob'], joy: ['carol'] }],
      [{ heart: ['bob'] }, { joy: ['carol'] }],
      'reactions with several names in one object → one object a name',
    ],
    [
      '{name, usernames}',
      [{ name: 'heart', usernames: ['bob'] }],
      [{ heart: ['bob'] }],
      'reactions as {name, usernames} → {name: usernames}',
    ],
    [
      'an emoji',
      [{ '👍': ['bob'] }, { '❤️': ['eve'] }],
      [{ thumbs_up: ['bob'] }, { heart: ['eve'] }],
      'reaction names that are emoji → their names (👍 → thumbs_up)',
    ],
    [
      'an emoji without a name',
      [{ '🦄': ['bob'] }],
      [{ u1f984: ['bob'] }],
      'reaction names that are emoji → their code points (u1f44d)',
    ],
    [
      'capitals and spaces',
      [{ 'Thumbs Up': ['bob'] }],
      [{ thumbs_up: ['bob'] }],
      'reaction names the mock cannot take → lowercase, _ for other characters',
    ],
    [
      'a username twice',
      [{ heart: ['bob', 'bob'] }],
      [{ heart: ['bob'] }],
      'a username listed twice under one reaction → once',
    ],
    [
      'one username as text',
      [{ heart: 'bob' }],
      [{ heart: ['bob'] }],
      'a reaction with one username as text → a list',
    ],
    [
      'a name twice',
      [{ heart: ['bob'] }, { heart: ['eve'] }],
      [{ heart: ['bob', 'eve'] }],
      'a reaction name met twice in one message → one, usernames together',
    ],
    ['nobody', [{ heart: [] }], [], 'a reaction without usernames → left out'],
  ])('%s', async (_name, given, kept, said) => {
    const result = await reactionsOf(given);
    expect(result.data.messages[0]!.reactions).toEqual(kept);
    expect(result.said[said]).toBeGreaterThan(0);
  });
});

describe('attachments', () => {
  it('takes other field names, fills what is missing from its message, and says so', async () => {
    const result = await convert(
      account([contact()], {
        [CONVERSATION_ID]: [
          message('M1', {
            attachments: [
              {
                id: 'A1',
                name: 'Report 2024.PDF',
                url: '/files/r.pdf',
                content_type: 'application/pdf; charset=binary',
                size: '2048',
              },
              { url: 'https://cdn.example.com/x/IMG%201.jpg', mime_type: 'not a type', message_id: 'M9' },
            ],
          }),
        ],
      }),
    );
    expect(result.data.messages[0]!.attachments).toEqual([
      {
        id: 'A1',
        message_id: 'M1',
        filename: 'Report 2024.PDF',
        file_url: 'https://api.example.com/files/r.pdf',
        file_type: 'application/pdf',
        file_size: 2048,
        created_at: T + 100,
      },
      {
        id: expect.stringMatching(/^[A-Za-z0-9]{16}$/),
        message_id: 'M1',
        filename: 'IMG 1.jpg',
        file_url: 'https://cdn.example.com/x/IMG%201.jpg',
        file_type: 'application/octet-stream',
        file_size: null,
        created_at: T + 100,
      },
    ]);
    expect(result.said).toMatchObject({
      "attachments' `name`, `url`, `content_type`, `size` → filename, file_url, file_type, file_size": 1,
      "attachments' `url`, `mime_type` → file_url, file_type": 1,
      'file sizes as text → numbers': 1,
      'file types with parameters → without them': 1,
      'file types that are no MIME type → application/octet-stream': 1,
      'an attachment without filename → the last part of its URL': 1,
      'an attachment without file_size → null': 1,
      "an attachment without created_at → its message's": 2,
      'an attachment without an id → a new id': 1,
      "an attachment without message_id → its message's id": 1,
    });
    expect(result.warned).toEqual({
      "an attachment whose message_id is not its message's (set to its message's)": 1,
    });
  });
});

describe('what cannot be converted is an error naming the record and the field', () => {
  const one = (c: Json, messages: Json[] = []) => account([c], { [String(c.conversation_id)]: messages });
  it.each<[string, RecordedAccount, string, RegExp]>([
    [
      'a contact that is no object',
      account(['alice' as unknown as Json], {}),
      'contacts[0]',
      /must be a contact object/,
    ],
    [
      'no username',
      one(contact({ username: undefined })),
      `contacts[0] (id ${CONTACT_ID}).username`,
      /must be text of 1 to 64 characters, got undefined/,
    ],
    [
      'a phone number of letters',
      one(contact({ phone_number: 'call me' })),
      `contacts[0] (id ${CONTACT_ID}).phone_number`,
      /must be a phone number/,
    ],
    [
      'no conversation',
      one(contact({ conversation_id: null })),
      `contacts[0] (id ${CONTACT_ID}).conversation_id`,
      /is missing/,
    ],
    [
      'no created_at',
      one(contact({ created_at: null })),
      `contacts[0] (id ${CONTACT_ID}).created_at`,
      /is missing/,
    ],
    [
      'a time that is no time',
      one(contact({ created_at: 'yesterday' })),
      `contacts[0] (id ${CONTACT_ID}).created_at`,
      /is not a timestamp the recorder can read/,
    ],
    [
      'a date that is no date',
      one(contact({ created_at: '2024-13-45' })),
      `contacts[0] (id ${CONTACT_ID}).created_at`,
      /is no date/,
    ],
    [
      'a time before 1970',
      one(contact({ created_at: -5 })),
      `contacts[0] (id ${CONTACT_ID}).created_at`,
      /is not a timestamp/,
    ],
    [
      'two contacts with one conversation',
      account([contact(), contact({ id: 'C2' })], {}),
      `contacts[1] (id C2).conversation_id`,
      /is also the conversation of contacts\[0\]/,
    ],
    [
      'no text',
      one(contact(), [message('M1', { message: null })]),
      `conversation ${CONVERSATION_ID} messages[0] (id M1).message`,
      /is missing/,
    ],
    [
      'an empty text',
      one(contact(), [message('M1', { message: '' })]),
      `conversation ${CONVERSATION_ID} messages[0] (id M1).message`,
      /must be text of 1 to 4000 characters/,
    ],
    [
      'a message without id',
      one(contact(), [message('M1', { id: undefined })]),
      `conversation ${CONVERSATION_ID} messages[0].id`,
      /is missing/,
    ],
    [
      'reactions that are text',
      one(contact(), [message('M1', { reactions: 'many' })]),
      `conversation ${CONVERSATION_ID} messages[0] (id M1).reactions`,
      /must be a list of reactions/,
    ],
    [
      'a reaction with only a count',
      one(contact(), [message('M1', { reactions: [{ name: 'heart', count: 2 }] })]),
      `conversation ${CONVERSATION_ID} messages[0] (id M1).reactions[0]`,
      /names a reaction but not who reacted/,
    ],
    [
      'an attachment without URL',
      one(contact(), [message('M1', { attachments: [{ filename: 'a.pdf' }] })]),
      `conversation ${CONVERSATION_ID} messages[0] (id M1).attachments[0].file_url`,
      /is missing/,
    ],
    [
      'a negative file size',
      one(contact(), [
        message('M1', { attachments: [{ filename: 'a.pdf', file_url: 'https://e.com/a', file_size: -1 }] }),
      ]),
      `conversation ${CONVERSATION_ID} messages[0] (id M1).attachments[0].file_size`,
      /whole number of bytes/,
    ],
  ])('%s', async (_name, recorded, path, message) => {
    const error = await refusal(recorded);
    expect(error.path).toBe(path);
    expect(error.message).toMatch(message);
  });
});
