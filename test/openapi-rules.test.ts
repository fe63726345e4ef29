import Ajv2020 from 'ajv/dist/2020';
import type request from 'supertest';
import { openApiDocument } from '../src/openapi';
import { HTTP_URL } from '../src/input/params';
import {
  DISPLAY_NAME,
  FILE_SIZE,
  FILE_TYPE,
  FILENAME,
  ID,
  MESSAGE_TEXT,
  PHONE_NUMBER,
  REACTION_NAME,
  RECORD_ID,
  USERNAME,
  type IntegerRule,
  type StringRule,
} from '../src/resources/formats';
import { api, createContact, makeApp, sendMessage } from './helpers';
import { LIMITS, PAGE_SIZE } from '../src/input/limits';

/**
 * The OpenAPI document and the code agree on every field: the document's limits are the rules of
 * src/input/operations.ts, and the live mock accepts a value the document accepts and refuses one it refuses.
 */

// A schema is JSON of any shape; `any` lets the walk below read it without a cast at every step.
type Schema = Record<string, any>;

const document = openApiDocument() as Schema;
const ajv = new Ajv2020({ strict: false, validateFormats: false });

/** Every schema of every operation, by where it is: `createContact body.username`. */
function fields(doc: Schema): Map<string, Schema> {
  const found = new Map<string, Schema>();
  const resolve = (schema: Schema): Schema =>
    schema.$ref === undefined
      ? schema
      : resolve(
          (schema.$ref as string)
            .split('/')
            .slice(1)
            .reduce((at: Schema, key) => at[key], doc),
        );
  const collect = (schema: Schema, at: string): void => {
    found.set(at, resolve(schema));
    descend(resolve(schema), at);
  };
  const descend = (schema: Schema, at: string): void => {
    for (const branch of schema.anyOf ?? schema.oneOf ?? []) descend(resolve(branch), at);
    if (schema.items) collect(schema.items, `${at}[]`);
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      collect(property as Schema, `${at}.${name}`);
    }
    // Property names are strings whether their schema says so or not.
    if (schema.propertyNames) collect({ type: 'string', ...schema.propertyNames }, `${at}{name}`);
    if (typeof schema.additionalProperties === 'object') collect(schema.additionalProperties, `${at}{}`);
  };
  for (const item of Object.values(doc.paths as Record<string, Schema>)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters') continue;
      for (const parameter of [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve)) {
        collect(parameter.schema, `${op.operationId} ${parameter.in}.${parameter.name}`);
      }
      const content = Object.values(op.requestBody?.content ?? {}) as Schema[];
      if (content[0]) collect(content[0].schema, `${op.operationId} body`);
    }
  }
  return found;
}

const isString = (schema: Schema) => [schema.type].flat().includes('string');

/** The string schema of a field: the field itself, or its string branch when it may also be empty. */
function stringBranch(schema: Schema): Schema | undefined {
  if (isString(schema)) return schema;
  return ((schema.anyOf ?? schema.oneOf ?? []) as Schema[]).find(isString);
}

/** A path id is looked up as it is (unknown: 404); `all` and `active` are compared with words. */
const ANY = 'any string';
const BOOLEAN = 'true or false';
type Expected = StringRule | typeof ANY | typeof BOOLEAN;

const attachmentRules = (at: string): Record<string, Expected> => ({
  [`${at}.filename`]: FILENAME,
  [`${at}.file_url`]: HTTP_URL,
  [`${at}.file_type`]: FILE_TYPE,
});
const reactionRules = (at: string): Record<string, Expected> => ({
  [`${at}{name}`]: REACTION_NAME,
  [`${at}{}[]`]: USERNAME,
});

