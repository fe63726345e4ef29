/**
 * fast-check arbitraries for hostile requests (issue 6). A generated request is plain data; ids
 * are symbolic (`{pool, owner, index}`, written into strings as `@@pool.owner.index@@`) and are
 * resolved against the live store when the request is sent, so that a run mixes requests that
 * hit real records with requests that hit nothing.
 */
import fc from 'fast-check';

export type Owner = 'a' | 'b';
type Pool = 'contact' | 'conversation' | 'message';

/** A reference to the n-th known record of a pool in a token's world, resolved when sent. */
const ref = (pool: Pool, owner: Owner, index: number) => `@@${pool}.${owner}.${index}@@`;
export const REF = /@@(contact|conversation|message)\.(a|b)\.(\d+)@@/g;

/** Percent-encoding that survives lone surrogates (encodeURIComponent throws on them). */
export function pct(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
  }
}

export type Body =
  | { kind: 'form'; pairs: [string, string][]; type: string }
  | { kind: 'multipart'; pairs: [string, string][]; type: string }
  | { kind: 'json'; value: unknown; type: string }
  | { kind: 'raw'; text: string; type: string }
  | { kind: 'bytes'; bytes: Uint8Array; type: string }
  /** The world of a token as `GET /__mock/state` shows it, with one field changed (or none). */
  | { kind: 'state'; owner: Owner; field: number; value: unknown; mutate: boolean };

export interface Step {
  method: string;
  /** With `{id}` where an id goes. */
  route: string;
  id: string;
  query: [string, string][] | undefined;
  body: Body | undefined;
  /** The Authorization header, `undefined` for none; `Bearer {a}` names the run's tokens. */
  authorization: string | undefined;
  headers: [string, string][];
}

const owner = fc.constantFrom<Owner>('a', 'a', 'a', 'b');
const pool = fc.constantFrom<Pool>('contact', 'conversation', 'message');
const refTo = (p: Pool) => fc.tuple(owner, fc.nat({ max: 60 })).map(([o, i]) => ref(p, o, i));
const anyRef = fc.tuple(pool, owner, fc.nat({ max: 60 })).map(([p, o, i]) => ref(p, o, i));

const long = (unit: string) => fc.integer({ min: 65, max: 6000 }).map((n) => unit.repeat(n));

/** Strings a client might send, from ordinary to hostile. */
const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('', ' ', '\u0000', '\r\n', '\t', '\u202e', '\ufeff', '\ud800', '%00'),
  },
  { weight: 1, arbitrary: fc.oneof(long('x'), long('é'), long('🙂'), long('a\u0301')) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '<script>alert(1)</script>',
      "' OR 1=1 --",
      '${7*7}',
      '../../etc/passwd',
      'javascript:alert(1)',
      'true',
      'false',
      'null',
      '-1',
      '0',
      '1e309',
      '9007199254740993',
      'NaN',
    ),
  },
);

/** Values shaped like each field, valid or nearly so, so that many requests are accepted. */
const fieldValue: Record<string, fc.Arbitrary<string>> = {
  username: fc.oneof(fc.string({ minLength: 1, maxLength: 64 }), text),
  phone_number: fc.oneof(fc.stringMatching(/^[0-9 +\-().]{1,32}$/), text),
  avatar_url: fc.oneof(fc.webUrl(), fc.constant(''), text),
  display_name: fc.oneof(fc.string({ maxLength: 64 }), text),
  message: fc.oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }), text),
  conversation_id: fc.oneof({ weight: 4, arbitrary: refTo('conversation') }, { weight: 1, arbitrary: text }),
  starting_after: fc.oneof(anyRef, text),
  ending_before: fc.oneof(anyRef, text),
  limit: fc.oneof(
    fc.integer({ min: 1, max: 100 }).map(String),
    fc.constantFrom('0', '101', '-1', '1.5', '1e2', '0x10', '99999999999999999999', ' 5', ''),
  ),
  active: fc.constantFrom('true', 'false', 'TRUE', '1', 'yes', ''),
  all: fc.constantFrom('true', 'false', 'maybe'),
};

const FIELDS = Object.keys(fieldValue);
const reactionName = fc.oneof(
  fc.constantFrom('thumbs_up', 'heart', '+1', 'tada', 'fire'),
  fc.stringMatching(/^[a-z0-9_+-]{1,64}$/),
  text,
);
const attachmentField = fc.oneof(
  fc.constantFrom('filename', 'file_url', 'file_type', 'file_size', 'id', 'message_id'),
  text,
);
const attachmentValue = fc.oneof(
  fc.constantFrom('a.pdf', 'https://example.com/a.pdf', 'image/png', '12', '-1', 'text/plain', ''),
  fc.webUrl(),
  text,
);

