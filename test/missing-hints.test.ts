import type request from 'supertest';
import { api, createContact, makeApp } from './helpers';

/**
 * The hint of a missing parameter shows it in the encoding of the request: form syntax to a form
 * (or a query), a JSON body to JSON, named fields to multipart. A hint is followed as it reads:
 * what it shows, added to the request, makes the request succeed.
 */
type Encoding = 'form' | 'json' | 'multipart';
type Fields = Record<string, unknown>;

/** `fields` sent in `encoding`; nested values as a form names them (`errors[status]`). */
function sent(test: request.Test, encoding: Encoding, fields: Fields): request.Test {
  if (encoding === 'json') return test.send(fields);
  const flat = flatten(fields);
  if (encoding === 'form') return test.type('form').send(new URLSearchParams(flat).toString());
  for (const [name, value] of flat) test.field(name, value);
  return test;
}

function flatten(fields: Fields, prefix = ''): [string, string][] {
  return Object.entries(fields).flatMap(([key, value]) => {
    const name = prefix ? `${prefix}[${key}]` : key;
    return value !== null && typeof value === 'object'
      ? flatten(value as Fields, name)
      : [[name, String(value)] as [string, string]];
  });
}

/** The fields a hint shows, read back from its words in each encoding. */
function followed(hint: string, encoding: Encoding): Fields {
  if (encoding === 'json') return JSON.parse(hint) as Fields;
  const pairs: [string, string][] =
    encoding === 'form'
      ? [...new URLSearchParams(hint)]
      : (() => {
          const [, names, values] =
            /^(?:a field|fields) named (.+), with (?:a value|values) such as (.+)$/.exec(hint)!;
          const valueList = values!.split(' and ');
          return names!.split(' and ').map((name, i) => [name, valueList[i]!] as [string, string]);
        })();
  const fields: Fields = {};
  for (const [name, value] of pairs) {
    const keys = name.split(/\]?\[|\]$/).filter(Boolean);
    let node = fields;
    for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Fields;
    node[keys.at(-1)!] = value;
  }
  return fields;
}

function merged(a: Fields, b: Fields): Fields {
  const out: Fields = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = out[key];
    out[key] =
      mine && typeof mine === 'object' && value && typeof value === 'object'
        ? merged(mine as Fields, value as Fields)
        : value;
  }
  return out;
}

const CASES: {
  what: string;
  method: 'post' | 'put';
  path: string;
  fields: Fields;
  param: string;
  hints: Record<Encoding, string>;
  ok: number;
}[] = [
  {
    what: 'a contact without phone_number',
    method: 'post',
    path: '/v1/contacts',
    fields: { username: 'hint' },
    param: 'phone_number',
    hints: {
      form: 'phone_number=%2B15550102030',
      json: '{"phone_number": "+15550102030"}',
      multipart: 'a field named phone_number, with a value such as +15550102030',
    },
    ok: 201,
  },
  {
    what: 'an error switch without its count',
    method: 'put',
    path: '/__mock/switches',
    fields: { errors: { status: '503' } },
    param: 'errors[count]',
    hints: {
      form: 'errors[status]=503&errors[count]=2',
      json: '{"errors": {"status": 503, "count": 2}}',
      multipart: 'fields named errors[status] and errors[count], with values such as 503 and 2',
    },
    ok: 200,
  },
];

describe.each(CASES)('The hint for $what', ({ method, path, fields, param, hints, ok }) => {
  it.each(['form', 'json', 'multipart'] as const)(
    'in %s shows it so, and works as shown',
    async (encoding) => {
      const app = makeApp();
      const res = await sent(api(app)[method](path), encoding, fields).expect(400);
      expect(res.body).toMatchObject({ code: 'parameter_missing', param });
      expect(res.body.message).toBe(`Missing required parameter: ${param}. Send it as ${hints[encoding]}.`);
      const hint = /Send it as (.*)\.$/.exec(res.body.message as string)![1]!;
      await sent(api(app)[method](path), encoding, merged(fields, followed(hint, encoding))).expect(ok);
    },
  );
});

describe('The hint for an attachment without its file_url', () => {
  it.each([
    ['form', 'attachments[1][file_url]=https://example.com/a.pdf'],
    ['json', '{"attachments": […, {"file_url": "https://example.com/a.pdf"}]}'],
    ['multipart', 'a field named attachments[1][file_url], with a value such as https://example.com/a.pdf'],
  ] as const)('in %s names the attachment by its place', async (encoding, hint) => {
    const app = makeApp();
    const { conversation_id } = await createContact(app);
    const attachments = { 0: { filename: 'a', file_url: 'https://e.com/a' }, 1: { filename: 'b' } };
    const res = await sent(api(app).post('/v1/messages'), encoding, {
      conversation_id,
      message: 'hi',
      attachments: encoding === 'json' ? Object.values(attachments) : attachments,
    }).expect(400);
    expect(res.body.message).toBe(
      `Missing required parameter: attachments[1][file_url]. Send it as ${hint}.`,
    );
  });
});