/** Every string field of every operation, and the rule the code checks it with. */
const STRING_FIELDS: Record<string, Expected> = {
  'listContacts query.starting_after': ID,
  'listContacts query.ending_before': ID,
  'listContacts query.active': BOOLEAN,
  'createContact body.username': USERNAME,
  'createContact body.phone_number': PHONE_NUMBER,
  'createContact body.avatar_url': HTTP_URL,
  'createContact body.display_name': DISPLAY_NAME,
  'retrieveContact path.id': ANY,
  'updateContact path.id': ANY,
  'updateContact body.display_name': DISPLAY_NAME,
  'deleteContact path.id': ANY,
  'listMessages query.starting_after': ID,
  'listMessages query.ending_before': ID,
  'listMessages query.conversation_id': ID,
  'sendMessage body.conversation_id': ID,
  'sendMessage body.message': MESSAGE_TEXT,
  ...attachmentRules('sendMessage body.attachments[]'),
  'retrieveMessage path.id': ANY,
  'updateMessage path.id': ANY,
  'updateMessage body.message': MESSAGE_TEXT,
  ...reactionRules('updateMessage body.reactions[]'),
  ...reactionRules('updateMessage body.reactions'),
  ...attachmentRules('updateMessage body.attachments[]'),
  'deleteMessage path.id': ANY,
  'resetWorld query.all': BOOLEAN,
  'putState body.contacts[].id': RECORD_ID,
  'putState body.contacts[].username': USERNAME,
  'putState body.contacts[].phone_number': PHONE_NUMBER,
  'putState body.contacts[].avatar_url': HTTP_URL,
  'putState body.contacts[].display_name': DISPLAY_NAME,
  'putState body.contacts[].conversation_id': RECORD_ID,
  'putState body.messages[].id': RECORD_ID,
  'putState body.messages[].conversation_id': RECORD_ID,
  'putState body.messages[].message': MESSAGE_TEXT,
  ...reactionRules('putState body.messages[].reactions[]'),
  ...attachmentRules('putState body.messages[].attachments[]'),
  'putState body.messages[].attachments[].id': RECORD_ID,
  'putState body.messages[].attachments[].message_id': RECORD_ID,
};

function limitsOf(schema: Schema): Schema {
  const { minLength, maxLength, pattern, enum: words } = schema;
  return JSON.parse(JSON.stringify({ minLength, maxLength, pattern, enum: words }));
}

function limitsFor(expected: Expected): Schema {
  if (expected === ANY) return {};
  if (expected === BOOLEAN) return { enum: ['true', 'false'] };
  return limitsOf({ minLength: expected.min, maxLength: expected.max, pattern: expected.pattern?.source });
}

/** Where the document's string fields and the code's rules differ, one line each. */
function disagreements(doc: Schema): string[] {
  const strings = [...fields(doc)].filter(([, schema]) => stringBranch(schema) !== undefined);
  const found = new Map(strings.map(([at, schema]) => [at, limitsOf(stringBranch(schema)!)]));
  const lines: string[] = [];
  for (const at of new Set([...found.keys(), ...Object.keys(STRING_FIELDS)])) {
    const got = found.get(at);
    const expected = STRING_FIELDS[at];
    if (got === undefined) lines.push(`${at}: not in the document`);
    // A boolean sent as text (a form's, a query's) is the words true and false, not a rule's string.
    else if (expected === undefined && JSON.stringify(got) === JSON.stringify(limitsFor(BOOLEAN))) continue;
    else if (expected === undefined) lines.push(`${at}: a string field this test has no rule for`);
    else if (JSON.stringify(got) !== JSON.stringify(limitsFor(expected))) {
      lines.push(`${at}: ${JSON.stringify(got)}, the code checks ${JSON.stringify(limitsFor(expected))}`);
    }
  }
  return lines;
}

const documented = fields(document);
const docAccepts = (at: string, value: unknown): boolean =>
  ajv.validate(documented.get(at)!, value) as boolean;

