/**
 * Limits (issue 6, item 3; conventions C12, C14): body size, number of parameters, nesting depth,
 * list length, string lengths and the per-message bounds. Each is met exactly at the bound and
 * refused one past it with a clear 4xx whose message names the limit, in every encoding that
 * can carry it, and a refusal changes nothing.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { MAX_TOKEN_LENGTH } from '../../src/core/auth';
import { answerProblems, client, json, startServer, type RawResponse, type TestServer } from './support';
import { BODY_LIMITS, LIMITS } from '../../src/input/limits';

let server: TestServer;
let h: ReturnType<typeof client>;
let conversation: string;
let messageId: string;

beforeAll(async () => {
  server = await startServer();
  h = client(server.port);
});

afterAll(async () => {
  h.close();
  await server.close();
});

beforeEach(async () => {
  server.worlds.reset('limits');
  const contact = await send('POST', '/v1/contacts', 'json', { username: 'lim', phone_number: '1' });
  conversation = (JSON.parse(contact.text) as { conversation_id: string }).conversation_id;
  const message = await send('POST', '/v1/messages', 'json', {
    conversation_id: conversation,
    message: 'hi',
  });
  messageId = (JSON.parse(message.text) as { id: string }).id;
});

type Encoding = 'form' | 'json' | 'multipart';
const TYPES: Record<Encoding, string> = {
  form: 'application/x-www-form-urlencoded',
  json: 'application/json',
  multipart: 'multipart/form-data; boundary=LIMIT',
};

/** Bracket-key form pairs from a JSON-like object, as a browser form would send them. */
function pairs(value: unknown, prefix = ''): [string, string][] {
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) =>
      pairs(v, prefix === '' ? k : `${prefix}[${Array.isArray(value) ? k : k}]`),
    );
  }
  return [[prefix, String(value)]];
}

