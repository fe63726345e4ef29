import { createCore, type Core } from '../../src/create-core';
import { readProfile } from '../../src/twin/profile';
import staging from './staging-like.profile.json';

/**
 * What a twin mirrors beyond its server's choices of statuses and formats: the fields the server
 * adds (own fields), a sent message that marks its contact active, the refusal of an id not of the
 * server's form, a closed list of reaction names, and forms-only bodies. Each from a profile as
 * the kit writes it (common/server-profile.ts); the kit's side is test/contract-kit/profile-out.test.ts.
 */
type Json = Record<string, any>;
const AUTH = { authorization: 'Bearer shapes' };

const profileWith = (choices: Json): Json => ({ ...structuredClone(staging as unknown as Json), ...choices });
const known = (value: unknown) => ({ value, seen: 'x' });

async function call(
  core: Core,
  method: string,
  url: string,
  body?: Record<string, string> | { json: unknown },
) {
  const json = body !== undefined && 'json' in body;
  const answer = await core.handle({
    method,
    url,
    origin: 'http://twin.test',
    headers:
      body === undefined
        ? AUTH
        : { ...AUTH, 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
    ...(body === undefined
      ? {}
      : {
          body: json
            ? JSON.stringify((body as { json: unknown }).json)
            : new URLSearchParams(body as Record<string, string>).toString(),
        }),
  });
  let parsed: Json | undefined;
  try {
    parsed = answer.body === '' ? undefined : (JSON.parse(answer.body) as Json);
  } catch {
    parsed = undefined;
  }
  return { ...answer, json: parsed };
}

async function twin(choices: Json): Promise<Core> {
  const core = createCore({ conventions: profileWith(choices), seed: 3 });
  await core.ready;
  return core;
}

const OWN = known({
  contact: [
    { path: 'object', as: 'constant', value: 'contact' },
    { path: 'url', as: 'self', template: '{origin}/api/v1/contacts/{id}' },
    { path: 'handle', as: 'copy', of: 'username' },
  ],
  message: [
    { path: 'object', as: 'constant', value: 'message' },
    { path: 'links.self', as: 'self', template: '/api/v1/messages/{id}' },
    { path: 'contact.object', as: 'constant', value: 'contact' },
  ],
  page: [
    { path: 'object', as: 'constant', value: 'list' },
    { path: 'page', as: 'param', param: 'page', absent: 1 },
    { path: 'per_page', as: 'param', param: 'limit', absent: 7 },
    { path: 'total_count', as: 'count' },
    { path: 'prev_page', as: 'prev' },
    { path: 'request_id', as: 'example', value: 'req_1' },
  ],
  error: [
    { path: 'source.parameter', as: 'param-refused' },
    { path: 'doc_url', as: 'constant', value: 'https://example.test/errors' },
    { path: 'code', as: 'status' },
  ],
});

describe("a twin's own fields (ownFields)", () => {
  let core: Core;
  beforeAll(async () => {
    core = await twin({ ownFields: OWN });
  });

  it('fills every record: a constant, its own URL (with the request origin), a copy of a field', async () => {
    const page = await call(core, 'GET', '/api/v1/contacts?limit=3');
    expect(page.status).toBe(200);
    for (const c of page.json!.data)
      expect(c).toMatchObject({
        object: 'contact',
        url: `http://twin.test/api/v1/contacts/${c.id}`,
        handle: c.username,
      });
    const one = await call(core, 'GET', `/api/v1/contacts/${page.json!.data[0].id}`);
    expect(one.json).toEqual(page.json!.data[0]);
    const sent = await call(core, 'POST', '/api/v1/messages', {
      conversation_id: one.json!.conversation_id,
      message: 'Hello',
    });
    expect(sent.json).toMatchObject({
      object: 'message',
      links: { self: `/api/v1/messages/${sent.json!.id}` },
      contact: { object: 'contact' },
    });
    // A message's contact is no contact record: only what the profile says of it.
    expect(sent.json!.contact).not.toHaveProperty('url');
  });

  it('fills every page: the request parameter as in force, the count of the list, the previous page', async () => {
    const all = await call(core, 'GET', '/api/v1/contacts?limit=50');
    const total = all.json!.data.length + (all.json!.has_more ? 1 : 0);
    expect(all.json!.has_more).toBe(false);
    const first = await call(core, 'GET', '/api/v1/contacts');
    expect(first.json).toMatchObject({
      object: 'list',
      page: 1,
      per_page: 7,
      total_count: total,
      prev_page: null,
      request_id: 'req_1',
    });
    const second = await call(core, 'GET', '/api/v1/contacts?page=2&limit=3');
    expect(second.json).toMatchObject({ page: 2, per_page: 3, total_count: total });
    expect(typeof second.json!.prev_page).toBe('string');
    // Cut to the largest limit (50, clamped): per_page says what is in force.
    expect((await call(core, 'GET', '/api/v1/contacts?limit=80')).json!.per_page).toBe(50);
  });

  it('fills a refusal: the parameter at fault where there is one, a constant, its status', async () => {
    const refused = await call(core, 'POST', '/api/v1/contacts', { username: 'no_phone' });
    expect(refused.status).toBe(422);
    expect(refused.json).toMatchObject({
      source: { parameter: 'phone_number' },
      doc_url: 'https://example.test/errors',
      code: 422,
    });
    const unknown = await call(core, 'GET', '/api/v1/contacts/123456');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ doc_url: 'https://example.test/errors', code: 404 });
    expect(unknown.json).not.toHaveProperty('source');
  });

  it('says what it took, and refuses a profile whose own fields it cannot read, naming the field', () => {
    const read = readProfile(profileWith({ ownFields: OWN }));
    expect(read.taken.join('\n')).toContain(
      'the server\'s own fields, on contacts: object "contact", url (its URL), handle (its username)',
    );
    const bad = (field: Json) =>
      profileWith({ ownFields: known({ contact: [field], message: [], page: [], error: [] }) });
    expect(() => readProfile(bad({ path: 'x', as: 'guess' }))).toThrow(
      /ownFields\.contact\.0\.as must be one of/,
    );
    expect(() => readProfile(bad({ path: '', as: 'count' }))).toThrow(/ownFields\.contact\.0\.path/);
    expect(() => readProfile(bad({ path: 'x', as: 'self' }))).toThrow(/ownFields\.contact\.0\.template/);
  });
});

