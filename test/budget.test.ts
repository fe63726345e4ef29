import { api, createContact, expectError, makeApp, worldsOf } from './helpers';

describe('The memory of all worlds together is bounded', () => {
  it('answers 409 world_full when one token writes past its bound', async () => {
    const app = makeApp({ maxWorldBytes: 12_000 });
    const contact = await createContact(app);
    const send = () =>
      api(app)
        .post('/v1/messages')
        .send({ conversation_id: contact.conversation_id, message: 'm'.repeat(4000) });
    await send().expect(201);
    const refused = await send().expect(409);
    expectError(refused.body, 'world_full');
    expect(refused.body.message).toMatch(/POST \/__mock\/reset/);
    await api(app).post('/__mock/reset').expect(204);
    await api(app).get(`/v1/contacts/${contact.id}`).expect(404);
  });

  it('drops the least recently used worlds when all of them together pass the total, and says so', async () => {
    const lines: string[] = [];
    const app = makeApp({ maxTotalBytes: 400_000, maxWorldBytes: 100_000, log: (line) => lines.push(line) });
    for (let t = 0; t < 12; t++) {
      const token = `writer-${t}`;
      const contact = await createContact(app, {}, token);
      for (let i = 0; i < 8; i++) {
        await api(app, token)
          .post('/v1/messages')
          .send({ conversation_id: contact.conversation_id, message: 'w'.repeat(4000) })
          .expect(201);
      }
    }
    expect(worldsOf(app).count).toBeLessThan(12);
    expect(lines.some((line) => /dropped: least recently used/.test(line))).toBe(true);
    const newest = await createContact(app, {}, 'writer-11');
    await api(app, 'writer-11').get(`/v1/contacts/${newest.id}`).expect(200);
  });
});