function encode(encoding: Encoding, fields: unknown): Buffer {
  if (encoding === 'json') return json(fields);
  const list = typeof fields === 'string' ? [] : pairs(fields);
  if (encoding === 'form') {
    return Buffer.from(
      typeof fields === 'string'
        ? fields
        : list
            .map(
              ([k, v]) =>
                `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(v)}`,
            )
            .join('&'),
    );
  }
  return Buffer.from(
    list.map(([k, v]) => `--LIMIT\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') +
      '--LIMIT--\r\n',
  );
}

async function send(method: string, path: string, encoding?: Encoding, fields?: unknown, headers = {}) {
  const res = await h.send({
    method,
    path,
    body: encoding ? encode(encoding, fields) : undefined,
    headers: {
      Authorization: 'Bearer limits',
      ...(encoding ? { 'Content-Type': TYPES[encoding] } : {}),
      ...headers,
    },
  });
  expect(answerProblems(res, '', method)).toEqual([]);
  return res;
}

const snapshot = () => JSON.stringify(server.worlds.of('limits').toData());

/** A refusal: its status, its code, a message that names `limit`, and an unchanged world. */
async function expectRefused(
  act: () => Promise<RawResponse>,
  status: number,
  code: string,
  limit: string | number,
  param?: string,
) {
  const before = snapshot();
  const res = await act();
  const body = JSON.parse(res.text) as { code: string; message: string; param?: string };
  expect([res.status, body.code]).toEqual([status, code]);
  expect(body.message).toContain(String(limit));
  if (param !== undefined) expect(body.param).toBe(param);
  expect(snapshot()).toBe(before);
  return body;
}

/** A request with a chunked body (no Content-Length), sent in pieces. */
function chunked(
  path: string,
  type: string,
  pieces: Buffer[],
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path,
        headers: {
          Authorization: 'Bearer limits',
          'Content-Type': type,
          'Transfer-Encoding': 'chunked',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    for (const piece of pieces) req.write(piece);
    req.end();
  });
}

describe(`Body size: ${BODY_LIMITS.label}`, () => {
  const atLimit = (encoding: Encoding) => {
    // A message field padded so that the whole body is exactly the limit.
    const base = encode(encoding, { message: '' }).length;
    return { message: 'x'.repeat(BODY_LIMITS.bytes - base) };
  };

  it.each<Encoding>(['form', 'json', 'multipart'])(
    'reads a %s body of exactly the limit',
    async (encoding) => {
      const fields = atLimit(encoding);
      expect(encode(encoding, fields).length).toBe(BODY_LIMITS.bytes);
      const res = await send('PUT', `/v1/messages/${messageId}`, encoding, fields);
      // Read, then refused for the text's length (C14), not for the body's size.
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toEqual(
        expect.objectContaining({ code: 'parameter_invalid', param: 'message' }),
      );
    },
  );

  it.each<Encoding>(['form', 'json', 'multipart'])(
    'answers 413 to a %s body one byte over',
    async (encoding) => {
      const fields = { message: `${atLimit(encoding).message}x` };
      await expectRefused(
        () => send('PUT', `/v1/messages/${messageId}`, encoding, fields),
        413,
        'body_too_large',
        BODY_LIMITS.label,
      );
    },
  );

  it.each<Encoding>(['form', 'json', 'multipart'])(
    'answers 413 to a chunked %s body that grows past it',
    async (encoding) => {
      const piece = Buffer.alloc(16 * 1024, 'a');
      const prefix =
        encoding === 'json'
          ? '{"message":"'
          : encoding === 'form'
            ? 'message='
            : '--LIMIT\r\nContent-Disposition: form-data; name="message"\r\n\r\n';
      await expectRefused(
        () =>
          chunked(`/v1/messages`, TYPES[encoding], [
            Buffer.from(prefix),
            ...Array.from({ length: 8 }, () => piece),
          ]),
        413,
        'body_too_large',
        BODY_LIMITS.label,
      );
    },
  );

  it('answers 413 to a gzip body that inflates past it (a zip bomb), counting the inflated bytes', async () => {
    const bomb = zlib.gzipSync(Buffer.from(`{"message":"${'x'.repeat(20 * 1024 * 1024)}"}`));
    expect(bomb.length).toBeLessThan(BODY_LIMITS.bytes);
    await expectRefused(
      () =>
        h.send({
          method: 'PUT',
          path: `/v1/messages/${messageId}`,
          body: bomb,
          headers: {
            Authorization: 'Bearer limits',
            'Content-Type': 'application/json',
            'Content-Encoding': 'gzip',
          },
        }),
      413,
      'body_too_large',
      BODY_LIMITS.label,
    );
  });

  it('answers 413 from the declared Content-Length alone, without reading the body', async () => {
    const res = await new Promise<RawResponse>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: server.port,
          method: 'POST',
          path: '/v1/contacts',
          headers: {
            Authorization: 'Bearer limits',
            'Content-Type': 'application/json',
            'Content-Length': 50_000_000,
          },
        },
        (r) => {
          let text = '';
          r.on('data', (c: Buffer) => (text += c.toString()));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, headers: r.headers, text }));
        },
      );
      req.on('error', reject);
      req.write('{"username":');
      // The body never comes: the answer must not wait for it.
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual(expect.objectContaining({ code: 'body_too_large' }));
  });
});

describe(`Number of parameters: ${BODY_LIMITS.parameters}`, () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => `k${i}=v`).join('&');

  it('counts them all, and refuses one past the limit in a form body, a multipart body and a query', async () => {
    // At the limit the parameters are read, then refused one by one as unknown (C13).
    const at = await send('POST', '/v1/contacts', 'form', many(BODY_LIMITS.parameters));
    expect(JSON.parse(at.text)).toEqual(expect.objectContaining({ code: 'parameter_unknown', param: 'k0' }));
    await expectRefused(
      () => send('POST', '/v1/contacts', 'form', many(BODY_LIMITS.parameters + 1)),
      400,
      'too_many_parameters',
      BODY_LIMITS.parameters,
    );
    // Multipart is read at the limit too (busboy used to refuse it one part early).
    const fieldsAt = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    const read = await send('POST', '/v1/contacts', 'multipart', fieldsAt(BODY_LIMITS.parameters));
    expect(JSON.parse(read.text)).toEqual(
      expect.objectContaining({ code: 'parameter_unknown', param: 'k0' }),
    );
    const fields = fieldsAt(BODY_LIMITS.parameters + 1);
    await expectRefused(
      () => send('POST', '/v1/contacts', 'multipart', fields),
      400,
      'too_many_parameters',
      BODY_LIMITS.parameters,
    );
    await expectRefused(
      () => send('GET', `/v1/contacts?${many(BODY_LIMITS.parameters + 1)}`),
      400,
      'too_many_parameters',
      BODY_LIMITS.parameters,
    );
  });

  it('counts every value of a JSON body, nested ones included', async () => {
    const flat = Object.fromEntries(
      Array.from({ length: BODY_LIMITS.parameters + 1 }, (_, i) => [`k${i}`, 1]),
    );
    await expectRefused(
      () => send('POST', '/v1/contacts', 'json', flat),
      400,
      'too_many_parameters',
      BODY_LIMITS.parameters,
    );
    const nested = { a: Array.from({ length: 11 }, () => Array.from({ length: 100 }, () => 1)) };
    await expectRefused(
      () => send('POST', '/v1/contacts', 'json', nested),
      400,
      'too_many_parameters',
      BODY_LIMITS.parameters,
    );
  });
});

describe(`Nesting depth: ${BODY_LIMITS.depth}`, () => {
  const deepKey = (levels: number) => `a${'[b]'.repeat(levels)}=1`;
  const deepJson = (levels: number): unknown => (levels === 0 ? 1 : { b: deepJson(levels - 1) });

  it('reads a form key nested to the limit and refuses one level more, in a body and in a query', async () => {
    const at = await send('POST', '/v1/contacts', 'form', deepKey(BODY_LIMITS.depth));
    expect(JSON.parse(at.text)).toEqual(expect.objectContaining({ code: 'parameter_unknown', param: 'a' }));
    await expectRefused(
      () => send('POST', '/v1/contacts', 'form', deepKey(BODY_LIMITS.depth + 1)),
      400,
      'nesting_too_deep',
      BODY_LIMITS.depth,
    );
    await expectRefused(
      () => send('GET', `/v1/contacts?${deepKey(BODY_LIMITS.depth + 1)}`),
      400,
      'nesting_too_deep',
      BODY_LIMITS.depth,
    );
  });

  it('reads JSON nested to the limit and refuses one level more, and JSON nested 30,000 deep', async () => {
    // `a` plus five levels below it, as the form key a[b][b][b][b][b].
    const at = await send('POST', '/v1/contacts', 'json', { a: deepJson(BODY_LIMITS.depth) });
    expect(JSON.parse(at.text)).toEqual(expect.objectContaining({ code: 'parameter_unknown', param: 'a' }));
    await expectRefused(
      () => send('POST', '/v1/contacts', 'json', { a: deepJson(BODY_LIMITS.depth + 1) }),
      400,
      'nesting_too_deep',
      BODY_LIMITS.depth,
    );
    const abyss = `{"a":${'['.repeat(30_000)}${']'.repeat(30_000)}}`;
    await expectRefused(
      () =>
        h.send({
          method: 'POST',
          path: '/v1/contacts',
          body: Buffer.from(abyss),
          headers: { Authorization: 'Bearer limits', 'Content-Type': 'application/json' },
        }),
      400,
      'nesting_too_deep',
      BODY_LIMITS.depth,
    );
  });
});

describe(`List length: ${BODY_LIMITS.arrayLength}`, () => {
  it('refuses a form list of more items, or an index past the end, in a body and a query', async () => {
    const items = (n: number) => Array.from({ length: n }, () => 'reactions[heart][]=u').join('&');
    await expectRefused(
      () => send('PUT', `/v1/messages/${messageId}`, 'form', items(BODY_LIMITS.arrayLength + 1)),
      400,
      'too_many_parameters',
      BODY_LIMITS.arrayLength,
    );
    await expectRefused(
      () => send('PUT', `/v1/messages/${messageId}`, 'form', 'attachments[99999999][filename]=a'),
      400,
      'too_many_parameters',
      BODY_LIMITS.arrayLength,
    );
    await expectRefused(
      () =>
        send(
          'PUT',
          `/v1/messages/${messageId}`,
          'form',
          `attachments[${BODY_LIMITS.arrayLength}][filename]=a`,
        ),
      400,
      'too_many_parameters',
      BODY_LIMITS.arrayLength,
    );
    await expectRefused(
      () => send('GET', `/v1/contacts?${Array.from({ length: 101 }, () => 'limit[]=1').join('&')}`),
      400,
      'too_many_parameters',
      BODY_LIMITS.arrayLength,
    );
  });

  it('refuses a JSON list of more items', async () => {
    await expectRefused(
      () =>
        send('PUT', `/v1/messages/${messageId}`, 'json', {
          reactions: { heart: Array.from({ length: 101 }, (_, i) => `u${i}`) },
        }),
      400,
      'too_many_parameters',
      BODY_LIMITS.arrayLength,
    );
  });
});

describe('String lengths (C14), counted in characters', () => {
  type Target = 'create contact' | 'update contact' | 'update message';
  // [field, limit, a valid character to repeat, where it is sent]
  const cases: [string, number, string, Target][] = [
    ['username', 64, '🙂', 'create contact'],
    ['phone_number', 32, '5', 'create contact'],
    ['display_name', 64, 'é', 'create contact'],
    ['display_name', 64, 'x', 'update contact'],
    ['message', 4000, '🙂', 'update message'],
  ];

  const sendField = async (target: Target, field: string, value: string) => {
    if (target === 'update message')
      return send('PUT', `/v1/messages/${messageId}`, 'json', { [field]: value });
    if (target === 'update contact') {
      const list = JSON.parse((await send('GET', '/v1/contacts?limit=1')).text) as { data: { id: string }[] };
      return send('PUT', `/v1/contacts/${list.data[0]!.id}`, 'json', { [field]: value });
    }
    return send('POST', '/v1/contacts', 'json', { username: 'u', phone_number: '1', [field]: value });
  };

  it.each(cases)(
    'accepts %s of %i characters %s and refuses one more (%s)',
    async (field, limit, unit, target) => {
      expect((await sendField(target, field, unit.repeat(limit))).status).toBeLessThan(300);
      await expectRefused(
        () => sendField(target, field, unit.repeat(limit + 1)),
        400,
        'parameter_invalid',
        limit,
        field,
      );
    },
  );

  it('accepts an avatar_url of 2048 characters and refuses 2049', async () => {
    const url = (n: number) => `https://example.com/${'a'.repeat(n - 'https://example.com/'.length)}`;
    const ok = await send('POST', '/v1/contacts', 'form', {
      username: 'u',
      phone_number: '1',
      avatar_url: url(2048),
    });
    expect(ok.status).toBe(201);
    await expectRefused(
      () => send('POST', '/v1/contacts', 'form', { username: 'u', phone_number: '1', avatar_url: url(2049) }),
      400,
      'parameter_invalid',
      2048,
      'avatar_url',
    );
  });

  it('bounds reaction names (64), filenames (255) and MIME types (127)', async () => {
    const name = (n: number) => 'r'.repeat(n);
    expect(
      (await send('PUT', `/v1/messages/${messageId}`, 'form', { [`reactions[${name(64)}][]`]: 'u' })).status,
    ).toBe(200);
    await expectRefused(
      () => send('PUT', `/v1/messages/${messageId}`, 'form', `reactions[${name(65)}][]=u`),
      400,
      'parameter_invalid',
      64,
    );
    const attachment = (filename: string, file_type = 'a/b') => ({
      attachments: [{ filename, file_url: 'https://example.com/a', file_type }],
    });
    expect((await send('PUT', `/v1/messages/${messageId}`, 'json', attachment('f'.repeat(255)))).status).toBe(
      200,
    );
    await expectRefused(
      () => send('PUT', `/v1/messages/${messageId}`, 'json', attachment('f'.repeat(256))),
      400,
      'parameter_invalid',
      255,
      'attachments[0][filename]',
    );
    const type = (n: number) => `a/${'b'.repeat(n - 2)}`;
    expect((await send('PUT', `/v1/messages/${messageId}`, 'json', attachment('f', type(127)))).status).toBe(
      200,
    );
    await expectRefused(
      () => send('PUT', `/v1/messages/${messageId}`, 'json', attachment('f', type(128))),
      400,
      'parameter_invalid',
      127,
      'attachments[0][file_type]',
    );
  });

  it(`bounds the Authorization header to ${MAX_TOKEN_LENGTH} characters`, async () => {
    const header = (n: number) => `Bearer ${'t'.repeat(n - 'Bearer '.length)}`;
    const ok = await h.send({
      method: 'GET',
      path: '/v1/contacts?limit=1',
      headers: { Authorization: header(MAX_TOKEN_LENGTH) },
    });
    expect(ok.status).toBe(200);
    const res = await h.send({
      method: 'GET',
      path: '/v1/contacts?limit=1',
      headers: { Authorization: header(MAX_TOKEN_LENGTH + 1) },
    });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text)).toEqual(
      expect.objectContaining({ code: 'invalid_token', message: expect.stringMatching(/too long/) }),
    );
  });
});