describe('a twin refuses the values its server refused (inputRules)', () => {
  const RULES = known({
    fields: {
      'contacts.display_name': { longestTaken: 40, maxLength: 40, refused: ['empty', 'control characters'] },
      'contacts.phone_number': { longestTaken: 12, refused: ['spaces inside', 'no leading +'] },
      'contacts.username': { longestTaken: 30, refused: [] },
      'messages.message': { longestTaken: 4000, maxLength: 100, refused: [] },
    },
    status: 409,
    notStated: ['contacts.username: a value with emoji, spaces inside was refused, for one of them or all'],
  });
  const contact = (extra: Record<string, string>) => ({
    username: 'ruled',
    phone_number: '+15550100',
    ...extra,
  });

  it('refuses a value too long or of a refused form, with the status and error body of its server, naming the parameter; changes nothing', async () => {
    const core = await twin({ inputRules: RULES });
    const before = (await call(core, 'GET', '/api/v1/contacts?limit=100')).json!.data.length;
    for (const [sent, param] of [
      [{ display_name: 'x'.repeat(41) }, 'display_name'],
      [{ display_name: 'line\nbreak' }, 'display_name'],
      [{ phone_number: '+1 555 0100' }, 'phone_number'],
      [{ phone_number: '15550100' }, 'phone_number'],
    ] as const) {
      const refused = await call(core, 'POST', '/api/v1/contacts', contact(sent));
      expect({ sent, status: refused.status, type: refused.headers['Content-Type'] }).toEqual({
        sent,
        status: 409,
        type: 'application/problem+json; charset=utf-8',
      });
      expect(refused.json).toEqual({
        detail: expect.stringContaining(param),
        status: 409,
        title: 'Conflict',
        type: 'about:blank',
      });
    }
    // An optional display_name sent empty is a value this server refuses, not "not given".
    expect((await call(core, 'POST', '/api/v1/contacts', contact({ display_name: '' }))).status).toBe(409);
    expect((await call(core, 'GET', '/api/v1/contacts?limit=100')).json!.data.length).toBe(before);
    // At the limit, and of the forms it took: taken. An emoji the kit could not pin down: the mock's.
    // The staging-like server answers a create 200.
    const taken = await call(core, 'POST', '/api/v1/contacts', contact({ display_name: 'y'.repeat(40) }));
    expect(taken.status).toBe(200);
    expect((await call(core, 'POST', '/api/v1/contacts', contact({ username: 'party 🎉' }))).status).toBe(
      200,
    );
    // An update too, after its record is found; a message's text by its limit.
    const id = taken.json!.id as string;
    expect((await call(core, 'PUT', `/api/v1/contacts/${id}`, { display_name: 'z'.repeat(41) })).status).toBe(
      409,
    );
    expect(
      (await call(core, 'PUT', '/api/v1/contacts/nobody', { display_name: 'z'.repeat(41) })).status,
    ).toBe(404);
    const conversation = taken.json!.conversation_id as string;
    const long = await call(core, 'POST', '/api/v1/messages', {
      conversation_id: conversation,
      message: 'm'.repeat(101),
    });
    expect(long.status).toBe(409);
    const short = await call(core, 'POST', '/api/v1/messages', {
      conversation_id: conversation,
      message: 'm'.repeat(100),
    });
    expect(short.status).toBe(200);
  });

  it('takes them without the rules, and says what it took and what it could not state', async () => {
    const plain = await twin({});
    expect(
      (await call(plain, 'POST', '/api/v1/contacts', contact({ phone_number: '+1 555 0100' }))).status,
    ).toBe(200);
    const read = readProfile(profileWith({ inputRules: RULES }));
    expect(read.conventions.errorStatus.refusedValue).toBe(409);
    expect(read.taken).toContain(
      'values refused (409): contacts.display_name longer than 40 characters or left empty or with control characters; contacts.phone_number with spaces inside or with no leading +; messages.message longer than 100 characters',
    );
    expect(read.notMirrored).toEqual(
      expect.arrayContaining([
        'contacts.username: a value with emoji, spaces inside was refused, for one of them or all (the kit could not state it as a rule)',
      ]),
    );
    // Longer texts than the mock's own limits, where the server took them: taken, but URLs.
    const longer = profileWith({
      inputRules: known({
        fields: {
          'contacts.username': { longestTaken: 500, refused: [] },
          'contacts.display_name': { longestTaken: 10, maxLength: 80, refused: [] },
          'contacts.avatar_url': { longestTaken: 5000, refused: [] },
          'messages.message': { longestTaken: 9000, refused: [] },
        },
        status: 422,
        notStated: [],
      }),
    });
    const loose = readProfile(longer);
    expect(loose.taken).toContain(
      "longer texts taken: contacts.username up to 500 characters (the mock's own limit: 64); contacts.display_name up to 80 characters (the mock's own limit: 64); messages.message up to 9000 characters (the mock's own limit: 4000)",
    );
    expect(loose.notMirrored).toContain(
      'contacts.avatar_url of 2049 to 5000 characters, which the server took: the mock takes at most 2048',
    );
    const core = createCore({ conventions: longer, seed: 3 });
    await core.ready;
    const made = await call(
      core,
      'POST',
      '/api/v1/contacts',
      contact({ username: 'u'.repeat(500), display_name: 'd'.repeat(80) }),
    );
    expect(made.status).toBe(200);
    expect(made.json!.username).toBe('u'.repeat(500));
    const over = await call(core, 'POST', '/api/v1/contacts', contact({ username: 'u'.repeat(501) }));
    expect(over.status).toBe(422);
    expect(
      (await call(core, 'PUT', `/api/v1/contacts/${made.json!.id}`, { display_name: 'e'.repeat(81) })).status,
    ).toBe(422);
    const text = await call(core, 'POST', '/api/v1/messages', {
      conversation_id: made.json!.conversation_id,
      message: 'm'.repeat(9000),
    });
    expect(text.status).toBe(200);
    const bad = (fields: Json) => profileWith({ inputRules: known({ fields, notStated: [] }) });
    expect(() => readProfile(bad({ 'contacts.bio': { refused: [] } }))).toThrow(
      /inputRules\.fields\.contacts\.bio/,
    );
    expect(() => readProfile(bad({ 'contacts.username': { maxLength: -1, refused: [] } }))).toThrow(
      /maxLength/,
    );
    expect(readProfile(bad({ 'contacts.username': { refused: ['upper case'] } })).notMirrored).toContain(
      'contacts.username of the forms upper case: unknown to this mock',
    );
  });
});

