import { validate } from '@readme/openapi-parser';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { listen, type RunningServer } from '../../src/express/server';
import { undocumented } from './documented';
import linkPaging from './link-paging.profile.json';
import staging from './staging-like.profile.json';

/**
 * A twin's /openapi.json describes what the twin answers, not what the mock alone would: the
 * prefix, statuses, content types, error body, paging, limits, records in the server's spelling.
 * Each answer of every operation is checked against it (./documented.ts); the mock's own document
 * would not describe the twin, and a document wrong in one status or one field is caught.
 */
type Json = Record<string, any>;
const root = path.join(__dirname, '..', '..');
const profile = staging as Record<string, unknown>;
let twin: RunningServer;
let mock: RunningServer;
let document: Json;

beforeAll(async () => {
  twin = await listen({ port: 0, contacts: 12, messages: 30, conventions: profile });
  mock = await listen({ port: 0, contacts: 12, messages: 30 });
  document = (await (await fetch(`${twin.url}/openapi.json`)).json()) as Json;
});
afterAll(async () => {
  await twin.close();
  await mock.close();
});

describe("The twin's OpenAPI document", () => {
  it('is a valid OpenAPI 3.1 document, and says the conventions in force', async () => {
    expect(await validate(structuredClone(document) as never)).toEqual(
      expect.objectContaining({ valid: true }),
    );
    const shown = (await (
      await fetch(`${twin.url}/__mock/conventions`, { headers: { Authorization: 'Bearer t' } })
    ).json()) as Json;
    expect(document.info['x-conventions']).toEqual({ taken: shown.taken, not_mirrored: shown.not_mirrored });
  });

  it("passes the lint the mock's own document passes: Redocly's and Spectral's rules, no warning", async () => {
    // Run beside the event loop, not blocking it: the servers of this file live in this process, and
    // a loop held for the lint's seconds leaves the client kept-alive sockets that the servers closed
    // meanwhile, unseen until the next request is sent on one (ECONNRESET).
    const ran = await promisify(execFile)(
      path.join(root, 'node_modules', '.bin', 'tsx'),
      ['scripts/lint-openapi.ts', '--conventions', path.join(__dirname, 'staging-like.profile.json')],
      { cwd: root, encoding: 'utf8' },
    ).then(
      ({ stdout }) => ({ status: 0, stdout }),
      (error: { code?: number; stdout?: string }) => ({ status: error.code, stdout: error.stdout ?? '' }),
    );
    expect({ status: ran.status, last: ran.stdout.trim().split('\n').at(-1) }).toEqual({
      status: 0,
      last: 'openapi lint: 2 passed, 0 failed',
    });
  }, 120_000);

  it('puts the API under the prefix, and leaves the control routes where they are', () => {
    const paths = Object.keys(document.paths);
    expect(paths.filter((path) => path.includes('/v1/')).every((path) => path.startsWith('/api/v1/'))).toBe(
      true,
    );
    expect(paths).toEqual(expect.arrayContaining(['/api/v1/contacts', '/__mock/state', '/openapi.json']));
  });

  it("describes every answer of the twin: each operation's successes and refusals", async () => {
    const { problems, answers, paged } = await undocumented(twin.url, 'openapi-twin');
    expect({ problems, paged }).toEqual({ problems: [], paged: true });
    expect(answers).toBeGreaterThanOrEqual(15);
  });

  it('describes the twin of a server that fills the gaps otherwise: a Link header, a nested error, UUIDs', async () => {
    const other = await listen({ port: 0, contacts: 12, messages: 30, conventions: linkPaging });
    try {
      const { problems, paged } = await undocumented(other.url, 'openapi-other');
      expect({ problems, paged }).toEqual({ problems: [], paged: true });
    } finally {
      await other.close();
    }
  });

  it('describes the mock alone as well', async () => {
    const { problems, paged } = await undocumented(mock.url, 'openapi-mock');
    expect({ problems, paged }).toEqual({ problems: [], paged: true });
  });

  it("is needed: the mock's own document does not describe the twin", async () => {
    const own = (await (await fetch(`${mock.url}/openapi.json`)).json()) as Json;
    // The mock's document under the twin's prefix, so that the requests reach the twin.
    own.paths = Object.fromEntries(
      Object.entries(own.paths).map(([path, item]) => [path.startsWith('/v1') ? `/api${path}` : path, item]),
    );
    const { problems } = await undocumented(twin.url, 'openapi-own', own);
    expect(problems.length).toBeGreaterThan(0);
  });

  it('would catch a document wrong in one status, or in one field of a record', async () => {
    const status = structuredClone(document);
    const create = status.paths['/api/v1/contacts'].post.responses;
    create['201'] = create['200'];
    delete create['200'];
    expect((await undocumented(twin.url, 'openapi-status', status)).problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^POST \/api\/v1\/contacts answered 200, which the document does not list/),
      ]),
    );
    const field = structuredClone(document);
    field.components.schemas.Contact.required.push('nickname');
    expect((await undocumented(twin.url, 'openapi-field', field)).problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/must have required property 'nickname'/)]),
    );
  });
});
