import { generateWorld } from '../src/seed';
import { api, createContact, expectError, makeApp, TOKEN, worldsOf } from './helpers';

/**
 * The bounds of what tokens hold: one world's writes (`maxWorldBytes`, 409 world_full), and all
 * tokens together (`maxTotalBytes`): beyond it the least recently used tokens are shed, their
 * journals first and then their worlds, each shed logged. That the counted sizes are never below
 * what is really held is measured in test/reliability/memory.test.ts.
 */
describe('The memory of one world is bounded', () => {
  it('answers 409 world_full when one token writes past its bound, changes nothing, and takes writes again after a reset', async () => {
    const app = makeApp({ maxWorldBytes: 60_000 });
    const contact = await createContact(app);
    const send = () =>
      api(app)
        .post('/v1/messages')
        .send({ conversation_id: contact.conversation_id, message: 'm'.repeat(4000) });
    const statuses: number[] = [];
    for (let i = 0; i < 10 && !statuses.includes(409); i++) statuses.push((await send()).status);
    expect(statuses.slice(0, 2)).toEqual([201, 201]);
    expect(statuses.at(-1)).toBe(409);
    const before = (await api(app).get('/__mock/state').expect(200)).text;
    const refused = await send().expect(409);
    expectError(refused.body, 'world_full');
    expect(refused.body.message).toMatch(/POST \/__mock\/reset/);
    expect((await api(app).get('/__mock/state').expect(200)).text).toBe(before);
    await api(app).post('/__mock/reset').expect(204);
    await api(app).get(`/v1/contacts/${contact.id}`).expect(404);
    await createContact(app);
  });
});

describe('A fixture loaded for one token is held by it alone', () => {
  it('refuses with 409 world_full a fixture whose world is more than one world may hold, changing nothing', async () => {
    const app = makeApp({ maxWorldBytes: 200_000 });
    const big = generateWorld({ seed: 5, contacts: 20, messages: 600 });
    const small = generateWorld({ seed: 5, contacts: 3, messages: 10 });
    const before = (await api(app).get('/__mock/state').expect(200)).text;
    const refused = await api(app).put('/__mock/state').send(big).expect(409);
    expectError(refused.body, 'world_full');
    expect(refused.body.message).toMatch(
      /^This fixture makes a world of [\d.]+ MB, more than one token's world may hold \(195 kB, --max-world-mb\)\. Serve it to every token with --fixtures instead/,
    );
    expect((await api(app).get('/__mock/state').expect(200)).text).toBe(before);
    await api(app).put('/__mock/state').send(small).expect(200);
    expect(worldsOf(app).bytesOf(TOKEN)).toBeGreaterThan(0);
  });
});

describe('The memory of all tokens together is bounded', () => {
  /** A token that made a contact, then read pages: its journal holds about 5 kB a page. */
  async function busy(app: ReturnType<typeof makeApp>, token: string, pages: number) {
    const contact = await createContact(app, {}, token);
    for (let i = 0; i < pages; i++) await api(app, token).get('/v1/messages?limit=40').expect(200);
    return contact;
  }
  const journalOf = async (app: ReturnType<typeof makeApp>, token: string) =>
    (await api(app, token).get('/__mock/requests?limit=200').expect(200)).body.data.length as number;

  it('sheds the least recently used journal first, keeping its world, and says so in the log', async () => {
    const lines: string[] = [];
    const app = makeApp({ maxTotalBytes: 150_000, log: (line) => lines.push(line) });
    const a = await busy(app, 'token-a', 10);
    await busy(app, 'token-b', 10);
    expect(lines).toEqual([]);
    await busy(app, 'token-c', 10);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]).toMatch(
      /^journal of token to… dropped: least recently used, and all tokens together hold at most 146 kB \(\d+ kB given back\)$/,
    );
    expect(lines.every((line) => line.startsWith('journal of'))).toBe(true);
    expect(worldsOf(app).bytes).toBeLessThanOrEqual(150_000);
    // token-a kept its world, not its journal (reading the journal is one request of its own).
    expect(await journalOf(app, 'token-a')).toBe(0);
    await api(app, 'token-a').get(`/v1/contacts/${a.id}`).expect(200);
    expect(await journalOf(app, 'token-c')).toBe(11);
  });

  it('drops whole worlds, least recently used first, once no other token has a journal left to shed', async () => {
    const lines: string[] = [];
    const app = makeApp({ maxTotalBytes: 120_000, log: (line) => lines.push(line) });
    const created = new Map<string, string>();
    for (const token of ['w1', 'w2', 'w3', 'w4', 'w5', 'w6']) {
      const contact = await createContact(app, {}, token);
      created.set(token, contact.id);
      for (let i = 0; i < 6; i++) {
        await api(app, token)
          .post('/v1/messages')
          .send({ conversation_id: contact.conversation_id, message: `${token} `.repeat(500) })
          .expect(201);
      }
    }
    const worlds = lines.filter((line) => line.startsWith('world of'));
    expect(worlds.length).toBeGreaterThan(0);
    expect(worlds[0]).toMatch(
      /^world of token w1… dropped: least recently used, and all tokens together hold at most 117 kB \(\d+ kB given back\); its changes are lost: --data-dir keeps every token's world on disk$/,
    );
    // Before the first world went, every other journal had been shed.
    const firstWorld = lines.indexOf(worlds[0]!);
    expect(lines.slice(0, firstWorld).every((line) => line.startsWith('journal of'))).toBe(true);
    expect(worldsOf(app).bytes).toBeLessThanOrEqual(120_000);
    // The first token's world is gone: it starts again from the seed. The last one kept its own.
    await api(app, 'w1')
      .get(`/v1/contacts/${created.get('w1')}`)
      .expect(404);
    await api(app, 'w6')
      .get(`/v1/contacts/${created.get('w6')}`)
      .expect(200);
  });

  it('keeps at most maxWorlds tokens, dropping the least recently used, and says which bound it kept', async () => {
    const lines: string[] = [];
    const app = makeApp({ maxWorlds: 3, log: (line) => lines.push(line) });
    for (const token of ['m1', 'm2', 'm3', 'm4', 'm2', 'm5'])
      await api(app, token).get('/v1/contacts').expect(200);
    expect(worldsOf(app).count).toBe(3);
    expect(lines).toEqual([
      expect.stringMatching(
        /^world of token m1… dropped: least recently used, and at most 3 tokens keep a world/,
      ),
      expect.stringMatching(
        /^world of token m3… dropped: least recently used, and at most 3 tokens keep a world/,
      ),
    ]);
  });
});
