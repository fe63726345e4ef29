/**
 * Isolation between tokens (issue 6, item 5; convention C4): through every endpoint and control
 * route, one token can neither see, change nor delete another token's data, even knowing its
 * ids; the answer is the one an id that never existed gets. `tokens` restricts access, and the
 * number of worlds (and each journal) is bounded, however many tokens come.
 */
import { client, json, modelProblems, startServer, type RawResponse, type TestServer } from './support';

const form = (fields: Record<string, string>) => Buffer.from(new URLSearchParams(fields).toString());
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'Content-Type': 'application/json' };
const NEVER = 'NeverExisted0000';

let server: TestServer;
let http: ReturnType<typeof client>;

beforeEach(async () => {
  server = await startServer();
  http = client(server.port);
});

afterEach(async () => {
  http.close();
  await server.close();
});

const as = (token: string) => ({
  send: (method: string, path: string, body?: Buffer, headers: Record<string, string> = {}) =>
    http.send({ method, path, body, headers: { Authorization: `Bearer ${token}`, ...headers } }),
});

const parsed = (res: RawResponse) =>
  res.text === '' ? undefined : (JSON.parse(res.text) as Record<string, unknown>);
const snapshot = (token: string) => JSON.stringify(server.worlds.of(token).toData());

/** Alice's own records: a contact with its conversation, a message with an attachment and a reaction. */
async function aliceData() {
  const alice = as('alice');
  const contact = parsed(
    await alice.send(
      'POST',
      '/v1/contacts',
      form({ username: 'secret_agent', phone_number: '+1 555 0007' }),
      FORM,
    ),
  ) as { id: string; conversation_id: string };
  const message = parsed(
    await alice.send(
      'POST',
      '/v1/messages',
      json({
        conversation_id: contact.conversation_id,
        message: 'the launch code is 0000',
        attachments: [{ filename: 'plan.pdf', file_url: 'https://example.com/plan.pdf' }],
      }),
      JSON_TYPE,
    ),
  ) as { id: string };
  await alice.send('PUT', `/v1/messages/${message.id}`, form({ 'reactions[eyes][]': 'alice' }), FORM);
  return { contact, message };
}

