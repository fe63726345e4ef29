import request from 'supertest';
import { api, createContact, expectError, makeApp, sendMessage, snapshot } from '../helpers';

describe('Control routes under /__mock/', () => {
  it('need a token, like the API', async () => {
    for (const [method, path] of [
      ['post', '/__mock/reset'],
      ['get', '/__mock/state'],
      ['put', '/__mock/state'],
      ['get', '/__mock/requests'],
    ] as const) {
      const res = await request(makeApp())[method](path).expect(401);
      expectError(res.body, 'missing_token');
    }
  });

  describe('POST /__mock/reset', () => {
    it("puts the token's world back to the seeded world, and only that token's", async () => {
      const app = makeApp();
      const seeded = snapshot(app, 'a');
      const mine = await createContact(app, {}, 'a');
      const theirs = await createContact(app, {}, 'b');
      await api(app, 'a').post('/__mock/reset').expect(204);
      expect(snapshot(app, 'a')).toBe(seeded);
      await api(app, 'a').get(`/v1/contacts/${mine.id}`).expect(404);
      await api(app, 'b').get(`/v1/contacts/${theirs.id}`).expect(200);
    });

    it('resets every token with all=true, for the admin token only', async () => {
      const app = makeApp({ adminToken: 'admin' });
      const theirs = await createContact(app, {}, 'b');
      const refused = await api(app, 'a').post('/__mock/reset?all=true').expect(403);
      expectError(refused.body, 'forbidden', 'all');
      expect(refused.body.message).toContain('--admin-token');
      await api(app, 'b').get(`/v1/contacts/${theirs.id}`).expect(200);
      await api(app, 'admin').post('/__mock/reset?all=true').expect(204);
      await api(app, 'b').get(`/v1/contacts/${theirs.id}`).expect(404);
    });

    it('refuses all=true when no admin token is set', async () => {
      const res = await api(makeApp()).post('/__mock/reset?all=true').expect(403);
      expectError(res.body, 'forbidden', 'all');
    });

    it('accepts the admin token when the tokens are restricted', async () => {
      const app = makeApp({ tokens: ['user'], adminToken: 'admin' });
      await api(app, 'admin').post('/__mock/reset?all=true').expect(204);
      await api(app, 'other').post('/__mock/reset').expect(401);
    });

    it('refuses all=maybe and unknown parameters', async () => {
      expectError(
        (await api(makeApp()).post('/__mock/reset?all=maybe').expect(400)).body,
        'parameter_invalid',
        'all',
      );
      expectError(
        (await api(makeApp()).post('/__mock/reset?token=x').expect(400)).body,
        'parameter_unknown',
        'token',
      );
    });
  });

  describe('read their parameters from the body too, as the API does', () => {
    it('reset every world with {"all": true} in a JSON body, for the admin token only', async () => {
      const app = makeApp({ adminToken: 'admin' });
      const theirs = await createContact(app, {}, 'b');
      const refused = await api(app, 'a').post('/__mock/reset').send({ all: true }).expect(403);
      expectError(refused.body, 'forbidden', 'all');
      await api(app, 'b').get(`/v1/contacts/${theirs.id}`).expect(200);
      await api(app, 'admin').post('/__mock/reset').type('form').send('all=true').expect(204);
      await api(app, 'b').get(`/v1/contacts/${theirs.id}`).expect(404);
    });

    it('refuse an unknown parameter, a malformed body and another media type, and change nothing', async () => {
      const app = makeApp();
      await createContact(app);
      const before = snapshot(app);
      const reset = () => api(app).post('/__mock/reset');
      expectError((await reset().send({ foo: 1 }).expect(400)).body, 'parameter_unknown', 'foo');
      expectError(
        (await reset().set('Content-Type', 'application/json').send('{"all":').expect(400)).body,
        'malformed_body',
      );
      expectError(
        (await reset().set('Content-Type', 'text/plain').send('all=true').expect(415)).body,
        'unsupported_media_type',
      );
      expectError(
        (await reset().query('all=true').send({ all: true }).expect(400)).body,
        'parameter_invalid',
        'all',
      );
      expect(snapshot(app)).toBe(before);
    });

    it('refuse what the other control routes do not take, in the body or in the query', async () => {
      const app = makeApp();
      await api(app).put('/__mock/switches').send({ latency_ms: 5 }).expect(200);
      expectError(
        (await api(app).delete('/__mock/switches').send({ foo: 1 }).expect(400)).body,
        'parameter_unknown',
        'foo',
      );
      expect((await api(app).get('/__mock/switches').expect(200)).body.latency_ms).toBe(5);
      expectError(
        (await api(app).get('/__mock/requests').send({ foo: 1 }).expect(400)).body,
        'parameter_unknown',
        'foo',
      );
      const state = (await api(app).get('/__mock/state').expect(200)).body;
      const before = snapshot(app);
      expectError(
        (await api(app).put('/__mock/state?foo=1').send({ contacts: [], messages: [] }).expect(400)).body,
        'parameter_unknown',
        'foo',
      );
      expect(snapshot(app)).toBe(before);
      expect(state.contacts.length).toBeGreaterThan(0);
    });
  });

  describe('GET and PUT /__mock/state', () => {
    it('give the world as a fixture document and take it back', async () => {
      const app = makeApp();
      const contact = await createContact(app, { username: 'kept' });
      await sendMessage(app, contact.conversation_id, 'kept too');
      const state = (await api(app).get('/__mock/state').expect(200)).body;
      expect(Object.keys(state)).toEqual(['contacts', 'messages']);
      expect(state.messages[0]).not.toHaveProperty('contact');

      const other = makeApp({ contacts: 1, messages: 0 });
      const res = await api(other, 'z').put('/__mock/state').send(state).expect(200);
      expect(res.body).toEqual({ contacts: state.contacts.length, messages: state.messages.length });
      await api(other, 'z').get(`/v1/contacts/${contact.id}`).expect(200, contact);
      expect((await api(other, 'z').get('/__mock/state').expect(200)).body).toEqual(state);
    });

    it('replaces only the world of the token given', async () => {
      const app = makeApp();
      const before = snapshot(app, 'b');
      await api(app, 'a').put('/__mock/state').send({ contacts: [], messages: [] }).expect(200);
      expect((await api(app, 'a').get('/v1/contacts').expect(200)).body).toEqual({
        has_more: false,
        data: [],
      });
      expect(snapshot(app, 'b')).toBe(before);
    });

    it('refuses a bad document with 400 naming what is wrong, and changes nothing', async () => {
      const app = makeApp();
      const state = (await api(app).get('/__mock/state').expect(200)).body;
      state.messages[2].conversation_id = 'nobody';
      const before = snapshot(app);
      const res = await api(app).put('/__mock/state').send(state).expect(400);
      expectError(res.body, 'parameter_invalid', 'messages[2].conversation_id');
      expect(snapshot(app)).toBe(before);
    });

    it('refuses a message whose reactions repeat a name, as the API could not go on updating it', async () => {
      const app = makeApp();
      const state = (await api(app).get('/__mock/state').expect(200)).body;
      state.messages[3].reactions = [{ heart: ['x'] }, { heart: ['y'] }];
      const before = snapshot(app);
      const res = await api(app).put('/__mock/state').send(state).expect(400);
      expectError(res.body, 'parameter_invalid', 'messages[3].reactions');
      expect(res.body.message).toContain("'heart' twice");
      expect(snapshot(app)).toBe(before);
    });

    it('draws new ids unlike every id of a document loaded back, attachments too', async () => {
      const app = makeApp();
      const contact = await createContact(app);
      await api(app)
        .post('/v1/messages')
        .send({
          conversation_id: contact.conversation_id,
          message: 'hi',
          attachments: [{ filename: 'a.txt', file_url: 'https://example.com/a.txt' }],
        })
        .expect(201);
      const state = (await api(app).get('/__mock/state').expect(200)).body;
      await api(app).put('/__mock/state').send(state).expect(200);
      const taken = new Set(JSON.stringify(state).match(/"[A-Za-z0-9]{16}"/g));
      const again = await createContact(app, { username: 'bea' });
      expect(taken.has(`"${again.id}"`)).toBe(false);
      expect(taken.has(`"${again.conversation_id}"`)).toBe(false);
    });

    it("reads the document as JSON whatever its Content-Type says, as curl's -d and -T send it", async () => {
      const app = makeApp();
      const state = (await api(app).get('/__mock/state').expect(200)).body;
      state.contacts[0].display_name = 'From a file';
      // `curl -d @file` sends the file as a form, without its line breaks.
      const asCurlD = JSON.stringify(state, null, 2).replace(/\n/g, '');
      await api(app, 'd').put('/__mock/state').type('form').send(asCurlD).expect(200);
      expect(
        (await api(app, 'd').get(`/v1/contacts/${state.contacts[0].id}`).expect(200)).body.display_name,
      ).toBe('From a file');
      // `curl -T file` sends no Content-Type at all.
      await api(app, 't')
        .put('/__mock/state')
        .unset('Content-Type')
        .send(Buffer.from(JSON.stringify(state)))
        .expect(200);
      expect(snapshot(app, 't')).toBe(snapshot(app, 'd'));
    });

    it('refuses a body that is not JSON with 400, saying exactly what to send, and changes nothing', async () => {
      const app = makeApp();
      const before = snapshot(app);
      const res = await api(app).put('/__mock/state').type('form').send('contacts=x&messages=y').expect(400);
      expectError(res.body, 'malformed_body');
      expect(res.body.message).toMatch(
        /^The body is not a fixture document in JSON\. Send the file as it is, e\.g\.: curl -X PUT http:\/\/127\.0\.0\.1:\d+\/__mock\/state -H "Authorization: Bearer <token>" -H "Content-Type: application\/json" --data-binary @fixtures\/mine\.json$/,
      );
      expect(snapshot(app)).toBe(before);
    });

    it('takes a world larger than an API body (100 kB)', async () => {
      const big = makeApp({ contacts: 40, messages: 1500 });
      const state = (await api(big).get('/__mock/state').expect(200)).body;
      expect(JSON.stringify(state).length).toBeGreaterThan(200_000);
      await api(makeApp()).put('/__mock/state').send(state).expect(200);
    });
  });

  describe('GET /__mock/requests', () => {
    it("lists the token's recent API requests, newest first, with their bodies", async () => {
      const app = makeApp();
      const contact = await createContact(app, { username: 'zed' });
      await api(app).get(`/v1/contacts/${contact.id}`).expect(200);
      await api(app).get('/v1/contacts/nope').expect(404);
      await api(app, 'someone-else').get('/v1/contacts').expect(200);
      const res = await api(app).get('/__mock/requests').expect(200);
      expect(
        res.body.data.map((r: { method: string; path: string; status: number }) => [
          r.method,
          r.path,
          r.status,
        ]),
      ).toEqual([
        ['GET', '/v1/contacts/nope', 404],
        ['GET', `/v1/contacts/${contact.id}`, 200],
        ['POST', '/v1/contacts', 201],
      ]);
      expect(res.body.data[2].body).toEqual({ username: 'zed', phone_number: '+1 555 0100' });
      expect(res.body.data[0]).toEqual(
        expect.objectContaining({
          time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          duration_ms: expect.any(Number),
        }),
      );
    });

    it('is bounded, and honours limit', async () => {
      const app = makeApp({ journalSize: 5 });
      for (let i = 0; i < 8; i++)
        await api(app)
          .get(`/v1/contacts?limit=${i + 1}`)
          .expect(200);
      const all = await api(app).get('/__mock/requests').expect(200);
      expect(all.body.data.map((r: { path: string }) => r.path)).toEqual(
        [8, 7, 6, 5, 4].map((n) => `/v1/contacts?limit=${n}`),
      );
      const two = await api(app).get('/__mock/requests?limit=2').expect(200);
      expect(two.body.data).toHaveLength(2);
      expectError(
        (await api(app).get('/__mock/requests?limit=6').expect(400)).body,
        'parameter_invalid',
        'limit',
      );
    });
  });

  it('answers 405 with Allow and 404 for unknown control routes', async () => {
    const res = await api(makeApp()).get('/__mock/reset').expect(405);
    expect(res.headers.allow).toBe('POST');
    expectError((await api(makeApp()).get('/__mock/nothing').expect(404)).body, 'route_not_found');
  });
});
