import request from 'supertest';
import { api, createContact, expectError, makeApp, snapshot } from '../helpers';

interface Entry {
  seq: number;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  forced?: string;
  query?: unknown;
  answer?: unknown;
}

async function journal(app: ReturnType<typeof makeApp>, token?: string, query = ''): Promise<Entry[]> {
  return (await api(app, token).get(`/__mock/requests${query}`).expect(200)).body.data as Entry[];
}

describe('/__mock/switches: per-token switches of the API answers', () => {
  it('need a token, like every control route', async () => {
    for (const method of ['get', 'put', 'delete'] as const) {
      expectError((await request(makeApp())[method]('/__mock/switches').expect(401)).body, 'missing_token');
    }
  });

  it('are off at first, and set with JSON or with a form', async () => {
    const app = makeApp();
    expect((await api(app).get('/__mock/switches').expect(200)).body).toEqual({
      latency_ms: null,
      errors: null,
    });
    const set = await api(app)
      .put('/__mock/switches')
      .send({ latency_ms: 5, errors: { status: 503, count: 2 } })
      .expect(200);
    expect(set.body).toEqual({ latency_ms: 5, errors: { status: 503, remaining: 2 } });
    expect((await api(app).get('/__mock/switches').expect(200)).body).toEqual(set.body);
    await api(app)
      .put('/__mock/switches')
      .type('form')
      .send('errors[status]=429&errors[count]=3&latency_ms=')
      .expect(200);
    expect((await api(app).get('/__mock/switches').expect(200)).body).toEqual({
      latency_ms: null,
      errors: { status: 429, remaining: 3 },
    });
  });

  it('force the next N API answers of that token only, then are used up', async () => {
    const app = makeApp();
    await api(app, 'a')
      .put('/__mock/switches')
      .send({ errors: { status: 503, count: 2 } })
      .expect(200);
    await api(app, 'b').get('/v1/contacts').expect(200);
    const first = await api(app, 'a').get('/v1/contacts').expect(503);
    expectError(first.body, 'service_unavailable');
    // No Prefer header was sent: the message names the switch that forced it.
    expect(first.body.message).not.toContain('Prefer');
    expect(first.body.message).toContain('/__mock/switches');
    expect(first.headers['retry-after']).toBe('1');
    expect((await api(app, 'a').get('/__mock/switches').expect(200)).body.errors).toEqual({
      status: 503,
      remaining: 1,
    });
    // A write forced to an error changes nothing.
    const before = snapshot(app, 'a');
    await api(app, 'a').post('/v1/contacts').send({ username: 'x', phone_number: '1' }).expect(503);
    expect(snapshot(app, 'a')).toBe(before);
    expect((await api(app, 'a').get('/__mock/switches').expect(200)).body.errors).toBeNull();
    await api(app, 'a').get('/v1/contacts').expect(200);
  });

  it('let Prefer: code win, and keep their count for the next request', async () => {
    const app = makeApp();
    await api(app)
      .put('/__mock/switches')
      .send({ errors: { status: 500, count: 1 } })
      .expect(200);
    await api(app).get('/v1/contacts').set('Prefer', 'code=404').expect(404);
    await api(app).get('/v1/contacts').expect(500);
    await api(app).get('/v1/contacts').expect(200);
  });

  it('are cleared by DELETE and by a reset of the world', async () => {
    const app = makeApp();
    const on = { latency_ms: 1, errors: { status: 500, count: 9 } };
    await api(app).put('/__mock/switches').send(on).expect(200);
    await api(app).delete('/__mock/switches').expect(204);
    expect((await api(app).get('/__mock/switches')).body).toEqual({ latency_ms: null, errors: null });
    await api(app).put('/__mock/switches').send(on).expect(200);
    await api(app).post('/__mock/reset').expect(204);
    expect((await api(app).get('/__mock/switches')).body).toEqual({ latency_ms: null, errors: null });
  });

  it.each([
    [{ latency_ms: -1 }, 'parameter_invalid', 'latency_ms'],
    [{ latency_ms: 60_001 }, 'parameter_invalid', 'latency_ms'],
    [{ latency_ms: 1.5 }, 'parameter_invalid', 'latency_ms'],
    [{ errors: 503 }, 'parameter_invalid', 'errors'],
    [{ errors: { status: 399, count: 1 } }, 'parameter_invalid', 'errors[status]'],
    [{ errors: { status: 600, count: 1 } }, 'parameter_invalid', 'errors[status]'],
    [{ errors: { status: 503, count: 0 } }, 'parameter_invalid', 'errors[count]'],
    [{ errors: { status: 503, count: 1001 } }, 'parameter_invalid', 'errors[count]'],
    [{ errors: { status: 503 } }, 'parameter_missing', 'errors[count]'],
    [{ errors: { status: 503, count: 1, after: 2 } }, 'parameter_unknown', 'errors[after]'],
    [{ latency: 5 }, 'parameter_unknown', 'latency'],
    // One good parameter beside a bad one: nothing changes either.
    [{ latency_ms: 100, errors: { status: 200, count: 1 } }, 'parameter_invalid', 'errors[status]'],
  ])('refuse %j naming the parameter, and change nothing', async (body, code, param) => {
    const app = makeApp();
    const on = { latency_ms: 1, errors: { status: 500, count: 9 } };
    await api(app).put('/__mock/switches').send(on).expect(200);
    expectError((await api(app).put('/__mock/switches').send(body).expect(400)).body, code, param);
    expect((await api(app).get('/__mock/switches')).body).toEqual({
      latency_ms: 1,
      errors: { status: 500, remaining: 9 },
    });
  });

  it('refuse parameters on GET and DELETE', async () => {
    const app = makeApp();
    expectError((await api(app).get('/__mock/switches?x=1').expect(400)).body, 'parameter_unknown', 'x');
    expectError((await api(app).delete('/__mock/switches?x=1').expect(400)).body, 'parameter_unknown', 'x');
  });

  it("add the latency to that token's API answers", async () => {
    const app = makeApp();
    await api(app).put('/__mock/switches').send({ latency_ms: 300 }).expect(200);
    const start = performance.now();
    await api(app).get('/v1/contacts').expect(200);
    // A lower bound only: a busy machine may take longer, never shorter.
    expect(performance.now() - start).toBeGreaterThanOrEqual(290);
    const [entry] = await journal(app);
    expect(entry!.duration_ms).toBeGreaterThanOrEqual(290);
  });
});