describe('The document gives the limits the code checks', () => {
  it('for every string field of every operation: minLength, maxLength and pattern of its rule', () => {
    expect(disagreements(document)).toEqual([]);
  });

  it('notices a field that drifts from its rule (so the check above can fail)', () => {
    const broken = structuredClone(document);
    broken.components.schemas.Reaction.propertyNames = { pattern: '^[a-z0-9_+-]{1,64}$' };
    broken.components.schemas.MessageSend.properties.attachments.items.properties.file_type = {
      type: 'string',
      default: 'application/octet-stream',
    };
    broken.components.schemas.ContactCreate.properties.username.maxLength = 65;
    broken.components.schemas.ContactCreate.properties.nickname = { type: 'string' };
    expect(disagreements(broken)).toEqual([
      'createContact body.username: {"minLength":1,"maxLength":65}, the code checks {"minLength":1,"maxLength":64}',
      'createContact body.nickname: a string field this test has no rule for',
      expect.stringMatching(/^sendMessage body\.attachments\[\]\.file_type: \{\}, the code checks/),
      expect.stringMatching(/^updateMessage body\.reactions\[\]\{name\}: .*\{1,64\}/),
      expect.stringMatching(/^putState body\.messages\[\]\.reactions\[\]\{name\}: /),
    ]);
  });

  it('refuses "__proto__" as a reaction name wherever one is named', () => {
    const names = [...documented.keys()].filter((at) => at.endsWith('{name}'));
    expect(names).toHaveLength(3);
    for (const at of names) {
      expect([at, docAccepts(at, '__proto__')]).toEqual([at, false]);
      expect([at, docAccepts(at, 'thumbs_up')]).toEqual([at, true]);
    }
  });

  it('bounds file_type wherever an attachment has one', () => {
    const types = [...documented].filter(([at]) => at.endsWith('.file_type'));
    expect(types).toHaveLength(3);
    for (const [at, schema] of types) {
      expect([at, limitsOf(stringBranch(schema)!)]).toEqual([
        at,
        { minLength: FILE_TYPE.min, maxLength: FILE_TYPE.max, pattern: FILE_TYPE.pattern?.source },
      ]);
    }
  });

  it('takes its numbers from the limits the code checks', () => {
    const bounds = (rule: IntegerRule) => expect.objectContaining({ minimum: rule.min, maximum: rule.max });
    for (const list of ['listContacts', 'listMessages']) {
      expect(documented.get(`${list} query.limit`)).toEqual(bounds(PAGE_SIZE));
      expect(documented.get(`${list} query.limit`)!.default).toBe(LIMITS.pageSizeDefault);
    }
    for (const at of ['sendMessage body.attachments', 'updateMessage body.attachments']) {
      expect(documented.get(at)!.maxItems).toBe(LIMITS.attachmentsPerRequest);
      expect(documented.get(`${at}[].file_size`)).toEqual(bounds(FILE_SIZE));
    }
    expect(documented.get('putState body.messages[].attachments[].file_size')).toEqual(bounds(FILE_SIZE));
    expect(PAGE_SIZE.max).toBe(LIMITS.pageSizeMax);
  });
});

/** A world with one contact and one message of its own, for the requests of one case. */
async function world() {
  const app = makeApp();
  const contact = await createContact(app);
  const message = await sendMessage(app, contact.conversation_id);
  const state = (await api(app).get('/__mock/state').expect(200)).body;
  return { a: api(app), contact, message, state };
}
type World = Awaited<ReturnType<typeof world>>;

const attach = (fields: Record<string, unknown>) => [
  { filename: 'a.pdf', file_url: 'https://example.com/a.pdf', ...fields },
];
const url = (length: number) =>
  length === 0 ? '' : length < 20 ? undefined : `https://example.com/${'a'.repeat(length - 20)}`;
const letters = (length: number) => 'a'.repeat(length);
const digits = (length: number) => '1'.repeat(length);
const mime = (length: number) => (length < 3 ? 'a/'.slice(0, length) : `a/${'b'.repeat(length - 2)}`);

/** PUT /__mock/state with the token's own world, one field changed. */
function putState(w: World, change: (state: World['state']) => void): request.Test {
  const state = structuredClone(w.state);
  change(state);
  return w.a.put('/__mock/state').send(state);
}

interface StringCase {
  at: string;
  /** A value of that many characters that the pattern allows, if there is one. */
  fill: (length: number) => string | undefined;
  /** Values of an allowed length that the pattern refuses. */
  bad?: string[];
  send: (w: World, value: string) => PromiseLike<request.Response>;
}

const attachmentCases = (op: 'sendMessage' | 'updateMessage'): StringCase[] => {
  const send = (w: World, attachments: unknown) =>
    op === 'sendMessage'
      ? w.a
          .post('/v1/messages')
          .send({ conversation_id: w.contact.conversation_id, message: 'x', attachments })
      : w.a.put(`/v1/messages/${w.message.id}`).send({ attachments });
  const at = `${op} body.attachments[]`;
  return [
    { at: `${at}.filename`, fill: letters, send: (w, v) => send(w, attach({ filename: v })) },
    { at: `${at}.file_url`, fill: url, send: (w, v) => send(w, attach({ file_url: v })) },
    {
      at: `${at}.file_type`,
      fill: mime,
      bad: ['image png', 'a/b/c'],
      send: (w, v) => send(w, attach({ file_type: v })),
    },
  ];
};

