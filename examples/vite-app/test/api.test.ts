import { createHandlers } from 'messaging-api-mock/msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { Api, ApiError } from '../src/api';

// The whole API in this process: every test starts from the same seeded world.
const BASE = 'https://api.example.test';
const handlers = createHandlers({ baseUrl: BASE, seed: 42, contacts: 5, messages: 40 });
const server = setupServer(...handlers);

beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'error' });
  await handlers.ready; // the world is generated here, not in the first test
});
afterEach(() => handlers.reset());
afterAll(() => {
  server.close();
  handlers.stop();
});

const api = new Api(BASE, 'vitest');

test('lists the seeded contacts', async () => {
  const page = await api.contacts();
  expect(page.data).toHaveLength(5);
  expect(page.has_more).toBe(false);
});

test('reads the conversation with each contact', async () => {
  const contacts = (await api.contacts()).data;
  const conversations = await Promise.all(contacts.map((c) => api.messages(c.conversation_id)));
  conversations.forEach((page, i) => {
    for (const message of page.data) expect(message.conversation_id).toBe(contacts[i]!.conversation_id);
  });
  expect(conversations.some((page) => page.data.length > 0)).toBe(true);
});

test('gets the error the server gives: the next answer switched to 503', async () => {
  await fetch(`${BASE}/__mock/switches`, {
    method: 'PUT',
    headers: { Authorization: 'Bearer vitest', 'Content-Type': 'application/json' },
    body: JSON.stringify({ errors: { status: 503, count: 1 } }),
  });
  const failed = await api.contacts().catch((error: unknown) => error);
  expect(failed).toBeInstanceOf(ApiError);
  expect(failed).toMatchObject({ status: 503 });
  expect((await api.contacts()).data).toHaveLength(5); // used up: the next answer is real
});
