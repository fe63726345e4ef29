import { createCore, type Core } from '../../src/create-core';
import { createApp } from '../../src/express/app';
import { readProfile } from '../../src/twin/profile';
import { runBin, startWrapped } from '../contract-kit/harness';
import staging from './staging-like.profile.json';

/**
 * The mock with a server profile (--conventions): it answers with that server's choices where
 * the document says "not shown", and still keeps every documented rule.
 */
type Json = Record<string, any>;
const profile = staging as unknown as Json;
const AUTH = { authorization: 'Bearer twin' };

async function call(core: Core, method: string, url: string, form?: Record<string, string>) {
  const answer = await core.handle({
    method,
    url,
    headers: form ? { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' } : AUTH,
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  return { ...answer, json: answer.body === '' ? undefined : (JSON.parse(answer.body) as Json) };
}

const withChoice = (path: string[], value: unknown): Json => {
  const copy = structuredClone(profile);
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key];
  at[path.at(-1)!] = value;
  return copy;
};

describe('readProfile', () => {
  it('takes every choice it mirrors and lists what it cannot', () => {
    const read = readProfile(profile);
    expect(read.conventions.paging).toEqual({ kind: 'page', param: 'page' });
    expect(read.conventions.successStatus['messages.delete']).toBe(202);
    expect(read.taken).toContain('paging by page=<page number, from 1>');
    expect(read.notMirrored.join('\n')).toMatch(/contact id format/);
    // A choice that would break the document is not taken: avatar_url is a string.
    const nulls = readProfile(withChoice(['avatarDefault'], { value: { kind: 'null' }, seen: 'x' }));
    expect(nulls.conventions.avatarDefault).toBeUndefined();
    expect(nulls.notMirrored.join('\n')).toMatch(/makes avatar_url a string/);
  });

  it.each([
    [['version'], 2, /version must be 1/],
    [['paging'], { value: { kind: 'sideways' }, seen: 'x' }, /paging\.kind must be one of/],
    [
      ['errors', 'status', 'unknownId'],
      { value: 200, seen: 'x' },
      /errors\.status\.unknownId must be an HTTP status from 400/,
    ],
    [
      ['deleteAnswer', 'contacts'],
      { value: { status: 204, body: 'object' }, seen: 'x' },
      /deleteAnswer\.contacts cannot have a body with 204/,
    ],
    [['limit'], { value: { default: 25 }, seen: 'x' }, /limit\.default must be at most 10/],
    [
      ['errors', 'body'],
      { value: { contentType: 'application/json', messageAt: 'a..b', keys: [] }, seen: 'x' },
      /errors\.body\.messageAt/,
    ],
    [['timestampUnit'], { seen: 'x' }, /timestampUnit has neither/],
  ])('refuses %j = %j, naming the field', (path, value, message) => {
    expect(() => readProfile(withChoice(path as string[], value))).toThrow(message);
  });

  it('is refused as a server is created, and rejects ready where its conventions are loaded later (a browser)', async () => {
    const bad = withChoice(['timestampUnit'], { seen: 'x' });
    expect(() => createApp({ conventions: bad, contacts: 2, messages: 2 })).toThrow(
      /timestampUnit has neither/,
    );
    await expect(createCore({ conventions: bad }).ready).rejects.toThrow(/timestampUnit has neither/);
  });

  it("keeps the mock's own choice where the profile says unknown", async () => {
    const core = createCore({ conventions: withChoice(['paging'], { unknown: 'no list was long enough' }) });
    await core.ready;
    const first = await call(core, 'GET', '/api/v1/contacts?limit=2');
    const next = await call(core, 'GET', `/api/v1/contacts?limit=2&starting_after=${first.json!.data[1].id}`);
    expect(next.json!.data[0].id).not.toBe(first.json!.data[0].id);
    expect(next.json!.data.map((c: Json) => c.id)).toEqual(
      (await call(core, 'GET', '/api/v1/contacts?limit=4')).json!.data.slice(2).map((c: Json) => c.id),
    );
  });
});

describe('the mock as the twin of a server', () => {
  let core: Core;
  beforeAll(async () => {
    core = createCore({ conventions: profile, seed: 5 });
    await core.ready;
  });

  it('shows the conventions in force at GET /__mock/conventions (and the mock alone says it is no twin)', async () => {
    const shown = await call(core, 'GET', '/__mock/conventions');
    expect(shown.status).toBe(200);
    expect(shown.json).toEqual({
      twin: true,
      taken: expect.arrayContaining(['paging by page=<page number, from 1>']),
      not_mirrored: expect.arrayContaining([expect.stringMatching(/input formats/)]),
      in_force: expect.objectContaining({ pathPrefix: '/api', paging: { kind: 'page', param: 'page' } }),
    });
    const plain = createCore();
    expect(
      JSON.parse((await plain.handle({ method: 'GET', url: '/__mock/conventions', headers: AUTH })).body),
    ).toEqual({
      twin: false,
      taken: [],
      not_mirrored: [],
      in_force: null,
    });
  });

  it('serves the API under the path prefix only, refusing elsewhere in its error shape', async () => {
    expect((await call(core, 'GET', '/api/v1/contacts')).status).toBe(200);
    const outside = await call(core, 'GET', '/v1/contacts');
    expect(outside.status).toBe(404);
    expect(outside.headers['Content-Type']).toBe('application/problem+json; charset=utf-8');
    expect(outside.json).toEqual(
      expect.objectContaining({ status: 404, title: 'Not Found', type: 'about:blank' }),
    );
  });

  it('creates with its statuses, timestamps, avatar default; deletes with its answers', async () => {
    const made = await call(core, 'POST', '/api/v1/contacts', {
      username: 'twin_ada',
      phone_number: '+15550100',
    });
    expect(made.status).toBe(200);
    expect(made.headers['Content-Type']).toBe('application/json; charset=utf-8');
    expect(made.json!.avatar_url).toBe('https://avatars.example.com/twin_ada.png');
    expect(made.json!.created_at).toBeGreaterThan(Date.now() - 60_000);
    expect(made.json!.created_at % 1000).toBe(0);
    const sent = await call(core, 'POST', '/api/v1/messages', {
      conversation_id: made.json!.conversation_id,
      message: 'hello',
      'attachments[0][url]': 'https://example.com/files/report.pdf',
      'attachments[0][name]': 'report.pdf',
    });
    expect(sent.status).toBe(200);
    expect(sent.json!.contact.avatar_url).toBe('https://avatars.example.com/twin_ada.png');
    expect(sent.json!.attachments).toEqual([
      { id: expect.any(String), name: 'report.pdf', size: null, url: 'https://example.com/files/report.pdf' },
    ]);
    // Its server takes {name, url}: the mock's own spelling of those fields is refused, as there.
    const mockShape = await call(core, 'POST', '/api/v1/messages', {
      conversation_id: made.json!.conversation_id,
      message: 'hello',
      'attachments[0][file_url]': 'https://example.com/a.pdf',
      'attachments[0][filename]': 'a.pdf',
    });
    expect(mockShape.status).toBe(422);
    expect(mockShape.json!.detail).toMatch(
      /attachments\[0\].*takes name, url; file_url, filename is not one of them/,
    );
    const reacted = await call(core, 'PUT', `/api/v1/messages/${sent.json!.id}`, {
      'reactions[heart][]': 'bob',
      'reactions[like][]': 'al',
    });
    expect(reacted.json!.reactions).toEqual([{ heart: ['bob'], like: ['al'] }]);
    const gone = await call(core, 'DELETE', `/api/v1/messages/${sent.json!.id}`);
    expect({ status: gone.status, body: gone.json }).toEqual({
      status: 202,
      body: { deleted: true, id: sent.json!.id },
    });
    const contactGone = await call(core, 'DELETE', `/api/v1/contacts/${made.json!.id}`);
    expect(contactGone.status).toBe(200);
    expect(contactGone.json).toEqual(made.json);
    const missing = await call(core, 'GET', `/api/v1/contacts/${made.json!.id}`);
    expect(missing.status).toBe(404);
    expect(missing.json!.detail).toMatch(/No such contact/);
  });

  it('refuses with its statuses: 422 for a missing parameter and a bad limit, 401 without a token', async () => {
    expect((await call(core, 'POST', '/api/v1/contacts', { username: 'x' })).status).toBe(422);
    const limit = await call(core, 'GET', '/api/v1/contacts?limit=0');
    expect(limit.status).toBe(422);
    expect(limit.json!.detail).toMatch(/limit/);
    const anonymous = await core.handle({ method: 'GET', url: '/api/v1/contacts', headers: {} });
    expect(anonymous.status).toBe(401);
  });

  it('orders and pages as its server: contacts by username with page=N, seven a page, limit cut at 50', async () => {
    const pages: Json[][] = [];
    for (let page = 1; ; page++) {
      const answer = (await call(core, 'GET', `/api/v1/contacts?page=${page}`)).json!;
      pages.push(answer.data);
      if (!answer.has_more) break;
    }
    expect(pages[0]).toHaveLength(7);
    const names = pages.flat().map((c) => c.username as string);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(new Set(pages.flat().map((c) => c.id)).size).toBe(25);
    expect((await call(core, 'GET', '/api/v1/contacts?limit=500')).json!.data).toHaveLength(25);
    expect((await call(core, 'GET', '/api/v1/messages?limit=500')).json!.data).toHaveLength(50);
    const oldest = (await call(core, 'GET', '/api/v1/messages?limit=50')).json!.data.map(
      (m: Json) => m.created_at,
    );
    expect(oldest).toEqual([...oldest].sort((a, b) => a - b));
  });

  it('keeps an order no field explains, the same on every read, when the profile says field null', async () => {
    const twin = createCore({
      conventions: withChoice(['order', 'messages'], { value: { field: null }, seen: 'x' }),
      seed: 5,
    });
    await twin.ready;
    const read = async () =>
      ((await call(twin, 'GET', '/api/v1/messages?limit=50')).json!.data as Json[]).map((m) => m.created_at);
    const first = await read();
    expect(await read()).toEqual(first);
    expect(first).not.toEqual([...first].sort((a, b) => a - b));
    expect(first).not.toEqual([...first].sort((a, b) => b - a));
  });

  it.each([
    ['a token in the body', { kind: 'body-token', param: 'page_token', bodyKey: 'next_page_token' }],
    ['a next-page URL in the body', { kind: 'body-url', bodyKey: 'links.next' }],
    ['a Link header', { kind: 'link-header' }],
    ['the last id under its own name', { kind: 'after-id', param: 'after' }],
    ['an offset', { kind: 'offset', param: 'skip' }],
  ])('walks the whole list with %s, each item once', async (_name, paging) => {
    const twin = createCore({ conventions: withChoice(['paging'], { value: paging, seen: 'x' }), seed: 5 });
    await twin.ready;
    const ids: string[] = [];
    let url: string | undefined = '/api/v1/messages?limit=40';
    while (url) {
      const answer = await call(twin, 'GET', url);
      const page = answer.json!;
      ids.push(...page.data.map((m: Json) => m.id));
      const last = page.data.at(-1)?.id;
      url = !page.has_more
        ? undefined
        : paging.kind === 'body-token'
          ? `/api/v1/messages?limit=40&page_token=${page.next_page_token}`
          : paging.kind === 'body-url'
            ? page.links.next
            : paging.kind === 'link-header'
              ? /<([^>]+)>; rel="next"/.exec(answer.headers.Link!)![1]
              : paging.kind === 'after-id'
                ? `/api/v1/messages?limit=40&after=${last}`
                : `/api/v1/messages?limit=40&skip=${ids.length}`;
    }
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
  });
});

describe("an error's fields beside a nested message", () => {
  it('fills the status and the parameter at fault where its server put them, and says which it cannot', async () => {
    const nested = withChoice(['errors', 'body'], {
      value: {
        contentType: 'application/json',
        messageAt: 'error.message',
        keys: ['error'],
        placeKeys: ['message', 'param', 'status', 'trace_id'],
      },
      seen: 'x',
    });
    const read = readProfile(nested);
    expect(read.conventions.errorBody?.placeKeys).toEqual(['message', 'param', 'status']);
    expect(read.notMirrored.join('\n')).toContain("the error body's error.trace_id: the twin cannot tell");
    const core = createCore({ conventions: nested, seed: 5 });
    await core.ready;
    const refused = await call(core, 'POST', '/api/v1/contacts', { username: 'x' });
    expect(refused.status).toBe(422);
    expect(refused.json).toEqual({
      error: { message: expect.stringContaining('phone_number'), param: 'phone_number', status: 422 },
    });
    const unknown = await call(core, 'GET', '/api/v1/contacts/NeverMade00000000');
    expect(unknown.json).toEqual({ error: { message: expect.any(String), status: 404 } });
  });
});

describe('a deleted id apart from an unknown one', () => {
  const twinOf = async (deletedId: number | undefined) => {
    const status = structuredClone(profile.errors.status);
    if (deletedId !== undefined) status.deletedId = { value: deletedId, seen: 'x' };
    const core = createCore({ conventions: withChoice(['errors', 'status'], status), seed: 5 });
    await core.ready;
    return core;
  };

  it("answers its server's status for a record a delete took, its own, its conversation's messages, and 404 for an id never made", async () => {
    const core = await twinOf(410);
    const made = (
      await call(core, 'POST', '/api/v1/contacts', { username: 'gone', phone_number: '+15550100' })
    ).json!;
    const sent = (
      await call(core, 'POST', '/api/v1/messages', { conversation_id: made.conversation_id, message: 'hi' })
    ).json!;
    const other = (await call(core, 'GET', '/api/v1/messages?limit=1')).json!.data[0];
    expect((await call(core, 'DELETE', `/api/v1/messages/${other.id}`)).status).toBe(202);
    expect((await call(core, 'DELETE', `/api/v1/contacts/${made.id}`)).status).toBe(200);
    for (const at of [`contacts/${made.id}`, `messages/${sent.id}`, `messages/${other.id}`]) {
      const answer = await call(core, 'GET', `/api/v1/${at}`);
      expect({ at, status: answer.status, type: answer.headers['Content-Type'] }).toEqual({
        at,
        status: 410,
        type: 'application/problem+json; charset=utf-8',
      });
      expect(answer.json).toMatchObject({ status: 410, title: 'Gone' });
      expect(answer.headers).not.toHaveProperty('X-Mock-Deleted');
    }
    expect((await call(core, 'PUT', `/api/v1/contacts/${made.id}`, { display_name: 'x' })).status).toBe(410);
    expect((await call(core, 'DELETE', `/api/v1/contacts/${made.id}`)).status).toBe(410);
    expect((await call(core, 'GET', '/api/v1/contacts/NeverMade00000000')).status).toBe(404);
    const document = (await call(core, 'GET', '/openapi.json')).json!;
    expect(Object.keys(document.paths['/api/v1/contacts/{id}'].get.responses)).toEqual(
      expect.arrayContaining(['404', '410']),
    );
  });

  it('answers both alike where its server did, or its profile does not say', async () => {
    for (const deletedId of [404, undefined]) {
      const core = await twinOf(deletedId);
      const made = (
        await call(core, 'POST', '/api/v1/contacts', { username: 'gone', phone_number: '+15550100' })
      ).json!;
      await call(core, 'DELETE', `/api/v1/contacts/${made.id}`);
      expect((await call(core, 'GET', `/api/v1/contacts/${made.id}`)).status).toBe(404);
    }
  });
});

describe("the twin's ids", () => {
  const formats = {
    contact: { value: { kind: 'uuid', prefix: '', json: 'string' }, seen: 'x' },
    message: { value: { kind: 'alphanumeric', prefix: 'msg_', json: 'string', length: 14 }, seen: 'x' },
    conversation: { value: { kind: 'numeric', prefix: '', json: 'string' }, seen: 'x' },
  };
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it("gives seeded and new records ids in its server's format, links kept, the same for the same seed", async () => {
    const make = async () => {
      const core = createCore({ conventions: withChoice(['ids'], formats), seed: 5 });
      await core.ready;
      return core;
    };
    const [a, b] = [await make(), await make()];
    const contacts = (await call(a, 'GET', '/api/v1/contacts?limit=50')).json!.data as Json[];
    expect(contacts.every((c) => UUID.test(c.id) && /^[1-9][0-9]{11}$/.test(c.conversation_id))).toBe(true);
    expect((await call(b, 'GET', '/api/v1/contacts?limit=50')).json!.data).toEqual(contacts);
    const some = contacts.find((c) => c.last_active_at !== null) ?? contacts[0]!;
    const messages = (
      await call(a, 'GET', `/api/v1/messages?conversation_id=${some.conversation_id}&limit=50`)
    ).json!;
    for (const m of messages.data as Json[]) {
      expect(m.id).toMatch(/^msg_[A-Za-z0-9]{14}$/);
      expect(m.conversation_id).toBe(some.conversation_id);
      expect(m.contact.id).toBe(some.id);
    }
    const made = (await call(a, 'POST', '/api/v1/contacts', { username: 'ids', phone_number: '+15550100' }))
      .json!;
    expect(made.id).toMatch(UUID);
    const sent = await call(a, 'POST', '/api/v1/messages', {
      conversation_id: made.conversation_id,
      message: 'hi',
    });
    expect(sent.json!.id).toMatch(/^msg_[A-Za-z0-9]{14}$/);
    expect((await call(a, 'GET', `/api/v1/messages/${sent.json!.id}`)).status).toBe(200);
  });

  it('draws ids of the smallest alphabet and the lengths its server showed: hex of 8 to 12, a UUID version, a floor for short ones', async () => {
    const core = createCore({
      conventions: withChoice(['ids'], {
        contact: { value: { kind: 'uuid', prefix: '', json: 'string', version: 7 }, seen: 'x' },
        message: {
          value: { kind: 'hex', prefix: '', json: 'string', minLength: 8, maxLength: 12 },
          seen: 'x',
        },
        conversation: { value: { kind: 'numeric', prefix: '', json: 'string', length: 4 }, seen: 'x' },
      }),
      seed: 5,
    });
    await core.ready;
    const messages = (await call(core, 'GET', '/api/v1/messages?limit=100')).json!.data as Json[];
    const lengths = new Set(messages.map((m) => String(m.id).length));
    expect(messages.every((m) => /^[0-9a-f]{8,12}$/.test(m.id))).toBe(true);
    expect([...lengths].sort()).toEqual([10, 11, 12, 8, 9]);
    const contacts = (await call(core, 'GET', '/api/v1/contacts?limit=50')).json!.data as Json[];
    for (const c of contacts) {
      expect(c.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // A counter's four digits, as its server's.
      expect(c.conversation_id).toMatch(/^[1-9][0-9]{3}$/);
    }
    const read = readProfile(
      withChoice(['ids'], {
        conversation: { value: { kind: 'numeric', prefix: '', json: 'string', length: 4 }, seen: 'x' },
      }),
    );
    expect(read.taken.join('\n')).toContain('conversation ids 4 digits');
    expect(() =>
      readProfile(
        withChoice(['ids'], {
          message: { value: { kind: 'hex', prefix: '', json: 'string', minLength: 9 }, seen: 'x' },
        }),
      ),
    ).toThrow(/ids\.message\.minLength must come with maxLength/);
  });

  it("gives a world that outgrows its server's length longer ids, as a counter does, each unique", async () => {
    // One digit holds nine ids: the seeded world has more contacts than that.
    const core = createCore({
      conventions: withChoice(['ids'], {
        contact: { value: { kind: 'numeric', prefix: '', json: 'string', length: 1 }, seen: 'x' },
      }),
      seed: 5,
    });
    await core.ready;
    const ids: string[] = [];
    // Its server pages by page=<n> (staging-like.profile.json).
    for (let n = 1; ; n++) {
      const page = (await call(core, 'GET', `/api/v1/contacts?limit=50&page=${n}`)).json!;
      ids.push(...(page.data as Json[]).map((c) => String(c.id)));
      if (!page.has_more) break;
    }
    expect(ids.length).toBeGreaterThan(9);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^[1-9][0-9]*$/.test(id))).toBe(true);
    expect(ids.filter((id) => id.length === 1).length).toBeGreaterThan(0);
    expect(Math.max(...ids.map((id) => id.length))).toBeGreaterThan(1);
    const made = await call(core, 'POST', '/api/v1/contacts', {
      username: 'one_more',
      phone_number: '+1 555',
    });
    expect(made.json!.id).toMatch(/^[1-9][0-9]+$/);
  });

  it("keeps the mock's ids where the server's are JSON numbers, and says so", () => {
    const read = readProfile(
      withChoice(['ids'], {
        ...formats,
        contact: { value: { kind: 'numeric', prefix: '', json: 'number' }, seen: 'x' },
      }),
    );
    expect(read.conventions.ids.contact).toBeUndefined();
    expect(read.notMirrored.join('\n')).toMatch(/contact id format \(JSON numbers\)/);
  });
});

describe('the contract kit against a twin', () => {
  it('passes the documented rule set on the twin of a server under /api', async () => {
    const server = await startWrapped({}, { conventions: profile });
    try {
      const run = await runBin(['--base-url', `${server.url}/api`, '--token', 'twin-kit']);
      const failed = (run.json?.verdicts ?? []).filter((v) => v.verdict === 'fail').map((v) => v.rule);
      expect({ code: run.code, failed, problems: run.json?.problems }).toEqual({
        code: 0,
        failed: [],
        problems: [],
      });
    } finally {
      await server.close();
    }
  }, 180_000);
});