/** Form keys, bracket abuse included. */
const formKey = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...FIELDS) },
  { weight: 3, arbitrary: reactionName.map((n) => `reactions[${n}][]`) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.oneof(fc.nat({ max: 3 }), fc.constantFrom(10, 99, 100, 99999999)), attachmentField)
      .map(([i, f]) => `attachments[${i}][${f}]`),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'reactions[__proto__][]',
      'reactions[constructor][]',
      'reactions[constructor][prototype][]',
      'constructor[prototype][x]',
      '__proto__[polluted]',
      '__proto__',
      '%5F%5Fproto%5F%5F[x]',
      'attachments[99999999][filename]',
      'attachments[-1][filename]',
      'attachments[][filename]',
      'attachments[0][__proto__][x]',
      'a[b][c][d][e][f][g]',
      'reactions',
      'reactions[]',
      'reactions[heart]',
      'reactions[heart][][x]',
      'attachments',
      'attachments[]',
      'message[]',
      'username[x]',
      '[]',
      '',
      '=',
      '&',
      'id',
      'created_at',
    ),
  },
  { weight: 1, arbitrary: text },
);

const formValue = fc.oneof(
  { weight: 3, arbitrary: fc.oneof(...Object.values(fieldValue)) },
  { weight: 2, arbitrary: attachmentValue },
  { weight: 1, arbitrary: anyRef },
);

const pairs = fc.oneof(
  { weight: 8, arbitrary: fc.array(fc.tuple(formKey, formValue), { maxLength: 8 }) },
  // Thousands of keys, around the parameter limit.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 900, max: 2500 }), fc.constantFrom('k', 'reactions[r', 'attachments[0][f'))
      .map(([n, prefix]) =>
        Array.from({ length: n }, (_, i): [string, string] => [
          prefix === 'k' ? `k${i}` : `${prefix}${i}]${prefix.startsWith('reactions') ? '[]' : ''}`,
          'v',
        ]),
      ),
  },
);

/** JSON values of any shape, hostile numbers and keys included. */
const jsonLeaf = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, -1, 2 ** 53, 2 ** 53 + 2, 1e308, -1e308, 1.5, true, false, null),
);
const jsonAny: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    jsonLeaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(fc.constantFrom('__proto__', 'constructor', 'filename', 'file_url'), text),
      tie('value'),
      {
        maxKeys: 4,
      },
    ),
  ),
})).value;

const attachmentObject = fc.record(
  {
    filename: fc.oneof(fc.constant('a.pdf'), jsonLeaf),
    file_url: fc.oneof(fc.webUrl(), jsonLeaf),
    file_type: fc.oneof(fc.constantFrom('image/png', 'application/pdf'), jsonLeaf),
    file_size: fc.oneof(fc.nat(), jsonLeaf),
  },
  { requiredKeys: [] },
);

const jsonFieldValue = fc.oneof(
  { weight: 5, arbitrary: fc.oneof(...Object.values(fieldValue)) },
  { weight: 2, arbitrary: fc.array(attachmentObject, { maxLength: 12 }) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.dictionary(reactionName, fc.oneof(fc.array(fieldValue.username!, { maxLength: 3 }), jsonLeaf), {
        maxKeys: 3,
      }),
      fc.array(
        fc.dictionary(reactionName, fc.array(fieldValue.username!, { maxLength: 3 }), { maxKeys: 2 }),
        {
          maxLength: 3,
        },
      ),
    ),
  },
  { weight: 2, arbitrary: jsonAny },
);

const jsonObject = fc.dictionary(
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...FIELDS, 'reactions', 'attachments') },
    { weight: 1, arbitrary: text },
  ),
  jsonFieldValue,
  { maxKeys: 6 },
);

const nested = (open: string, close: string, inner: string) =>
  fc.integer({ min: 4, max: 40_000 }).map((n) => open.repeat(n) + inner + close.repeat(n));