describe('Bounds of one message (so that no record grows without end)', () => {
  const attachments = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ filename: `f${i}`, file_url: 'https://example.com/f' }));

  it(`takes at most ${LIMITS.attachmentsPerRequest} attachments per request and ${LIMITS.attachmentsPerMessage} per message`, async () => {
    await expectRefused(
      () =>
        send('PUT', `/v1/messages/${messageId}`, 'json', {
          attachments: attachments(LIMITS.attachmentsPerRequest + 1),
        }),
      400,
      'parameter_invalid',
      LIMITS.attachmentsPerRequest,
      'attachments',
    );
    for (let i = 0; i < LIMITS.attachmentsPerMessage / LIMITS.attachmentsPerRequest; i++) {
      expect(
        (
          await send('PUT', `/v1/messages/${messageId}`, 'json', {
            attachments: attachments(LIMITS.attachmentsPerRequest),
          })
        ).status,
      ).toBe(200);
    }
    await expectRefused(
      () => send('PUT', `/v1/messages/${messageId}`, 'json', { attachments: attachments(1) }),
      400,
      'parameter_invalid',
      LIMITS.attachmentsPerMessage,
      'attachments',
    );
  });

  it(`holds at most ${LIMITS.reactionNamesPerMessage} reaction names and ${LIMITS.usernamesPerReaction} usernames per reaction`, async () => {
    const names = (from: number, n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`r${from + i}`, ['u']]));
    expect(
      (
        await send('PUT', `/v1/messages/${messageId}`, 'json', {
          reactions: names(0, LIMITS.reactionNamesPerMessage),
        })
      ).status,
    ).toBe(200);
    await expectRefused(
      () =>
        send('PUT', `/v1/messages/${messageId}`, 'json', {
          reactions: names(LIMITS.reactionNamesPerMessage, 1),
        }),
      400,
      'parameter_invalid',
      LIMITS.reactionNamesPerMessage,
      'reactions',
    );
    // r0 holds 'u' already: 499 more make it full, sent 100 at a time (the list limit).
    const users = Array.from({ length: LIMITS.usernamesPerReaction - 1 }, (_, j) => `user${j}`);
    for (let i = 0; i < users.length; i += 100) {
      const res = await send('PUT', `/v1/messages/${messageId}`, 'json', {
        reactions: { r0: users.slice(i, i + 100) },
      });
      expect(res.status).toBe(200);
    }
    await expectRefused(
      () => send('PUT', `/v1/messages/${messageId}`, 'json', { reactions: { r0: ['one_more'] } }),
      400,
      'parameter_invalid',
      LIMITS.usernamesPerReaction,
      'reactions[r0]',
    );
  });
});