describe("A token and another token's ids", () => {
  /** Each request with an id of Alice's, and the same request with an id that never existed. */
  const probes = (ids: { contact: string; conversation: string; message: string }) =>
    [
      ['GET', `/v1/contacts/${ids.contact}`],
      ['PUT', `/v1/contacts/${ids.contact}`, form({ display_name: 'pwned' })],
      ['DELETE', `/v1/contacts/${ids.contact}`],
      ['GET', `/v1/messages/${ids.message}`],
      ['PUT', `/v1/messages/${ids.message}`, form({ message: 'pwned', 'reactions[skull][]': 'mallory' })],
      ['DELETE', `/v1/messages/${ids.message}`],
      ['GET', `/v1/messages?conversation_id=${ids.conversation}`],
      ['POST', '/v1/messages', form({ conversation_id: ids.conversation, message: 'hi' })],
      ['GET', `/v1/contacts?starting_after=${ids.contact}`],
      ['GET', `/v1/contacts?ending_before=${ids.contact}`],
      ['GET', `/v1/messages?starting_after=${ids.message}`],
      ['GET', `/v1/messages?ending_before=${ids.message}`],
      ['GET', `/v1/messages?conversation_id=${ids.conversation}&starting_after=${ids.message}`],
    ] as [string, string, Buffer?][];

  it('answers every endpoint as if the ids did not exist, and leaves the owner untouched', async () => {
    const { contact, message } = await aliceData();
    const before = snapshot('alice');
    const theirs = probes({
      contact: contact.id,
      conversation: contact.conversation_id,
      message: message.id,
    });
    const nobodys = probes({ contact: NEVER, conversation: NEVER, message: NEVER });
    for (const [i, [method, path, body]] of theirs.entries()) {
      const res = await as('mallory').send(method, path, body, body ? FORM : {});
      const absent = await as('mallory').send(
        nobodys[i]![0],
        nobodys[i]![1],
        nobodys[i]![2],
        body ? FORM : {},
      );
      const shown = `${method} ${path} → ${res.status} ${res.text}`;
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect([shown, res.status, parsed(res)?.code, parsed(res)?.param]).toEqual([
        shown,
        absent.status,
        parsed(absent)?.code,
        parsed(absent)?.param,
      ]);
      // Nothing of Alice's in the answer, not even echoed back as found.
      expect(res.text).not.toMatch(/secret_agent|launch code|plan\.pdf/);
    }
    expect(snapshot('alice')).toBe(before);
    expect(modelProblems(server.worlds.of('alice'))).toEqual([]);
  });

  it("does not list another token's records, nor its changes to the seeded ones", async () => {
    const { contact, message } = await aliceData();
    const seeded = parsed(await as('alice').send('GET', '/v1/contacts?limit=100'))!.data as { id: string }[];
    const victim = seeded.at(-1)!.id;
    await as('alice').send('PUT', `/v1/contacts/${victim}`, form({ display_name: 'Renamed by Alice' }), FORM);
    const seededMessages = parsed(await as('alice').send('GET', '/v1/messages?limit=100'))!.data as {
      id: string;
    }[];
    const deleted = seededMessages.at(-1)!.id;
    expect((await as('alice').send('DELETE', `/v1/messages/${deleted}`)).status).toBe(204);

    const contacts = (await as('bob').send('GET', '/v1/contacts?limit=100')).text;
    const messages = (await as('bob').send('GET', '/v1/messages?limit=100')).text;
    expect(contacts).not.toContain(contact.id);
    expect(contacts).not.toContain('Renamed by Alice');
    expect(messages).not.toContain(message.id);
    expect(messages).toContain(deleted);
    expect((await as('bob').send('GET', `/v1/messages/${deleted}`)).status).toBe(200);
  });

  it('sees only its own world and journal through the control routes', async () => {
    const { contact, message } = await aliceData();
    const before = snapshot('alice');
    const state = await as('mallory').send('GET', '/__mock/state');
    expect(state.status).toBe(200);
    expect(state.text).not.toContain(contact.id);
    expect(state.text).not.toContain(message.id);
    const journal = await as('mallory').send('GET', '/__mock/requests?limit=200');
    expect(journal.status).toBe(200);
    expect(journal.text).not.toMatch(new RegExp(`${contact.id}|${message.id}|secret_agent|launch code`));

    // Replacing and resetting one's own world leaves Alice's alone, even with her ids in it.
    const fixture = server.worlds.of('alice').toData();
    const put = await as('mallory').send('PUT', '/__mock/state', json(fixture), JSON_TYPE);
    expect(put.status).toBe(200);
    await as('mallory').send('DELETE', `/v1/contacts/${contact.id}`); // now Mallory's own copy
    expect((await as('mallory').send('POST', '/__mock/reset')).status).toBe(204);
    expect(snapshot('alice')).toBe(before);
    expect((await as('alice').send('GET', `/v1/contacts/${contact.id}`)).status).toBe(200);
  });

  it("cannot reset another token's world with POST /__mock/reset?all=true", async () => {
    const { contact } = await aliceData();
    const before = snapshot('alice');
    const res = await as('mallory').send('POST', '/__mock/reset?all=true');
    expect(snapshot('alice')).toBe(before);
    expect((await as('alice').send('GET', `/v1/contacts/${contact.id}`)).status).toBe(200);
    expect(res.status).toBeGreaterThanOrEqual(400);
  });

  it('gives tokens named like prototype properties a world of their own', async () => {
    for (const token of ['__proto__', 'constructor', 'hasOwnProperty', 'toString']) {
      const res = await as(token).send(
        'POST',
        '/v1/contacts',
        form({ username: token, phone_number: '1' }),
        FORM,
      );
      expect(res.status).toBe(201);
    }
    for (const token of ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'alice']) {
      const list = (await as(token).send('GET', '/v1/contacts?limit=100')).text;
      const others = ['__proto__', 'constructor', 'hasOwnProperty', 'toString'].filter((t) => t !== token);
      for (const other of others) expect(list).not.toContain(`"username":"${other}"`);
    }
  });
});