const malformed = fc.oneof(
  fc.constantFrom(
    '{',
    '{"username":',
    '{"a":1,}',
    "{'a':1}",
    'null',
    '[]',
    '"x"',
    '1',
    'true',
    '\u0000',
    '{"a":1}{"b":2}',
    '{"username":"a"',
    '\ufeff{"username":"a","phone_number":"1"}',
    '{"username":"\\ud800","phone_number":"1"}',
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '{"reactions":{"__proto__":["x"]}}',
    'username=a&phone_number=1',
    '%',
    '%E0%A4%A',
    'a=%',
    '--X\r\nContent-Disposition: form-data; name="username"\r\n\r\na\r\n--X--\r\n',
    '--X\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\na\r\n--X--\r\n',
  ),
  nested('{"a":', '}', '1'),
  nested('[', ']', ''),
  nested('{"reactions":', '}', '{}'),
  fc.integer({ min: 4, max: 12 }).map((n) => `${'a'}${'[b]'.repeat(n)}=1`),
  // Over the 100 kB body limit.
  fc.integer({ min: 100 * 1024 + 1, max: 160 * 1024 }).map((n) => `message=${'x'.repeat(n)}`),
  fc.integer({ min: 100 * 1024 + 1, max: 160 * 1024 }).map((n) => JSON.stringify({ message: 'x'.repeat(n) })),
);

const contentType = (natural: string) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(natural) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'application/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=X',
        'multipart/form-data',
        'text/plain',
        'application/xml',
        '',
        'application/json; charset=utf-16',
        'application/json; charset=latin1',
        'application/json; charset=utf-7',
        'application/x-www-form-urlencoded; charset=iso-8859-1',
        'application/merge-patch+json',
        'APPLICATION/JSON',
        'application/json;;;',
        '*/*',
        'application/octet-stream',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  );

const body: fc.Arbitrary<Body> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('form' as const),
      pairs,
      type: contentType('application/x-www-form-urlencoded'),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('json' as const),
      value: jsonObject,
      type: contentType('application/json'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('multipart' as const),
      pairs,
      type: contentType('multipart/form-data; boundary=----fuzz'),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      text: malformed,
      type: contentType('application/json'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('bytes' as const),
      bytes: fc.uint8Array({ maxLength: 400 }),
      type: contentType('application/octet-stream'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('state' as const),
      owner,
      field: fc.nat(),
      value: fc.oneof(jsonLeaf, jsonAny),
      mutate: fc.constant(true),
    }),
  },
);

const idSegment = fc.oneof(
  { weight: 8, arbitrary: anyRef },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'AAAAAAAAAAAAAAAA',
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      '..',
      '%2e%2e',
      '%00',
      '%2F',
      '%E0%A4%A',
      '%',
      'a%20b',
      '%F0%9F%99%82',
      'x'.repeat(5000),
    ),
  },
  { weight: 1, arbitrary: text.map((t) => pct(t.slice(0, 300)).replace(/%2F/g, '/')) },
);

const ROUTES = [
  '/v1/contacts',
  '/v1/contacts/{id}',
  '/v1/messages',
  '/v1/messages/{id}',
  '/__mock/reset',
  '/__mock/state',
  '/__mock/requests',
];
const route = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom(...ROUTES) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '/',
      '/v1',
      '/v1/',
      '/v1/contacts/',
      '/v1/contacts/{id}/',
      '/v1/contacts/{id}/messages',
      '/v2/contacts',
      '/V1/CONTACTS',
      '/v1//contacts',
      '/v1/%2e%2e/contacts',
      '/__mock',
      '/__mock/',
      '/__mock/{id}',
      '/__proto__',
      '/v1/__proto__',
      '/openapi.json',
      '/v1/contacts%00',
    ),
  },
);

const method = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE') },
  { weight: 1, arbitrary: fc.constantFrom('HEAD', 'PATCH', 'OPTIONS', 'TRACE') },
);

const authorization = fc.oneof(
  { weight: 14, arbitrary: fc.constant('Bearer {a}') },
  { weight: 3, arbitrary: fc.constant('Bearer {b}') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      undefined,
      '',
      ' ',
      'Bearer',
      'Bearer ',
      'Bearer  {a}',
      'bearer {a}',
      'BEARER {a}',
      'Bearer {a} ',
      'Basic YTpi',
      'Bearer a b',
      'Bearer {a},Bearer {b}',
      'Bearer ../../etc',
      'Bearer __proto__',
      'Bearer constructor',
      'Bearer =',
      'Bearer a==',
      'Bearer é',
      'Token {a}',
      `Bearer ${'x'.repeat(5000)}`,
      `Bearer ${'x'.repeat(4089)}`,
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 40 }) },
);

