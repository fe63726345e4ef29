import { setupServer } from 'msw/node';
import { createHandlers } from '../../src/msw';

const BASE = 'https://api.example.test';
const handlers = createHandlers({ baseUrl: BASE, contacts: 6, messages: 40 });
const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => handlers.reset());
afterAll(() => server.close());

it('answers with fetch', async () => {
  const res = await fetch(`${BASE}/v1/contacts?limit=2`, { headers: { Authorization: 'Bearer t' } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: unknown[] };
  expect(body.data).toHaveLength(2);
});