describe('With `tokens`, only those tokens get in', () => {
  const ROUTES: [string, string][] = [
    ['GET', '/v1/contacts'],
    ['POST', '/v1/contacts'],
    ['GET', `/v1/contacts/${NEVER}`],
    ['PUT', `/v1/contacts/${NEVER}`],
    ['DELETE', `/v1/contacts/${NEVER}`],
    ['GET', '/v1/messages'],
    ['POST', '/v1/messages'],
    ['GET', `/v1/messages/${NEVER}`],
    ['PUT', `/v1/messages/${NEVER}`],
    ['DELETE', `/v1/messages/${NEVER}`],
    ['POST', '/__mock/reset'],
    ['GET', '/__mock/state'],
    ['PUT', '/__mock/state'],
    ['GET', '/__mock/requests'],
  ];

  it.each(ROUTES)(
    'refuses any other token on %s %s with 401 and makes no world for it',
    async (method, path) => {
      const restricted = await startServer({ tokens: ['alpha', 'beta'] });
      const h = client(restricted.port);
      try {
        const count = restricted.worlds.count;
        for (const authorization of ['Bearer gamma', 'Bearer alphaa', 'Bearer ALPHA', undefined]) {
          const res = await h.send({
            method,
            path,
            body: Buffer.from('{}'),
            headers: {
              'Content-Type': 'application/json',
              ...(authorization ? { Authorization: authorization } : {}),
            },
          });
          expect([authorization, res.status]).toEqual([authorization, 401]);
          expect(parsed(res)?.code).toBe(authorization ? 'invalid_token' : 'missing_token');
          expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
        }
        expect(restricted.worlds.count).toBe(count);
        const ok = await h.send({
          method: 'GET',
          path: '/v1/contacts',
          headers: { Authorization: 'Bearer beta' },
        });
        expect(ok.status).toBe(200);
      } finally {
        h.close();
        await restricted.close();
      }
    },
  );
});

describe('The number of worlds and the journal are bounded', () => {
  it('keeps at most maxWorlds worlds, however many tokens come, and logs each eviction without the token', async () => {
    const max = 25;
    const bounded = await startServer({ maxWorlds: max });
    const h = client(bounded.port);
    try {
      const tokens = Array.from({ length: 400 }, (_, i) => `rnd${i}x${Math.random().toString(36).slice(2)}`);
      const created = new Map<string, string>();
      for (const token of tokens) {
        const res = await h.send({
          method: 'POST',
          path: '/v1/contacts',
          body: form({ username: token.slice(0, 60), phone_number: '1' }),
          headers: { Authorization: `Bearer ${token}`, ...FORM },
        });
        expect(res.status).toBe(201);
        created.set(token, (JSON.parse(res.text) as { id: string }).id);
        expect(bounded.worlds.count).toBeLessThanOrEqual(max);
      }
      const dropped = bounded.logs.filter((line) => / dropped: /.test(line));
      expect(dropped).toHaveLength(tokens.length - max);
      for (const token of tokens) expect(bounded.logs.join('\n')).not.toContain(token);

      // The least recently used lost its world: it starts again from the seed.
      const first = tokens[0]!;
      const gone = await h.send({
        method: 'GET',
        path: `/v1/contacts/${created.get(first)}`,
        headers: { Authorization: `Bearer ${first}` },
      });
      expect(gone.status).toBe(404);
      // The most recent kept theirs.
      const last = tokens.at(-1)!;
      const kept = await h.send({
        method: 'GET',
        path: `/v1/contacts/${created.get(last)}`,
        headers: { Authorization: `Bearer ${last}` },
      });
      expect(kept.status).toBe(200);
    } finally {
      h.close();
      await bounded.close();
    }
  });

  it('keeps at most journalSize requests per token', async () => {
    const small = await startServer({ journalSize: 5 });
    const h = client(small.port);
    try {
      for (let i = 0; i < 30; i++) {
        await h.send({
          method: 'GET',
          path: `/v1/contacts?limit=${i + 1}`,
          headers: { Authorization: 'Bearer j' },
        });
      }
      const res = await h.send({
        method: 'GET',
        path: '/__mock/requests',
        headers: { Authorization: 'Bearer j' },
      });
      const entries = (JSON.parse(res.text) as { data: { path: string }[] }).data;
      expect(entries).toHaveLength(5);
      expect(entries[0]!.path).toBe('/v1/contacts?limit=30');
      const over = await h.send({
        method: 'GET',
        path: '/__mock/requests?limit=6',
        headers: { Authorization: 'Bearer j' },
      });
      expect(over.status).toBe(400);
    } finally {
      h.close();
      await small.close();
    }
  });
});