/** Header values Node will put on the wire: tab, printable ASCII and Latin-1 only. */
const headerText = fc.string({ unit: 'grapheme-ascii', maxLength: 60 });
const extraHeader = fc.oneof(
  fc.tuple(
    fc.constant('Content-Encoding'),
    fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', ''),
  ),
  fc.tuple(
    fc.constant('Prefer'),
    // Every `Prefer` but `code=5xx`, which asks for a 5xx on purpose.
    fc.constantFrom(
      '',
      'return=minimal',
      'code=abc',
      'code=200',
      'code=404',
      'code=429',
      'delay=abc',
      'delay=-1',
      'delay=99999999',
      'delay=0',
      'code=404, delay=0',
      'x'.repeat(300),
    ),
  ),
  fc.tuple(
    fc.constantFrom(
      'X-HTTP-Method-Override',
      'X-Forwarded-For',
      'Origin',
      'Accept',
      'Cookie',
      'Host',
      'Range',
    ),
    headerText,
  ),
);

// ---- well-formed requests, so that a good share reaches the store and changes it ----

const username = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 });
const validValue: Record<string, fc.Arbitrary<string>> = {
  username,
  phone_number: fc.stringMatching(/^[0-9 +\-().]{1,32}$/),
  avatar_url: fc.webUrl(),
  display_name: fc.string({ unit: 'grapheme', maxLength: 30 }),
  message: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 120 }),
};
const validReaction = fc.tuple(
  fc.constantFrom('thumbs_up', 'heart', '+1', 'tada', '__init', 'constructor', 'to_string'),
  fc.array(fc.constantFrom('alice', 'bob', 'carol', 'dave'), { minLength: 1, maxLength: 3 }),
);
const validAttachment = fc.record(
  {
    filename: fc.constantFrom('a.pdf', 'photo.png', 'notes.txt'),
    file_url: fc.webUrl(),
    file_type: fc.constantFrom('image/png', 'application/pdf'),
    file_size: fc.nat({ max: 10_000_000 }),
  },
  { requiredKeys: ['filename', 'file_url'] },
);

type Fields = { pairs: [string, string][]; json: Record<string, unknown> };

const fields = (
  plain: [string, fc.Arbitrary<string>, boolean][],
  reactions = false,
  attachments = false,
): fc.Arbitrary<Fields> =>
  fc
    .tuple(
      fc.tuple(
        ...plain.map(([, arb, required]) =>
          required ? arb.map((v) => v as string | undefined) : fc.option(arb, { nil: undefined }),
        ),
      ),
      reactions ? fc.array(validReaction, { maxLength: 2 }) : fc.constant([]),
      attachments ? fc.array(validAttachment, { maxLength: 2 }) : fc.constant([]),
    )
    .map(([values, rs, as]) => {
      const pairs: [string, string][] = [];
      const json: Record<string, unknown> = {};
      plain.forEach(([name], i) => {
        const v = values[i];
        if (v !== undefined) {
          pairs.push([name, v]);
          json[name] = v;
        }
      });
      for (const [name, users] of rs) for (const u of users) pairs.push([`reactions[${name}][]`, u]);
      if (rs.length > 0) json.reactions = rs.map(([name, users]) => ({ [name]: users }));
      as.forEach((a, i) => {
        for (const [k, v] of Object.entries(a)) pairs.push([`attachments[${i}][${k}]`, String(v)]);
      });
      if (as.length > 0) json.attachments = as;
      return { pairs, json };
    });

/** One hostile pair, now and then, in an otherwise valid body. */
const spoil = fc.option(fc.tuple(formKey, formValue), { freq: 5, nil: undefined });

const encoded = (f: fc.Arbitrary<Fields>): fc.Arbitrary<Body> =>
  fc
    .tuple(f, fc.constantFrom('form', 'form', 'json', 'json', 'multipart'), spoil)
    .map(([{ pairs, json }, kind, extra]) => {
      if (kind === 'json') {
        return { kind, value: extra ? { ...json, [extra[0]]: extra[1] } : json, type: 'application/json' };
      }
      const all = extra ? [...pairs, extra] : pairs;
      return kind === 'form'
        ? { kind, pairs: all, type: 'application/x-www-form-urlencoded' }
        : { kind, pairs: all, type: 'multipart/form-data; boundary=----fuzz' };
    });

const validAuth = fc.constantFrom('Bearer {a}', 'Bearer {a}', 'Bearer {a}', 'Bearer {b}');
const ownRef = (p: Pool) =>
  fc
    .tuple(fc.constantFrom<Owner>('a', 'a', 'a', 'a', 'b'), fc.nat({ max: 60 }))
    .map(([o, i]) => ref(p, o, i));