const reactionCases = (shape: 'list' | 'map'): StringCase[] => {
  const send = (w: World, name: string, username: string) =>
    w.a
      .put(`/v1/messages/${w.message.id}`)
      .send({ reactions: shape === 'list' ? [{ [name]: [username] }] : { [name]: [username] } });
  const at = `updateMessage body.reactions${shape === 'list' ? '[]' : ''}`;
  return [
    { at: `${at}{name}`, fill: letters, bad: ['__proto__', 'Bad Name'], send: (w, v) => send(w, v, 'alice') },
    { at: `${at}{}[]`, fill: letters, send: (w, v) => send(w, 'heart', v) },
  ];
};

/**
 * A cursor must be an item of the list (else 400), and generated ids are 16 characters: the
 * world is first replaced by one whose item has the id tried, when the fixture takes that id.
 */
const cursorCases = (op: 'listContacts' | 'listMessages'): StringCase[] =>
  (['starting_after', 'ending_before'] as const).map((name) => ({
    at: `${op} query.${name}`,
    fill: letters,
    send: async (w, v) => {
      await putState(w, (state) => {
        if (op === 'listContacts') state.contacts[0].id = v;
        else state.messages.find((m: { id: string }) => m.id === w.message.id).id = v;
      });
      return w.a.get(op === 'listContacts' ? '/v1/contacts' : '/v1/messages').query({ [name]: v });
    },
  }));

const STRING_CASES: StringCase[] = [
  ...cursorCases('listContacts'),
  ...cursorCases('listMessages'),
  {
    at: 'listMessages query.conversation_id',
    fill: letters,
    send: (w, v) => w.a.get('/v1/messages').query({ conversation_id: v }),
  },
  {
    at: 'createContact body.username',
    fill: letters,
    send: (w, v) => w.a.post('/v1/contacts').send({ username: v, phone_number: '1' }),
  },
  {
    at: 'createContact body.phone_number',
    fill: digits,
    bad: ['+1 555 CALL'],
    send: (w, v) => w.a.post('/v1/contacts').send({ username: 'u', phone_number: v }),
  },
  {
    at: 'createContact body.avatar_url',
    fill: url,
    send: (w, v) => w.a.post('/v1/contacts').send({ username: 'u', phone_number: '1', avatar_url: v }),
  },
  {
    at: 'createContact body.display_name',
    fill: letters,
    send: (w, v) => w.a.post('/v1/contacts').send({ username: 'u', phone_number: '1', display_name: v }),
  },
  {
    at: 'updateContact body.display_name',
    fill: letters,
    send: (w, v) => w.a.put(`/v1/contacts/${w.contact.id}`).send({ display_name: v }),
  },
  {
    at: 'sendMessage body.conversation_id',
    fill: letters,
    send: (w, v) => w.a.post('/v1/messages').send({ conversation_id: v, message: 'x' }),
  },
  {
    at: 'sendMessage body.message',
    fill: letters,
    send: (w, v) => w.a.post('/v1/messages').send({ conversation_id: w.contact.conversation_id, message: v }),
  },
  {
    at: 'updateMessage body.message',
    fill: letters,
    send: (w, v) => w.a.put(`/v1/messages/${w.message.id}`).send({ message: v }),
  },
  ...attachmentCases('sendMessage'),
  ...attachmentCases('updateMessage'),
  ...reactionCases('list'),
  ...reactionCases('map'),
  {
    at: 'putState body.contacts[].id',
    fill: letters,
    bad: ['a.b'],
    send: (w, v) => putState(w, (state) => void (state.contacts[0].id = v)),
  },
  {
    at: 'putState body.contacts[].phone_number',
    fill: digits,
    bad: ['+1 555 CALL'],
    send: (w, v) => putState(w, (state) => void (state.contacts[0].phone_number = v)),
  },
  {
    at: 'putState body.messages[].message',
    fill: letters,
    send: (w, v) => putState(w, (state) => void (state.messages[0].message = v)),
  },
  {
    at: 'putState body.messages[].reactions[]{name}',
    fill: letters,
    bad: ['__proto__'],
    send: (w, v) => putState(w, (state) => void (state.messages[0].reactions = [{ [v]: ['alice'] }])),
  },
];

