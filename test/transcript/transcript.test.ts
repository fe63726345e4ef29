import { setupServer } from 'msw/node';
import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { listen, type RunningServer } from '../../src/express/server';
import { createHandlers, type MockHandlers } from '../../src/msw';
import { scenario, sender, type Answer } from './scenario';

/**
 * The golden transcript of the mock's answers: the scenario (every endpoint, body encoding,
 * refusal, switch and control route) sent to both transports, with a fixed seed (which draws the
 * ids too) and clock,
 * and every answer (status, headers, body) compared byte for byte with `answers.jsonl`.
 *
 * A change that alters an answer on purpose rewrites the file in the same commit
 * (`UPDATE_TRANSCRIPT=1 npx jest test/transcript`), so that its diff shows what changed; any
 * other change of an answer fails here.
 */
const GOLDEN = path.join(__dirname, 'answers.jsonl');
const OPTIONS = { seed: 7, contacts: 6, messages: 40, now: () => 1_800_000_000, maxWorldBytes: 200_000 };
const MSW_BASE = 'http://messaging.msw.test';

let express: RunningServer;
let handlers: MockHandlers;
const msw = setupServer();

beforeAll(async () => {
  express = await listen({ port: 0, ...OPTIONS });
  handlers = createHandlers({ baseUrl: MSW_BASE, ...OPTIONS });
  msw.use(...handlers);
  // The requests to the Express server pass through; nothing else may go out.
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

/** Runs the scenario against one base URL: a mock of its own, whose ids the seed draws. */
async function answersOf(base: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  await scenario(sender(base, answers));
  return answers;
}

const toLines = (answers: Answer[]) => answers.map((answer) => `${JSON.stringify(answer)}\n`).join('');

/** The steps whose answers differ from the golden ones, each with both. */
function differences(golden: Answer[], actual: Answer[]) {
  const steps = Math.max(golden.length, actual.length);
  return Array.from({ length: steps }, (_, i) => i).flatMap((i) =>
    JSON.stringify(actual[i]) === JSON.stringify(golden[i])
      ? []
      : [{ step: golden[i]?.step ?? actual[i]?.step, golden: golden[i], actual: actual[i] }],
  );
}

describe('The golden transcript of the mock', () => {
  let server: Answer[];
  let inProcess: Answer[];
  let golden: Answer[];

  beforeAll(async () => {
    server = await answersOf(express.url);
    inProcess = await answersOf(MSW_BASE);
    if (process.env.UPDATE_TRANSCRIPT === '1') fs.writeFileSync(GOLDEN, toLines(server));
    golden = fs
      .readFileSync(GOLDEN, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Answer);
  }, 60_000);

  it('covers every status the API answers, every endpoint and every control route', () => {
    const statuses = new Set(golden.map((a) => a.status));
    for (const status of [200, 201, 204, 400, 401, 403, 404, 405, 409, 413, 415, 418, 502, 503])
      expect(statuses).toContain(status);
    const routes = new Set(golden.map((a) => a.request.replace(/ .*/s, '') + ' ' + routeOf(a.request)));
    for (const route of [
      'GET /v1/contacts',
      'POST /v1/contacts',
      'GET /v1/contacts/:id',
      'HEAD /v1/contacts/:id',
      'PUT /v1/contacts/:id',
      'DELETE /v1/contacts/:id',
      'GET /v1/messages',
      'POST /v1/messages',
      'GET /v1/messages/:id',
      'PUT /v1/messages/:id',
      'DELETE /v1/messages/:id',
      'OPTIONS /v1/contacts',
      'GET /openapi.json',
      'GET /__mock/requests',
      'GET /__mock/state',
      'PUT /__mock/state',
      'POST /__mock/reset',
      'GET /__mock/switches',
      'PUT /__mock/switches',
      'DELETE /__mock/switches',
    ])
      expect(routes).toContain(route);
  });

  it('the Express server answers every step as the transcript says, byte for byte', () => {
    expect(differences(golden, server)).toEqual([]);
  });

  it('the MSW adapter answers every step as the transcript says, byte for byte', () => {
    expect(differences(golden, inProcess)).toEqual([]);
  });

  it('would see a changed byte of a body, a header, a status or a missing step: the comparison is not blind', () => {
    const changed = golden.map((answer) => ({ ...answer, headers: { ...answer.headers } }));
    changed[3]!.body = changed[3]!.body.replace('"has_more":', '"has_more" :');
    changed[5]!.headers['x-content-type-options'] = 'sniff';
    changed[7]!.status = 500;
    changed.pop();
    expect(differences(golden, changed).map((d) => d.step)).toEqual(
      [3, 5, 7, golden.length - 1].map((i) => golden[i]!.step),
    );
  });
});

/** `GET /v1/contacts/Id…?x=1 …` → `/v1/contacts/:id`. */
function routeOf(request: string): string {
  const target = request.split(' ')[1]!.replace(/\?.*/, '');
  return target.replace(/^(\/v1\/(?:contacts|messages))\/[^/]+$/, '$1/:id');
}

/**
 * Where the two transports of the one core answer differently on purpose (docs/msw.md); everything
 * else they answer alike, as above.
 */
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
