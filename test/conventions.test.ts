import type express from 'express';
import request from 'supertest';
import { ERROR_STATUS } from '../src/errors';
import type { MockLocals } from '../src/express/app';
import { api, createContact, expectError, makeApp, sendMessage, snapshot, TOKEN } from './helpers';

const ENDPOINTS: [string, string][] = [
  ['GET', '/v1/contacts'],
  ['POST', '/v1/contacts'],
  ['GET', '/v1/contacts/AAAAAAAAAAAAAAAA'],
  ['PUT', '/v1/contacts/AAAAAAAAAAAAAAAA'],
  ['DELETE', '/v1/contacts/AAAAAAAAAAAAAAAA'],
  ['GET', '/v1/messages'],
  ['POST', '/v1/messages'],
  ['GET', '/v1/messages/AAAAAAAAAAAAAAAA'],
  ['PUT', '/v1/messages/AAAAAAAAAAAAAAAA'],
  ['DELETE', '/v1/messages/AAAAAAAAAAAAAAAA'],
];

function raw(app: express.Express, method: string, path: string) {
  const agent = request(app) as unknown as Record<string, (path: string) => request.Test>;
  return agent[method.toLowerCase()]!(path);
}

describe('Authentication (document 5, C3, C4)', () => {
  describe.each(ENDPOINTS)('%s %s', (method, path) => {
    it('answers 401 missing_token with WWW-Authenticate without the header', async () => {
      const res = await raw(makeApp(), method, path).expect(401);
      expectError(res.body, 'missing_token');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    });
  });

  it.each([
    'Basic dXNlcjpwYXNz',
    'Bearer',
    'Bearer ',
    'Bearer a b',
    'token abc',
    `Bearer ${'a'.repeat(5000)}`,
  ])('answers 401 invalid_token for "%s"', async (header) => {
    const res = await request(makeApp()).get('/v1/contacts').set('Authorization', header).expect(401);
    expectError(res.body, 'invalid_token');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it("answers 401 invalid_token to two Authorization headers, rather than the first token's world", async () => {
    const app = makeApp();
    const before = snapshot(app, 'a');
    const res = await request(app)
      .post('/v1/contacts')
      // An array is sent as two header lines (superagent's types allow it for Cookie only).
      .set('Authorization', ['Bearer a', 'Bearer b'] as unknown as string)
      .type('form')
      .send({ username: 'two', phone_number: '1' })
      .expect(401);
    expectError(res.body, 'invalid_token');
    expect(res.body.message).toContain('several Authorization headers');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
    expect(snapshot(app, 'a')).toBe(before);
  });

  it('accepts the scheme in any case', async () => {
    await request(makeApp()).get('/v1/contacts').set('Authorization', `bearer ${TOKEN}`).expect(200);
  });

  it('accepts only the configured tokens when tokens are given', async () => {
    const app = makeApp({ tokens: ['one', 'two'] });
    await api(app, 'one').get('/v1/contacts').expect(200);
    await api(app, 'two').get('/v1/contacts').expect(200);
    const res = await api(app, 'three').get('/v1/contacts').expect(401);
    expectError(res.body, 'invalid_token');
  });

  it('does not create anything on a refused request', async () => {
    const app = makeApp();
    const before = snapshot(app);
    await request(app)
      .post('/v1/contacts')
      .type('form')
      .send({ username: 'a', phone_number: '1' })
      .expect(401);
    expect(snapshot(app)).toBe(before);
  });
});

describe('One world per token (C4)', () => {
  it('starts every token from the same seeded world', async () => {
    const app = makeApp();
    const a = await api(app, 'token-a').get('/v1/contacts?limit=100').expect(200);
    const b = await api(app, 'token-b').get('/v1/contacts?limit=100').expect(200);
    expect(a.body).toEqual(b.body);
  });

  it("never shows, changes or deletes another token's data, even by id", async () => {
    const app = makeApp();
    const contact = await createContact(app, {}, 'token-a');
    const message = await sendMessage(app, contact.conversation_id, 'secret', 'token-a');
    const b = api(app, 'token-b');
    await b.get(`/v1/contacts/${contact.id}`).expect(404);
    await b.put(`/v1/contacts/${contact.id}`).type('form').send({ display_name: 'x' }).expect(404);
    await b.delete(`/v1/contacts/${contact.id}`).expect(404);
    await b.get(`/v1/messages/${message.id}`).expect(404);
    await b.put(`/v1/messages/${message.id}`).type('form').send({ message: 'x' }).expect(404);
    await b.delete(`/v1/messages/${message.id}`).expect(404);
    await b.get(`/v1/messages?conversation_id=${contact.conversation_id}`).expect(404);
    await b
      .post('/v1/messages')
      .type('form')
      .send({ conversation_id: contact.conversation_id, message: 'x' })
      .expect(404);
    const list = await b.get('/v1/contacts?limit=100').expect(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(contact.id);
    await api(app, 'token-a').get(`/v1/messages/${message.id}`).expect(200, message);
  });

  it('keeps a seeded record deleted by one token for the others', async () => {
    const app = makeApp();
    const seeded = (await api(app, 'token-a').get('/v1/contacts').expect(200)).body.data[0];
    await api(app, 'token-a').delete(`/v1/contacts/${seeded.id}`).expect(204);
    await api(app, 'token-b').get(`/v1/contacts/${seeded.id}`).expect(200, seeded);
  });

  it('drops the least recently used world beyond maxWorlds, and says so', async () => {
    const lines: string[] = [];
    const app = makeApp({ maxWorlds: 2, log: (line) => lines.push(line) });
    const contact = await createContact(app, {}, 'first');
    await api(app, 'second').get('/v1/contacts').expect(200);
    await api(app, 'third').get('/v1/contacts').expect(200);
    expect(lines.some((line) => /dropped/.test(line))).toBe(true);
    await api(app, 'first').get(`/v1/contacts/${contact.id}`).expect(404);
  });
});

describe('Routing (C3, C20)', () => {
  it.each(['/', '/v2/contacts', '/contacts', '/v1', '/v1/conversations', '/v1/contacts/a/b'])(
    'answers 404 route_not_found for %s',
    async (path) => {
      const res = await api(makeApp()).get(path).expect(404);
      expectError(res.body, 'route_not_found');
      expect(res.body.message).toContain(path);
    },
  );

  it.each([
    ['PATCH', '/v1/contacts/x', 'GET, HEAD, PUT, DELETE'],
    ['DELETE', '/v1/contacts', 'GET, HEAD, POST'],
    ['PUT', '/v1/messages', 'GET, HEAD, POST'],
    ['POST', '/v1/messages/x', 'GET, HEAD, PUT, DELETE'],
  ])('answers %s %s with 405 method_not_allowed and Allow: %s', async (method, path, allow) => {
    const res = await raw(makeApp(), method, path).set('Authorization', `Bearer ${TOKEN}`).expect(405);
    expectError(res.body, 'method_not_allowed');
    expect(res.headers.allow).toBe(allow);
  });

  it('tolerates a trailing slash', async () => {
    const app = makeApp();
    const contact = await createContact(app);
    await api(app).get('/v1/contacts/').expect(200);
    await api(app).get(`/v1/contacts/${contact.id}/`).expect(200, contact);
  });

  it('answers HEAD on a list like GET', async () => {
    const res = await api(makeApp()).head('/v1/contacts').expect(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('refuses a path that is not valid percent-encoding with 400', async () => {
    const res = await api(makeApp()).get('/v1/contacts/%E0%A4%A').expect(400);
    expectError(res.body, 'malformed_url');
  });

  it.each([
    ['/v1/contacts?limit=%ZZ', 'limit'],
    ['/v1/contacts?limit=5&active=tr%E9', 'active'],
    ['/v1/messages?conversation_id=ok%C3%A9%E9', 'conversation_id'],
  ])(
    'refuses a query that is not valid percent-encoding with 400, naming its parameter: %s',
    async (url, param) => {
      const res = await api(makeApp()).get(url).expect(400);
      expectError(res.body, 'malformed_url', param);
      expect(res.body.message).toContain(param);
    },
  );
});

describe('Request bodies (C3, C12)', () => {
  it('answers 413 body_too_large for a body over 100 kB, and creates nothing', async () => {
    const app = makeApp();
    const before = snapshot(app);
    const res = await api(app)
      .post('/v1/contacts')
      .type('form')
      .send({ username: 'a', phone_number: '1', display_name: 'x'.repeat(101 * 1024) })
      .expect(413);
    expectError(res.body, 'body_too_large');
    expect(snapshot(app)).toBe(before);
  });

  it('answers 413 for an oversized multipart body too', async () => {
    const res = await api(makeApp())
      .post('/v1/contacts')
      .field('username', 'a')
      .field('display_name', 'x'.repeat(101 * 1024))
      .expect(413);
    expectError(res.body, 'body_too_large');
  });

  it.each(['text/plain', 'application/xml', 'image/png'])(
    'answers 415 unsupported_media_type for %s',
    async (type) => {
      const res = await api(makeApp())
        .post('/v1/contacts')
        .set('Content-Type', type)
        .send('username=a')
        .expect(415);
      expectError(res.body, 'unsupported_media_type');
    },
  );

  it.each([
    'application/x-www-form-urlencoded; charset=utf-16',
    'application/x-www-form-urlencoded; charset=latin1',
    'application/x-www-form-urlencoded; charset=bogus',
    'multipart/form-data; boundary=X; charset=utf-16',
    'application/json; charset=utf-16',
  ])('answers 415 unsupported_media_type for a body that is not UTF-8: %s', async (type) => {
    const app = makeApp();
    const before = snapshot(app);
    const body = type.startsWith('multipart')
      ? '--X\r\nContent-Disposition: form-data; name="username"\r\n\r\na\r\n--X--\r\n'
      : type.startsWith('application/json')
        ? '{"username": "a", "phone_number": "1"}'
        : 'username=a&phone_number=1';
    const res = await api(app).post('/v1/contacts').set('Content-Type', type).send(body).expect(415);
    expectError(res.body, 'unsupported_media_type');
    expect(res.body.message).toContain('UTF-8');
    expect(snapshot(app)).toBe(before);
  });

  it.each([
    'application/x-www-form-urlencoded; charset=UTF-8',
    'application/x-www-form-urlencoded; charset=utf8',
    'application/json; charset=utf8',
    'application/json; charset="UTF-8"',
  ])('reads a body whose charset is UTF-8 however it is spelled: %s', async (type) => {
    const body = type.startsWith('application/json')
      ? '{"username": "é", "phone_number": "1"}'
      : 'username=%C3%A9&phone_number=1';
    const res = await api(makeApp()).post('/v1/contacts').set('Content-Type', type).send(body).expect(201);
    expect(res.body.username).toBe('é');
  });

  it.each(['a%ZZb', 'ok%C3%A9%E9', 'a%'])(
    'answers 400 malformed_body for a form value that is not valid percent-encoding (%s), naming it',
    async (username) => {
      const app = makeApp();
      const before = snapshot(app);
      const res = await api(app)
        .post('/v1/contacts')
        .type('form')
        .send(`username=${username}&phone_number=1`)
        .expect(400);
      expectError(res.body, 'malformed_body', 'username');
      expect(res.body.message).toContain('percent-encoding');
      expect(snapshot(app)).toBe(before);
    },
  );

  it.each([
    ['{"username": ', 'not valid JSON'],
    ['[1, 2]', 'object of parameters'],
    ['"text"', 'object of parameters'],
    ['null', 'object of parameters'],
    ['12', 'object of parameters'],
  ])('answers 400 malformed_body for the JSON %s, saying what is wrong with it', async (body, why) => {
    const res = await api(makeApp())
      .post('/v1/contacts')
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(400);
    expectError(res.body, 'malformed_body');
    expect(res.body.message).toContain(why);
  });

  it('answers 400 malformed_body for a body that is not what its Content-Encoding says, and says so', async () => {
    const res = await api(makeApp())
      .post('/v1/contacts')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .set('Content-Encoding', 'gzip')
      .send('username=a&phone_number=1')
      .expect(400);
    expectError(res.body, 'malformed_body');
    expect(res.body.message).toContain('Content-Encoding');
  });

  it('refuses a multipart file part', async () => {
    const app = makeApp();
    const contact = await createContact(app);
    const res = await api(app)
      .post('/v1/messages')
      .field('conversation_id', contact.conversation_id)
      .field('message', 'hi')
      .attach('attachments', Buffer.from('data'), 'a.txt')
      .expect(400);
    expectError(res.body, 'parameter_invalid', 'attachments');
  });

  it('reads multipart bracket keys like form keys', async () => {
    const app = makeApp();
    const contact = await createContact(app);
    const message = await sendMessage(app, contact.conversation_id);
    const res = await api(app)
      .put(`/v1/messages/${message.id}`)
      .field('reactions[heart][]', 'zed')
      .expect(200);
    expect(res.body.reactions).toEqual([{ heart: ['zed'] }]);
  });

  it('answers 400 too_many_parameters beyond 1000 parameters', async () => {
    const body = Array.from({ length: 1001 }, (_, i) => `k${i}=v`).join('&');
    const res = await api(makeApp()).post('/v1/contacts').type('form').send(body).expect(400);
    expectError(res.body, 'too_many_parameters');
  });

  it('answers 400 nesting_too_deep for deeply nested keys, in forms and JSON', async () => {
    const app = makeApp();
    const form = await api(app).post('/v1/contacts').type('form').send('a[b][c][d][e][f][g]=1').expect(400);
    expectError(form.body, 'nesting_too_deep');
    let nested: unknown = 'x';
    for (let i = 0; i < 20; i++) nested = { a: nested };
    const json = await api(app).post('/v1/contacts').send({ username: nested }).expect(400);
    expectError(json.body, 'nesting_too_deep');
  });

  it('refuses a huge array index instead of allocating it', async () => {
    const res = await api(makeApp())
      .post('/v1/messages')
      .type('form')
      .send('attachments[99999999][filename]=a')
      .expect(400);
    expectError(res.body, 'too_many_parameters');
  });

  it('refuses a parameter sent in both the query and the body', async () => {
    const res = await api(makeApp())
      .post('/v1/contacts?username=a')
      .type('form')
      .send({ username: 'b', phone_number: '1' })
      .expect(400);
    expectError(res.body, 'parameter_invalid', 'username');
  });

  it('never lets a key reach Object.prototype, and refuses "__proto__" in every encoding', async () => {
    const app = makeApp();
    const contact = await createContact(app);
    const message = await sendMessage(app, contact.conversation_id);
    const before = snapshot(app);
    await api(app)
      .put(`/v1/messages/${message.id}`)
      .type('form')
      .send('reactions[__proto__][polluted]=yes')
      .expect(400);
    await api(app)
      .post('/v1/contacts')
      .type('form')
      .send('__proto__[polluted]=yes&constructor[prototype][polluted]=yes')
      .expect(400);
    await api(app)
      .put(`/v1/messages/${message.id}`)
      .set('Content-Type', 'application/json')
      .send('{"reactions": {"__proto__": ["mallory"]}}')
      .expect(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(snapshot(app)).toBe(before);
  });
});

describe('CORS (C19)', () => {
  it('answers a preflight with 204 before authentication', async () => {
    const res = await request(makeApp())
      .options('/v1/messages')
      .set('Origin', 'http://localhost:5173')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization,content-type')
      .expect(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-headers']).toMatch(/Authorization/);
    expect(res.headers['access-control-allow-headers']).toMatch(/Content-Type/);
    expect(res.headers['access-control-allow-methods']).toMatch(/PUT/);
  });

  it('allows every origin on answers, errors included', async () => {
    const ok = await api(makeApp()).get('/v1/contacts').set('Origin', 'https://app.example').expect(200);
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    const refused = await request(makeApp())
      .get('/v1/contacts')
      .set('Origin', 'https://app.example')
      .expect(401);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('Answers', () => {
  it('carry nosniff and no X-Powered-By', async () => {
    const res = await api(makeApp()).get('/v1/contacts').expect(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('use integer Unix seconds and 16-character ids that never collide (C5, C6)', async () => {
    const app = makeApp();
    const t0 = Math.floor(Date.now() / 1000);
    const contacts = [];
    for (let i = 0; i < 20; i++) contacts.push(await createContact(app));
    const ids = contacts.flatMap((c) => [c.id, c.conversation_id]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of contacts) {
      expect(Number.isInteger(c.created_at)).toBe(true);
      expect(c.created_at).toBeGreaterThanOrEqual(t0);
      expect(c.created_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    }
  });

  it('turn an unexpected failure into 500 internal, with no stack trace, and log it', async () => {
    const logged: string[] = [];
    const app = makeApp({ log: (line) => logged.push(line) });
    const { worlds } = app.locals as MockLocals;
    jest.spyOn(worlds, 'of').mockImplementation(() => {
      throw new Error('secret internals at /src/store/world.ts:1');
    });
    const res = await api(app).get('/v1/contacts').expect(500);
    expect(res.body).toEqual({
      type: 'api_error',
      code: 'internal',
      message: expect.stringMatching(/bug in the mock/),
    });
    expect(JSON.stringify(res.body)).not.toMatch(/secret|src/);
    expect(logged).toEqual([expect.stringContaining('secret internals')]);
  });

  it('have one status per error code in the catalogue', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(code).toMatch(/^[a-z_]+$/);
      expect(status).toBeGreaterThanOrEqual(400);
    }
  });
});