/** Whether the mock took the value: a refused field is a 400; an unknown id (404) was taken. */
async function mockAccepts(test: PromiseLike<request.Response>): Promise<boolean> {
  const res = await test;
  if (res.status === 400) expect(res.body.code).toBe('parameter_invalid');
  else expect(res.status).toBeLessThan(500);
  return res.status !== 400;
}

describe('The live mock takes what the document takes', () => {
  // The fixture's fields are the records' fields, which the fixture tests try one by one; a few
  // of them are tried here too, through PUT /__mock/state.
  it('has a case for every field with a rule of the API operations', () => {
    const tried = new Set(STRING_CASES.map((c) => c.at));
    const untried = Object.entries(STRING_FIELDS)
      .filter(([at, rule]) => typeof rule === 'object' && !at.startsWith('putState') && !tried.has(at))
      .map(([at]) => at);
    expect(untried).toEqual([]);
  });

  it.each(STRING_CASES.map((c) => [c.at, c] as const))(
    '%s: at its limits, past them, off its pattern',
    async (at, c) => {
      const rule = STRING_FIELDS[at] as StringRule;
      const min = rule.min ?? 0;
      // Empty too: what a form sends for a blank field.
      const lengths = new Set([rule.max, rule.max + 1, min, min - 1, 0].filter((n) => n >= 0));
      const w = await world();
      const verdicts: string[] = [];
      const expected: string[] = [];
      const tryValue = async (value: string, allowed: boolean | undefined) => {
        const mock = await mockAccepts(c.send(w, value));
        const doc = docAccepts(at, value);
        const shown = `${value.slice(0, 12)}… (${value.length})`;
        verdicts.push(`${shown}: mock ${mock}, document ${doc}`);
        // An empty value is what a form sends for "not given": only agreement is asked of it.
        const want = allowed ?? mock;
        expected.push(`${shown}: mock ${want}, document ${want}`);
      };
      for (const length of lengths) {
        const value = c.fill(length);
        if (value !== undefined)
          await tryValue(value, value === '' ? undefined : length >= min && length <= rule.max);
      }
      for (const value of c.bad ?? []) await tryValue(value, false);
      expect(verdicts).toEqual(expected);
      expect(verdicts.length).toBeGreaterThanOrEqual(2);
    },
  );

  const numberCases: [string, IntegerRule, (w: World, value: number) => request.Test][] = [
    ['listContacts query.limit', PAGE_SIZE, (w, v) => w.a.get('/v1/contacts').query({ limit: v })],
    ['listMessages query.limit', PAGE_SIZE, (w, v) => w.a.get('/v1/messages').query({ limit: v })],
    [
      'sendMessage body.attachments[].file_size',
      FILE_SIZE,
      (w, v) =>
        w.a.post('/v1/messages').send({
          conversation_id: w.contact.conversation_id,
          message: 'x',
          attachments: attach({ file_size: v }),
        }),
    ],
    [
      'updateMessage body.attachments[].file_size',
      FILE_SIZE,
      (w, v) => w.a.put(`/v1/messages/${w.message.id}`).send({ attachments: attach({ file_size: v }) }),
    ],
  ];

  it.each(numberCases)('%s: at its bounds and past them', async (at, rule, send) => {
    const w = await world();
    const verdicts: string[] = [];
    for (const value of [rule.min, rule.max, rule.min - 1, rule.max + 1]) {
      verdicts.push(`${value}: mock ${await mockAccepts(send(w, value))}, document ${docAccepts(at, value)}`);
    }
    expect(verdicts).toEqual([
      `${rule.min}: mock true, document true`,
      `${rule.max}: mock true, document true`,
      `${rule.min - 1}: mock false, document false`,
      `${rule.max + 1}: mock false, document false`,
    ]);
  });

  it('takes as many attachments in one request as the document says, and no more', async () => {
    const w = await world();
    const send = (count: number) => {
      const attachments = Array.from({ length: count }, () => attach({})[0]);
      return mockAccepts(
        w.a
          .post('/v1/messages')
          .send({ conversation_id: w.contact.conversation_id, message: 'x', attachments }),
      );
    };
    const max = documented.get('sendMessage body.attachments')!.maxItems as number;
    expect([await send(max), await send(max + 1)]).toEqual([true, false]);
  });
});