const valid = (
  method: string,
  route: string,
  options: {
    id?: fc.Arbitrary<string>;
    body?: fc.Arbitrary<Body>;
    query?: fc.Arbitrary<[string, string][]>;
  } = {},
): fc.Arbitrary<Step> =>
  fc.record({
    method: fc.constant(method),
    route: fc.constant(route),
    id: options.id ?? fc.constant(''),
    query: options.query ? fc.option(options.query, { freq: 4, nil: undefined }) : fc.constant(undefined),
    body: options.body ? options.body.map((b) => b as Body | undefined) : fc.constant(undefined),
    authorization: validAuth,
    headers: fc.constant([]),
  });

const pageQuery = (extra: fc.Arbitrary<[string, string]>[]) =>
  fc.array(
    fc.oneof(
      fc.integer({ min: 1, max: 100 }).map((n): [string, string] => ['limit', String(n)]),
      anyRef.map((r): [string, string] => ['starting_after', r]),
      anyRef.map((r): [string, string] => ['ending_before', r]),
      ...extra,
    ),
    { maxLength: 2 },
  );

const validStep: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: valid('POST', '/v1/contacts', {
      body: encoded(
        fields([
          ['username', validValue.username!, true],
          ['phone_number', validValue.phone_number!, true],
          ['avatar_url', validValue.avatar_url!, false],
          ['display_name', validValue.display_name!, false],
        ]),
      ),
    }),
  },
  {
    weight: 6,
    arbitrary: valid('POST', '/v1/messages', {
      body: encoded(
        fields(
          [
            ['conversation_id', ownRef('conversation'), true],
            ['message', validValue.message!, true],
          ],
          false,
          true,
        ),
      ),
    }),
  },
  {
    weight: 5,
    arbitrary: valid('PUT', '/v1/messages/{id}', {
      id: ownRef('message'),
      body: encoded(fields([['message', validValue.message!, false]], true, true)),
    }),
  },
  {
    weight: 2,
    arbitrary: valid('PUT', '/v1/contacts/{id}', {
      id: ownRef('contact'),
      body: encoded(fields([['display_name', validValue.display_name!, false]])),
    }),
  },
  { weight: 2, arbitrary: valid('DELETE', '/v1/messages/{id}', { id: ownRef('message') }) },
  { weight: 1, arbitrary: valid('DELETE', '/v1/contacts/{id}', { id: ownRef('contact') }) },
  {
    weight: 2,
    arbitrary: valid('GET', '/v1/contacts', {
      query: pageQuery([fc.constantFrom<[string, string]>(['active', 'true'], ['active', 'false'])]),
    }),
  },
  {
    weight: 2,
    arbitrary: valid('GET', '/v1/messages', {
      query: pageQuery([ownRef('conversation').map((r): [string, string] => ['conversation_id', r])]),
    }),
  },
  { weight: 1, arbitrary: valid('GET', '/v1/contacts/{id}', { id: ownRef('contact') }) },
  { weight: 1, arbitrary: valid('GET', '/v1/messages/{id}', { id: ownRef('message') }) },
  { weight: 1, arbitrary: valid('POST', '/__mock/reset') },
  { weight: 1, arbitrary: valid('GET', '/__mock/state') },
  {
    weight: 1,
    arbitrary: valid('GET', '/__mock/requests', {
      query: fc.integer({ min: 1, max: 300 }).map((n): [string, string][] => [['limit', String(n)]]),
    }),
  },
  {
    weight: 1,
    arbitrary: valid('PUT', '/__mock/state', {
      body: fc.record({
        kind: fc.constant('state' as const),
        owner: fc.constantFrom<Owner>('a', 'b'),
        field: fc.nat(),
        value: fc.constant(null),
        mutate: fc.constant(false),
      }),
    }),
  },
);

const hostileStep: fc.Arbitrary<Step> = fc.record({
  method,
  route,
  id: idSegment,
  // Short: a URL beyond Node's 16 kB header limit is refused before the app sees it.
  query: fc.option(fc.array(fc.tuple(formKey, formValue), { maxLength: 6 }), { freq: 3, nil: undefined }),
  body: fc.option(body, { freq: 4, nil: undefined }),
  authorization,
  headers: fc.array(extraHeader, { maxLength: 2 }),
});

/** About half well-formed (each possibly spoiled by one hostile pair), half anything at all. */
export const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 1, arbitrary: validStep },
  { weight: 1, arbitrary: hostileStep },
);