describe('what else a twin mirrors of its server', () => {
  it("keeps records of one created_at in its server's tie order (ties), the older first or the newer", async () => {
    const listed = async (ties: string | undefined) => {
      const order = { field: 'created_at', direction: 'desc', ...(ties ? { ties } : {}) };
      const profile = profileWith({ order: { contacts: known(order), messages: known(order) } });
      // One second for every write: every message sent here has the same created_at.
      const core = createCore({ conventions: profile, seed: 3, now: () => 1_900_000_000 });
      await core.ready;
      const contact = (await call(core, 'GET', '/api/v1/contacts?limit=1')).json!.data[0];
      const sent: string[] = [];
      for (const text of ['one', 'two', 'three'])
        sent.push(
          (
            await call(core, 'POST', '/api/v1/messages', {
              conversation_id: contact.conversation_id,
              message: text,
            })
          ).json!.id,
        );
      const page = (
        await call(core, 'GET', `/api/v1/messages?conversation_id=${contact.conversation_id}&limit=50`)
      ).json!.data as Json[];
      return page
        .map((m) => m.id)
        .filter((id) => sent.includes(id))
        .map((id) => sent.indexOf(id));
    };
    expect(await listed('older-first')).toEqual([0, 1, 2]);
    expect(await listed('newer-first')).toEqual([2, 1, 0]);
    expect(await listed(undefined)).toEqual([2, 1, 0]);
  });

  it("marks a message's contact active when it is sent (touchOnSend)", async () => {
    const core = await twin({ touchOnSend: known(true) });
    const made = await call(core, 'POST', '/api/v1/contacts', {
      username: 'touched',
      phone_number: '+1 555 0100',
    });
    expect(made.json!.last_active_at).toBeNull();
    const sent = await call(core, 'POST', '/api/v1/messages', {
      conversation_id: made.json!.conversation_id,
      message: 'Hi',
    });
    expect(sent.json!.contact.last_active_at).toBe(sent.json!.created_at);
    expect((await call(core, 'GET', `/api/v1/contacts/${made.json!.id}`)).json!.last_active_at).toBe(
      sent.json!.created_at,
    );
    // Without it, a send moves nothing (the mock's own way).
    const plain = await twin({});
    const other = await call(plain, 'POST', '/api/v1/contacts', {
      username: 'idle',
      phone_number: '+1 555 0101',
    });
    const quiet = await call(plain, 'POST', '/api/v1/messages', {
      conversation_id: other.json!.conversation_id,
      message: 'Hi',
    });
    expect(quiet.json!.contact.last_active_at).toBeNull();
  });

  it("refuses an id not of its server's form apart from an unknown one (malformedId)", async () => {
    const ids = known({ kind: 'uuid', prefix: '', json: 'string', version: 4 });
    const choices = {
      ids: { contact: ids, message: ids, conversation: ids },
    };
    const core = await twin({
      ...choices,
      errors: {
        ...(staging as unknown as Json).errors,
        status: { ...(staging as unknown as Json).errors.status, malformedId: known(400) },
      },
    });
    const malformed = await call(core, 'GET', '/api/v1/contacts/not-an-id');
    expect(malformed.status).toBe(400);
    expect(malformed.json!.detail).toMatch(/id/);
    const unknown = await call(core, 'GET', '/api/v1/contacts/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    // A server that answers both alike: the twin too.
    const alike = await twin(choices);
    expect((await call(alike, 'GET', '/api/v1/contacts/not-an-id')).status).toBe(404);
  });

  it('takes only the reaction names its server took, when it refused one of a form the mock takes', async () => {
    const core = await twin({ reactionNames: known({ taken: ['like', 'thumbs_up'], refused: ['heart'] }) });
    const message = (await call(core, 'GET', '/api/v1/messages?limit=1')).json!.data[0];
    const refused = await call(core, 'PUT', `/api/v1/messages/${message.id}`, {
      'reactions[heart][]': 'ada',
    });
    expect(refused.status).toBe(422);
    expect(refused.json!.detail).toMatch(/reactions\[heart\]/);
    expect((await call(core, 'GET', `/api/v1/messages/${message.id}`)).json).toEqual(message);
    const taken = await call(core, 'PUT', `/api/v1/messages/${message.id}`, { 'reactions[like][]': 'ada' });
    expect(taken.status).toBe(200);
    // Names refused only for their form (a space) say nothing of a closed list.
    const open = await twin({ reactionNames: known({ taken: ['heart'], refused: ['Bad Name'] }) });
    const id = (await call(open, 'GET', '/api/v1/messages?limit=1')).json!.data[0].id;
    expect((await call(open, 'PUT', `/api/v1/messages/${id}`, { 'reactions[party][]': 'ada' })).status).toBe(
      200,
    );
  });

  it('refuses a JSON body as its forms-only server does (jsonBodies), and takes the same as a form', async () => {
    const core = await twin({ jsonBodies: known({ taken: false, status: 415 }) });
    const json = await call(core, 'POST', '/api/v1/contacts', {
      json: { username: 'as_json', phone_number: '+1 555 0102' },
    });
    expect(json.status).toBe(415);
    expect(json.headers['Content-Type']).toMatch(/^application\/problem\+json/);
    expect(
      (await call(core, 'GET', '/api/v1/contacts?limit=50')).json!.data.map((c: Json) => c.username),
    ).not.toContain('as_json');
    const form = await call(core, 'POST', '/api/v1/contacts', {
      username: 'as_form',
      phone_number: '+1 555 0102',
    });
    expect(form.status).toBe(200);
    // The server's own status for it, whatever the mock's.
    const strict = await twin({ jsonBodies: known({ taken: false, status: 400 }) });
    expect(
      (await call(strict, 'POST', '/api/v1/contacts', { json: { username: 'x', phone_number: '1' } })).status,
    ).toBe(400);
    // A server that reads JSON: so does its twin.
    const reads = await twin({ jsonBodies: known({ taken: true }) });
    expect(
      (
        await call(reads, 'POST', '/api/v1/contacts', {
          json: { username: 'as_json', phone_number: '+1 555 0102' },
        })
      ).status,
    ).toBe(200);
  });
});