describe('The journal, for the dashboard', () => {
  it('marks forced answers, and keeps the query and the answer', async () => {
    const app = makeApp();
    await api(app).get('/v1/contacts?limit=1').set('Prefer', 'code=500').expect(500);
    await api(app)
      .put('/__mock/switches')
      .send({ errors: { status: 503, count: 1 } })
      .expect(200);
    await api(app).get('/v1/contacts').expect(503);
    const contact = await createContact(app, { username: 'zed' });
    const [created, bySwitch, byPrefer] = await journal(app);
    expect(byPrefer).toEqual(
      expect.objectContaining({ status: 500, forced: 'prefer', query: { limit: '1' } }),
    );
    expect(bySwitch).toEqual(expect.objectContaining({ status: 503, forced: 'switch' }));
    expect(bySwitch!.query).toEqual({});
    expect(created!.forced).toBeUndefined();
    expect(created!.answer).toEqual(contact);
  });

  it('gives every entry its seq, query and answer: a write with a body, and a 204, too', async () => {
    const app = makeApp();
    const contact = await createContact(app, { username: 'zed' });
    await api(app).delete(`/v1/contacts/${contact.id}`).expect(204);
    const [deleted, created] = await journal(app);
    expect(created).toEqual(
      expect.objectContaining({
        query: {},
        body: expect.objectContaining({ username: 'zed' }),
        answer: contact,
      }),
    );
    expect(deleted).toEqual(expect.objectContaining({ status: 204, query: {}, answer: null }));
    for (const entry of [created, deleted])
      expect(Object.keys(entry!)).toEqual(expect.arrayContaining(['seq', 'query', 'answer']));
  });

  it('cuts a long answer to its beginning', async () => {
    const app = makeApp({ contacts: 60 });
    await api(app).get('/v1/contacts?limit=100').expect(200);
    const [entry] = await journal(app);
    expect(typeof entry!.answer).toBe('string');
    expect((entry!.answer as string).length).toBe(2049);
    expect(entry!.answer as string).toMatch(/^\{"has_more":false,"data":\[/);
  });

  it('numbers the entries, and gives those after a seq with since', async () => {
    const app = makeApp({ journalSize: 3 });
    for (let i = 0; i < 5; i++) await api(app).get('/v1/contacts').expect(200);
    expect((await journal(app)).map((e) => e.seq)).toEqual([5, 4, 3]);
    expect((await journal(app, undefined, '?since=3')).map((e) => e.seq)).toEqual([5, 4]);
    expect(await journal(app, undefined, '?since=5')).toEqual([]);
    expect((await journal(app, undefined, '?since=0&limit=1')).map((e) => e.seq)).toEqual([5]);
    expectError(
      (await api(app).get('/__mock/requests?since=-1').expect(400)).body,
      'parameter_invalid',
      'since',
    );
  });
});
