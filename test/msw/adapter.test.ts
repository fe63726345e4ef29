import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createHandlers } from '../../src/msw';
import { openApiDocument } from '../../src/openapi';
import type { WorldStorage } from '../../src/create-core';
import twinProfile from '../twin/staging-like.profile.json';

const auth = { Authorization: 'Bearer adapter' };
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/** A Web Storage stand-in, as localStorage behaves. */
class MemoryStorage implements WorldStorage {
  readonly items = new Map<string, string>();
  get length() {
    return this.items.size;
  }
  key(index: number) {
    return [...this.items.keys()][index] ?? null;
  }
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

describe('createHandlers', () => {
  it('answers as the twin of a server with conventions: its prefix, paging, statuses and error body', async () => {
    server.use(
      ...createHandlers({
        baseUrl: 'https://staging.example.test',
        conventions: twinProfile as Record<string, unknown>,
      }),
    );
    const page = await fetch('https://staging.example.test/api/v1/contacts?page=2', { headers: auth });
    expect(page.status).toBe(200);
    const body = (await page.json()) as { has_more: boolean; data: unknown[] };
    expect(body.data).toHaveLength(7);
    const refused = await fetch('https://staging.example.test/api/v1/contacts', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'no_phone' }),
    });
    expect(refused.status).toBe(422);
    expect(refused.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/phone_number/);
  });

  it('loads the conventions of a profile with the world: one it cannot read rejects ready, naming the field', async () => {
    const handlers = createHandlers({
      baseUrl: 'https://bad.example.test',
      conventions: {
        ...(twinProfile as Record<string, unknown>),
        limit: { value: { default: 0 }, seen: 'x' },
      },
    });
    await expect(handlers.ready).rejects.toThrow(/limit\.default/);
  });

  it('serves the API under a base URL with a path, and lets everything else through to other handlers', async () => {
    const handlers = createHandlers({
      baseUrl: 'https://api.example.test/messaging/',
      contacts: 3,
      messages: 5,
    });
    server.use(
      ...handlers,
      http.get('https://api.example.test/*', () => HttpResponse.text('someone else')),
    );
    const page = await fetch('https://api.example.test/messaging/v1/contacts', { headers: auth });
    expect(page.status).toBe(200);
    expect(((await page.json()) as { data: unknown[] }).data).toHaveLength(3);
    expect(await (await fetch('https://api.example.test/v1/contacts')).text()).toBe('someone else');
    expect(await (await fetch('https://api.example.test/messagingx/v1/contacts')).text()).toBe(
      'someone else',
    );
  });

  it('answers the OpenAPI document, made when it is first asked for, the same each time', async () => {
    server.use(...createHandlers({ baseUrl: 'https://api.example.test' }));
    const first = await fetch('https://api.example.test/openapi.json');
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual(openApiDocument());
    const again = await fetch('https://api.example.test/openapi.json');
    expect(await again.json()).toEqual(openApiDocument());
  });

  it('resets every world with reset()', async () => {
    const handlers = createHandlers({ baseUrl: 'https://api.example.test', contacts: 3, messages: 5 });
    server.use(...handlers);
    const create = () =>
      fetch('https://api.example.test/v1/contacts', {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'new', phone_number: '1' }),
      });
    const created = (await (await create()).json()) as { id: string };
    handlers.reset();
    expect(
      (await fetch(`https://api.example.test/v1/contacts/${created.id}`, { headers: auth })).status,
    ).toBe(404);
  });
});

describe('The storage option (a world that outlives the page)', () => {
  const BASE = 'https://kept.example.test';
  const contactsOf = async (token: string) =>
    (
      (await (
        await fetch(`${BASE}/v1/contacts?limit=100`, { headers: { Authorization: `Bearer ${token}` } })
      ).json()) as {
        data: { username: string }[];
      }
    ).data.map((c) => c.username);
  const create = (token: string, username: string) =>
    fetch(`${BASE}/v1/contacts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ username, phone_number: '1' }),
    });

  it('keeps what a token did for the next handlers made with the same storage, until a reset', async () => {
    const storage = new MemoryStorage();
    const first = createHandlers({ baseUrl: BASE, contacts: 2, messages: 0, storage });
    server.use(...first);
    await create('kept', 'remembered');
    expect(await contactsOf('kept')).toContain('remembered');

    // A reload: new handlers, a new core, the same storage.
    const second = createHandlers({ baseUrl: BASE, contacts: 2, messages: 0, storage });
    server.resetHandlers(...second);
    expect(await contactsOf('kept')).toContain('remembered');
    expect(await contactsOf('someone-else')).not.toContain('remembered');

    await fetch(`${BASE}/__mock/reset`, { method: 'POST', headers: { Authorization: 'Bearer kept' } });
    const third = createHandlers({ baseUrl: BASE, contacts: 2, messages: 0, storage });
    server.resetHandlers(...third);
    expect(await contactsOf('kept')).not.toContain('remembered');
  });

  it('is off by default: new handlers start from the seeded world', async () => {
    server.use(...createHandlers({ baseUrl: BASE, contacts: 2, messages: 0 }));
    await create('unkept', 'forgotten');
    server.resetHandlers(...createHandlers({ baseUrl: BASE, contacts: 2, messages: 0 }));
    expect(await contactsOf('unkept')).not.toContain('forgotten');
  });

  it('answers as usual when the storage refuses (full), and says so in the log', async () => {
    const storage = new MemoryStorage();
    storage.setItem = () => {
      throw new Error('QuotaExceededError');
    };
    const logged: string[] = [];
    server.use(
      ...createHandlers({ baseUrl: BASE, contacts: 2, messages: 0, storage, log: (l) => logged.push(l) }),
    );
    expect((await create('full', 'still-answered')).status).toBe(201);
    expect(logged).toEqual([expect.stringContaining('QuotaExceededError')]);
  });

  it('forgets a kept world it cannot read, and starts from the seeded one', async () => {
    const storage = new MemoryStorage();
    storage.setItem('messaging-api-mock:world:broken', '{"contacts": "not a list"}');
    server.use(...createHandlers({ baseUrl: BASE, contacts: 2, messages: 0, storage }));
    expect(await contactsOf('broken')).toHaveLength(2);
    expect(storage.getItem('messaging-api-mock:world:broken')).toBeNull();
  });
});
