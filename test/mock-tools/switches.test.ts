import request from 'supertest';
import { createCore } from '../../src/create-core';
import { parseLatency } from '../../src/core/switches';
import { generateWorld } from '../../src/seed';
import { api, expectError, makeApp, snapshot } from '../helpers';

describe('Prefer: code=<status>', () => {
  it.each([
    [500, 'internal', 'api_error'],
    [503, 'service_unavailable', 'api_error'],
    [401, 'invalid_token', 'invalid_request'],
    [404, 'not_found', 'invalid_request'],
    [429, 'rate_limited', 'invalid_request'],
    [418, 'simulated_error', 'invalid_request'],
  ])('answers %i with a proper error object (%s)', async (status, code, type) => {
    const res = await api(makeApp()).get('/v1/contacts').set('Prefer', `code=${status}`).expect(status);
    expectError(res.body, code);
    expect(res.body.type).toBe(type);
    expect(res.body.message).toContain(`Prefer: code=${status}`);
    expect(res.headers['preference-applied']).toBe(`code=${status}`);
  });

  it('changes nothing: the real request is not carried out', async () => {
    const app = makeApp();
    const before = snapshot(app);
    await api(app)
      .post('/v1/contacts')
      .set('Prefer', 'code=500')
      .type('form')
      .send({ username: 'a', phone_number: '1' })
      .expect(500);
    expect(snapshot(app)).toBe(before);
  });

  it('adds Retry-After to 429 and 503, and WWW-Authenticate to 401', async () => {
    expect(
      (await api(makeApp()).get('/v1/contacts').set('Prefer', 'code=429').expect(429)).headers['retry-after'],
    ).toBe('1');
    expect(
      (await api(makeApp()).get('/v1/contacts').set('Prefer', 'code=401').expect(401)).headers[
        'www-authenticate'
      ],
    ).toMatch(/^Bearer/);
  });

  it.each(['code=200', 'code=abc', 'code=600', 'delay=-5', 'delay=99999999'])(
    'refuses "Prefer: %s" with 400 naming Prefer',
    async (value) => {
      const res = await api(makeApp()).get('/v1/contacts').set('Prefer', value).expect(400);
      expectError(res.body, 'parameter_invalid', 'Prefer');
    },
  );

  it('ignores preferences it does not know (RFC 7240)', async () => {
    await api(makeApp()).get('/v1/contacts').set('Prefer', 'return=minimal, respond-async').expect(200);
  });
});

describe('Prefer: delay=<ms>', () => {
  it('waits before answering, and combines with code', async () => {
    const started = Date.now();
    const res = await api(makeApp()).get('/v1/contacts').set('Prefer', 'code=503, delay=300').expect(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(res.headers['preference-applied']).toBe('code=503, delay=300');
  });

  it('is allowed by CORS preflight', async () => {
    const res = await request(makeApp())
      .options('/v1/contacts')
      .set('Origin', 'http://localhost:3000')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization,prefer')
      .expect(204);
    expect(res.headers['access-control-allow-headers']).toMatch(/Prefer/);
  });
});

describe('--latency', () => {
  it('parses MS and MIN-MAX, and refuses anything else', () => {
    expect(parseLatency('300')).toEqual({ min: 300, max: 300 });
    expect(parseLatency('200-800')).toEqual({ min: 200, max: 800 });
    for (const bad of ['', 'fast', '800-200', '-5', '1-999999'])
      expect(() => parseLatency(bad)).toThrow(/milliseconds/);
  });

  it('delays a 401 too, not only the answers of a valid token', async () => {
    const core = createCore({
      data: generateWorld({ seed: 1, contacts: 2, messages: 4 }),
      latency: { min: 500, max: 500 },
    });
    await core.ready;
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      let answered = false;
      const answer = core.handle({ method: 'GET', url: '/v1/contacts', headers: {} }).then((a) => {
        answered = true;
        return a;
      });
      await new Promise((done) => setImmediate(done));
      jest.advanceTimersByTime(499);
      await new Promise((done) => setImmediate(done));
      expect(answered).toBe(false);
      jest.advanceTimersByTime(1);
      const { status, body } = await answer;
      expect(status).toBe(401);
      expectError(JSON.parse(body), 'missing_token');
    } finally {
      jest.useRealTimers();
    }
  });

  it('delays every API answer', async () => {
    const app = makeApp({ latency: { min: 150, max: 200 } });
    const started = Date.now();
    await api(app).get('/v1/contacts').expect(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(145);
  });
});

describe('the switches come after authentication, and the journal sees them', () => {
  it('answers 401 to "Prefer: code=500" without an Authorization header, and carries nothing out', async () => {
    const app = makeApp();
    const before = snapshot(app);
    const res = await request(app).get('/v1/contacts').set('Prefer', 'code=500').expect(401);
    expectError(res.body, 'missing_token');
    expect(res.headers['preference-applied']).toBeUndefined();
    const invalid = await request(app)
      .post('/v1/contacts')
      .set('Authorization', 'Basic abc')
      .set('Prefer', 'code=503, delay=2000')
      .type('form')
      .send({ username: 'a', phone_number: '1' })
      .expect(401);
    expectError(invalid.body, 'invalid_token');
    expect(snapshot(app)).toBe(before);
  });

  it('keeps forced answers in the journal, and times a delayed answer with its delay', async () => {
    const app = makeApp();
    await api(app).get('/v1/contacts').set('Prefer', 'code=503').expect(503);
    await api(app).get('/v1/contacts?limit=2').set('Prefer', 'delay=300').expect(200);
    await api(app).get('/v1/contacts').set('Prefer', 'code=abc').expect(400);
    const journal = (await api(app).get('/__mock/requests').expect(200)).body.data as {
      path: string;
      status: number;
      duration_ms: number;
    }[];
    expect(journal.map((entry) => [entry.path, entry.status])).toEqual([
      ['/v1/contacts', 400],
      ['/v1/contacts?limit=2', 200],
      ['/v1/contacts', 503],
    ]);
    expect(journal[1]!.duration_ms).toBeGreaterThanOrEqual(295);
  });

  it('times --latency into the journal too', async () => {
    const app = makeApp({ latency: { min: 120, max: 120 } });
    await api(app).get('/v1/contacts').expect(200);
    const [entry] = (await api(app).get('/__mock/requests').expect(200)).body.data as {
      duration_ms: number;
    }[];
    expect(entry!.duration_ms).toBeGreaterThanOrEqual(115);
  });
});
