import { createMockServer } from '../../src';

describe('createMockServer (embedding in another test suite)', () => {
  const mock = createMockServer({ seed: 4, contacts: 5, messages: 10 });
  let baseUrl: string;
  const auth = { Authorization: 'Bearer embed' };

  beforeAll(async () => {
    baseUrl = await mock.start();
  });
  afterAll(() => mock.stop());

  it('starts on an ephemeral port and answers there', async () => {
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(mock.url).toBe(baseUrl);
    const res = await fetch(`${baseUrl}/v1/contacts?limit=100`, { headers: auth });
    expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(5);
  });

  it('reset() puts every world back to the seed', async () => {
    const created = await fetch(`${baseUrl}/v1/contacts`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'username=temp&phone_number=123',
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    mock.reset();
    expect((await fetch(`${baseUrl}/v1/contacts/${id}`, { headers: auth })).status).toBe(404);
  });

  it('stop() closes the port, and start() again works', async () => {
    await mock.stop();
    expect(mock.url).toBeUndefined();
    await expect(fetch(`${baseUrl}/v1/contacts`, { headers: auth })).rejects.toThrow();
    baseUrl = await mock.start();
    expect((await fetch(`${baseUrl}/v1/contacts`, { headers: auth })).status).toBe(200);
  });
});
