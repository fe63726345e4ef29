import { setupServer } from 'msw/node';
import { gzipSync } from 'node:zlib';
import { listen, type RunningServer } from '../../src/express/server';
import { createHandlers, type MockHandlers } from '../../src/msw';

/**
 * Where the two transports of the one core answer differently on purpose. Everything else they
 * answer alike, byte for byte: test/transcript/ sends both the same scenario and compares each
 * with the golden transcript.
 */
const OPTIONS = { seed: 7, contacts: 6, messages: 40 };
const MSW_BASE = 'http://messaging.msw.test';

let express: RunningServer;
let handlers: MockHandlers;
const msw = setupServer();

beforeAll(async () => {
  express = await listen({ port: 0, ...OPTIONS });
  handlers = createHandlers({ baseUrl: MSW_BASE, ...OPTIONS });
  msw.use(...handlers);
  msw.listen({
    onUnhandledRequest: (request, print) => {
      if (!request.url.startsWith(express.url)) print.error();
    },
  });
});

afterAll(async () => {
  msw.close();
  handlers.stop();
  await express.close();
});

describe('Where the transports differ', () => {
  it('a compressed body: the server inflates it, MSW (as a browser would never send one) refuses it with 415', async () => {
    const body = gzipSync(JSON.stringify({ username: 'zip', phone_number: '1' }));
    const send = (base: string) =>
      fetch(`${base}/v1/contacts`, {
        method: 'POST',
        headers: {
          Authorization: 'Bearer gzip',
          'Content-Type': 'application/json',
          'Content-Encoding': 'gzip',
        },
        body,
      });
    expect((await send(express.url)).status).toBe(201);
    const refused = await send(MSW_BASE);
    expect(refused.status).toBe(415);
    expect(await refused.json()).toMatchObject({ code: 'unsupported_media_type' });
  });
});
