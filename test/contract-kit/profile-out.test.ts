import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import type { InputRules, Observed, OwnField, OwnFields, ServerProfile } from '../../common/server-profile';
import { inBatches, runBin, startWrapped, type KitRun, type Running } from './harness';
import {
  STAGING_DEFAULTS,
  STAGING_HARD_VARIANTS,
  STAGING_VARIANTS,
  startStaging,
  type StagingOptions,
} from './staging';

/**
 * `messaging-contract --profile-out FILE`: the server's choices where the document says "not
 * shown", each observed with the exchange that showed it or unknown with the reason. Against the
 * mock the profile is the mock's conventions; against honest staging servers it is what their
 * options say; every profile written is valid by common/server-profile.schema.json.
 */
const SCHEMA = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', '..', 'common', 'server-profile.schema.json'), 'utf8'),
) as object;
const validate = new Ajv2020({ allErrors: true }).compile(SCHEMA);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'profile-out-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Reads a profile written by a run, after checking it against the schema. */
function readProfile(file: string): ServerProfile {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  const valid = validate(profile);
  expect({ file, errors: valid ? [] : validate.errors }).toEqual({ file, errors: [] });
  return profile as ServerProfile;
}

/** Every choice of a profile by a name of its own (`successStatus.contacts.create`), 35 in all. */
function choices(profile: ServerProfile): [string, Observed<unknown>][] {
  const { version: _version, server: _server, errors, ...rest } = profile;
  const out: [string, Observed<unknown>][] = [];
  const add = (prefix: string, value: object) => {
    if ('value' in value || 'unknown' in value) out.push([prefix, value as Observed<unknown>]);
    else for (const [key, inner] of Object.entries(value)) add(prefix ? `${prefix}.${key}` : key, inner);
  };
  add('', rest);
  add('errors', errors);
  return out;
}

/** One exchange as a profile names it, or several joined by '; ' (limit: its pages and probes). */
const SEEN =
  /^(GET|POST|PUT|DELETE) \/v1\/?[^ ]* → [1-5][0-9]{2}(; (GET|POST|PUT|DELETE) \/v1\/?[^ ]* → [1-5][0-9]{2})*$/;

/** Compares every choice with the values expected, each known and named by its exchange. */
function expectProfile(profile: ServerProfile, expected: Record<string, unknown>): void {
  const got = choices(profile).map(([name, observed]): [string, Observed<unknown>] =>
    'value' in observed ? [name, { ...observed, value: summary(name, observed.value) }] : [name, observed],
  );
  expect(got.map(([name]) => name).sort()).toEqual(Object.keys(expected).sort());
  for (const [name, observed] of got)
    expect({ [name]: observed }).toEqual({
      [name]: { value: expected[name], seen: expect.stringMatching(SEEN) },
    });
}

/**
 * The server's own fields as `path as` each, by where they are: what the kit explained them as
 * (an example's value is whichever the run saw first).
 */
const explanations = (fields: OwnFields): Record<string, string[]> =>
  Object.fromEntries(
    Object.entries(fields).map(([where, list]) => [
      where,
      (list as OwnField[]).map((f) => `${f.path} ${f.as}`),
    ]),
  );

/**
 * The reaction names as a closed list of those taken (a plain name was refused), or open: which
 * other names the kit sent depends on the rules it ran.
 */
const namesOf = (value: { taken: string[]; refused: string[] }): string => {
  const plain = (name: string) => /^[a-z_]+$/.test(name);
  return value.refused.some(plain) ? `closed: ${value.taken.join(', ')}` : 'open';
};

/**
 * The input rules as each field's limit and refused forms (`at most 40, spaces inside`), beside the
 * status and what was not stated: how long the longest value taken was depends on the run's id.
 */
const rulesOf = (value: InputRules): Record<string, unknown> => ({
  ...Object.fromEntries(
    Object.entries(value.fields)
      .filter(([, rule]) => rule.maxLength !== undefined || rule.refused.length > 0)
      .map(([field, rule]) => [
        field,
        [...(rule.maxLength === undefined ? [] : [`at most ${rule.maxLength}`]), ...rule.refused].join(', '),
      ]),
  ),
  ...(value.status === undefined ? {} : { status: value.status }),
  ...(value.notStated.length === 0 ? {} : { notStated: value.notStated }),
});

/**
 * A choice as the expectations below state it: some in a summary of their own. An order's ties
 * show only where a page held two of the run's records of one created_at: `tiesAs` checks them.
 */
const summary = (name: string, value: unknown): unknown =>
  name === 'ownFields'
    ? explanations(value as OwnFields)
    : name === 'reactionNames'
      ? namesOf(value as { taken: string[]; refused: string[] })
      : name === 'inputRules'
        ? rulesOf(value as InputRules)
        : name.startsWith('order.')
          ? { ...(value as object), ties: undefined }
          : value;

/** Ties, where a run saw them, as a list by created_at in that direction keeps them in insertion order. */
function tiesAs(profile: ServerProfile, expected: Partial<Record<'contacts' | 'messages', string>>): void {
  for (const list of ['contacts', 'messages'] as const) {
    const order = profile.order[list];
    if ('value' in order && order.value.ties !== undefined)
      expect({ list, ties: order.value.ties }).toEqual({ list, ties: expected[list] });
  }
}

const OPERATIONS_OF = (statuses: { create: number; delete: number }) => ({
  'successStatus.contacts.list': 200,
  'successStatus.contacts.create': statuses.create,
  'successStatus.contacts.retrieve': 200,
  'successStatus.contacts.update': 200,
  'successStatus.contacts.delete': statuses.delete,
  'successStatus.messages.list': 200,
  'successStatus.messages.create': statuses.create,
  'successStatus.messages.retrieve': 200,
  'successStatus.messages.update': 200,
  'successStatus.messages.delete': statuses.delete,
});

/** The mock's conventions (docs/api.md C1–C20) as a profile states them. */
const MOCK_ID = { kind: 'alphanumeric', prefix: '', json: 'string', length: 16 };
const MOCK: Record<string, unknown> = {
  contentType: 'application/json',
  ...OPERATIONS_OF({ create: 201, delete: 204 }),
  'deleteAnswer.contacts': { status: 204, body: 'empty' },
  'deleteAnswer.messages': { status: 204, body: 'empty' },
  'ids.contact': MOCK_ID,
  'ids.message': MOCK_ID,
  'ids.conversation': MOCK_ID,
  timestampUnit: 'seconds',
  'order.contacts': { field: 'created_at', direction: 'desc' },
  'order.messages': { field: 'created_at', direction: 'desc' },
  paging: { kind: 'after-id', param: 'starting_after' },
  limit: { default: 10, max: 100, overMax: 'refuse' },
  'errors.body': {
    contentType: 'application/json',
    messageAt: 'message',
    codeAt: 'code',
    keys: ['code', 'message', 'param', 'type'],
  },
  'errors.status.unknownId': 404,
  'errors.status.deletedId': 404,
  'errors.status.malformedId': 404,
  'errors.status.missingParameter': 400,
  'errors.status.invalidLimit': 400,
  'errors.status.missingToken': 401,
  avatarDefault: { kind: 'url', template: 'https://api.dicebear.com/9.x/initials/svg?seed={username}' },
  reactions: { layout: 'per-name' },
  attachments: {
    sent: ['filename', 'file_url', 'file_type'],
    answered: ['created_at', 'file_size', 'file_type', 'file_url', 'filename', 'id', 'message_id'],
  },
  // Its refusals' param and type (C3), the only fields beyond the document.
  ownFields: { contact: [], message: [], page: [], error: ['param param-refused', 'type constant'] },
  touchOnSend: false,
  reactionNames: 'open',
  jsonBodies: { taken: true },
  // Its own limits (C14), found to the character; it takes every form of value the kit sends.
  inputRules: {
    'contacts.avatar_url': 'at most 2048',
    'contacts.display_name': 'at most 64',
    'contacts.username': 'at most 64',
    'messages.message': 'at most 4000',
    status: 400,
  },
};

/** A staging server's largest limit (staging.ts: "A `limit` above 50: refused, or clamped to 50"). */
const STAGING_MAX_LIMIT = 50;

/** What a staging server's options say its profile is. */
function expectedFrom(options: Partial<StagingOptions>): Record<string, unknown> {
  const o: StagingOptions = { ...STAGING_DEFAULTS, ...options };
  const deleted = {
    '200-object': { status: 200, body: 'object' },
    '202-deleted': { status: 202, body: 'marker', keys: ['deleted', 'id'] },
    '204': { status: 204, body: 'empty' },
  }[o.deleteAnswer];
  // Counters from 1000 and 2000 (four digits), 8 to 12 hex digits, UUIDs of version 4.
  const id = (prefix: string) =>
    ({
      prefixed: { kind: 'alphanumeric', prefix, json: 'string', length: 14 },
      numeric: { kind: 'numeric', prefix: '', json: 'string', length: 4 },
      hex: { kind: 'hex', prefix: '', json: 'string', minLength: 8, maxLength: 12 },
      uuid: { kind: 'uuid', prefix: '', json: 'string', version: 4 },
    })[o.ids];
  const order = (text: 'username' | 'message') =>
    o.order === 'hash'
      ? { field: null }
      : { field: o.order === 'oldest' ? 'created_at' : text, direction: 'asc' };
  return {
    contentType: 'application/json',
    ...OPERATIONS_OF({ create: o.createStatus, delete: deleted.status }),
    'deleteAnswer.contacts': deleted,
    'deleteAnswer.messages': deleted,
    'ids.contact': id('ct_'),
    'ids.message': id('msg_'),
    'ids.conversation': id('conv_'),
    timestampUnit: o.timestamps,
    'order.contacts': order('username'),
    'order.messages': order('message'),
    paging: {
      page: { kind: 'page', param: 'page' },
      offset: { kind: 'offset', param: 'offset' },
      token: { kind: 'body-token', param: 'page_token', bodyKey: 'next_page_token' },
      'link-body': { kind: 'body-url', bodyKey: 'links.next' },
      'link-header': { kind: 'link-header' },
    }[o.paging],
    limit: { default: o.defaultLimit, max: STAGING_MAX_LIMIT, overMax: o.overLimit },
    'errors.body': {
      nested: {
        contentType: 'application/json',
        messageAt: 'error.message',
        keys: ['error'],
        placeKeys: ['message', 'param', 'status'],
      },
      list: {
        contentType: 'application/json',
        messageAt: 'errors.0.detail',
        codeAt: 'errors.0.code',
        keys: ['errors'],
        placeKeys: ['code', 'detail', 'source'],
      },
      problem: {
        contentType: 'application/problem+json',
        messageAt: 'detail',
        keys: ['detail', 'invalid_params', 'status', 'title', 'type'],
      },
    }[o.errorShape],
    // A well-formed id that was never made is not found, whatever malformedId and goneStatus say.
    'errors.status.unknownId': 404,
    'errors.status.deletedId': o.goneStatus,
    'errors.status.malformedId': o.malformedId === 'invalid' ? o.invalidStatus : 404,
    'errors.status.missingParameter': o.invalidStatus,
    'errors.status.invalidLimit': o.invalidStatus,
    'errors.status.missingToken': 401,
    avatarDefault: { kind: 'url', template: 'https://cdn.staging.example/avatars/default.png' },
    reactions: { layout: o.reactionsLayout },
    // The kit's first shape, which every loose variant takes; a strict one takes only its own.
    attachments: {
      sent: o.formats === 'strict' ? ['url', 'name'] : ['filename', 'file_url', 'file_type'],
      answered:
        o.attachments === 'own-shape'
          ? ['content_type', 'id', 'name', 'size', 'url']
          : ['file_type', 'file_url', 'filename', 'id'],
    },
    ownFields: ownFieldsFrom(o),
    touchOnSend: o.touchOnMessage,
    reactionNames: o.reactionNames === 'restricted' ? 'closed: like, thumbs_up' : 'open',
    // Every staging server reads forms only, and refuses other bodies with 415.
    jsonBodies: { taken: false, status: 415 },
    // Strict formats (staging.ts), as far as the values the kit sends show them: usernames with
    // spaces (the other classes it sends have spaces too), display names with control characters,
    // phone numbers other than + and digits; an avatar_url or display_name sent empty.
    inputRules:
      o.formats === 'strict'
        ? {
            'contacts.avatar_url': 'empty',
            'contacts.display_name': 'at most 100, empty, control characters',
            'contacts.phone_number': 'spaces inside, no leading +, brackets, dots or dashes',
            'contacts.username': 'at most 40, spaces inside',
            'messages.message': 'at most 4000',
            status: o.invalidStatus,
          }
        : {},
  };
}

/** The fields beyond the document that a staging server's options add, as the kit explains them. */
function ownFieldsFrom(o: StagingOptions): Record<string, string[]> {
  const own = o.ownFields === true;
  return {
    contact: own ? ['object constant', 'url self'] : [],
    message: own ? ['contact.object constant', 'links.self self', 'object constant'] : [],
    page: [
      ...(own ? ['object constant'] : []),
      ...{
        page: ['page param', 'per_page param'],
        offset: ['limit param', 'offset param', 'total count'],
        token: ['prev_page_token prev'],
        'link-body': ['links.prev prev'],
        'link-header': [],
      }[o.paging],
      ...(own ? ['total_count count'] : []),
    ].sort(),
    error: {
      nested: [
        ...(own ? ['error.doc_url constant'] : []),
        'error.param param-refused',
        'error.status status',
      ],
      list: ['errors.0.source.parameter param-refused'],
      problem: ['invalid_params.0.name param-refused', 'status status', 'title example', 'type example'],
    }[o.errorShape],
  };
}

const lastLine = (run: KitRun) => run.output.trimEnd().split('\n').at(-1);

describe('messaging-contract --profile-out', () => {
  /** The requests each mock saw, as `GET /v1/contacts?limit=101` (no Authorization: `(no token)`). */
  const seenBy = { profiled: [] as string[], ordinary: [] as string[] };
  const logging = (into: string[]) => ({
    request(req: { method: string; path: string; query: URLSearchParams; headers: Record<string, string> }) {
      const query = req.query.toString();
      into.push(
        `${req.method} ${req.path}${query ? `?${query}` : ''}${req.headers.authorization ? '' : ' (no token)'}`,
      );
    },
  });
  const runs: Record<string, KitRun> = {};
  const mockFile = path.join(dir, 'mock', 'profile.json');
  const reportFile = path.join(dir, 'mock', 'report.md');

  beforeAll(async () => {
    const servers: Running[] = [];
    try {
      const profiled = await startWrapped(logging(seenBy.profiled));
      const ordinary = await startWrapped(logging(seenBy.ordinary));
      servers.push(profiled, ordinary);
      const [withProfile, without] = await inBatches(
        [
          () =>
            runBin([
              '--base-url',
              profiled.url,
              '--token',
              'profile-mock',
              '--sequences',
              '0',
              '--profile-out',
              mockFile,
              '--report',
              reportFile,
            ]),
          () => runBin(['--base-url', ordinary.url, '--token', 'profile-none', '--sequences', '0']),
        ],
        2,
      );
      runs.mock = withProfile!;
      runs.ordinary = without!;
    } finally {
      for (const server of servers) await server.close();
    }
  }, 300_000);

  it("writes the mock's conventions, every one observed, and says so on its last line and in the report", () => {
    const run = runs.mock!;
    expect({ code: run.code, problems: run.json?.problems }).toEqual({ code: 0, problems: [] });
    const profile = readProfile(mockFile);
    expectProfile(profile, MOCK);
    // The mock's lists: created_at descending, the later created first among equals.
    tiesAs(profile, { contacts: 'newer-first', messages: 'newer-first' });
    expect(profile.server).toEqual({
      baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      pathPrefix: '',
      observedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      by: expect.stringMatching(/^messaging-contract \d+\.\d+\.\d+/),
    });
    expect(profile).not.toHaveProperty('$schema');
    expect(fs.readFileSync(mockFile, 'utf8')).toBe(`${JSON.stringify(profile, null, 2)}\n`);
    // Each named by the exchange that showed it.
    expect(profile.successStatus['contacts.create']).toEqual({ value: 201, seen: 'POST /v1/contacts → 201' });
    expect(profile.errors.status.invalidLimit).toEqual({
      value: 400,
      seen: 'GET /v1/contacts?limit=0 → 400',
    });
    expect(profile.errors.status.unknownId).toEqual({
      value: 404,
      seen: expect.stringMatching(/^GET \/v1\/contacts\/[A-Za-z0-9]{16} → 404$/),
    });
    expect(profile.limit).toMatchObject({
      seen: expect.stringContaining('GET /v1/contacts?limit=101 → 400'),
    });
    expect(lastLine(run)).toBe(`Server profile written to ${mockFile} (36 of 36 choices observed).`);
    expect(fs.readFileSync(reportFile, 'utf8')).toContain(
      `Written as a server profile to \`${mockFile}\` (--profile-out): 36 of 36 choices observed.`,
    );
    expect(run.json!.requests).toBeLessThanOrEqual(run.json!.budget!);
    expect(run.json?.leftovers).toEqual([]);
  });

  it('sends its probes only when asked for a profile', () => {
    // limit=0 refused, -1 and abc are not asked.
    const probes = ['GET /v1/contacts?limit=0', 'GET /v1/contacts?limit=101', 'GET /v1/contacts?limit=1000'];
    expect(probes.filter((probe) => seenBy.profiled.includes(probe))).toEqual(probes);
    expect(probes.filter((probe) => seenBy.ordinary.includes(probe))).toEqual([]);
    expect(seenBy.profiled).toContain('GET /v1/contacts (no token)');
    const ordinary = runs.ordinary!;
    expect(ordinary.code).toBe(0);
    expect(ordinary.json).not.toHaveProperty('profileOut');
    expect(ordinary.output).not.toContain('Server profile');
  });

  it('leaves unknown, with the reason, what a run of one rule could not observe, and guesses nothing', async () => {
    const server = await startWrapped();
    const file = path.join(dir, 'one-rule.json');
    try {
      const run = await runBin(
        ['--base-url', server.url, '--token', 'profile-one', '--rule', 'api.v1-prefix'],
        { CONTRACT_PROFILE_OUT: file },
      );
      expect(run.code).toBe(0);
      const profile = readProfile(file);
      const unknown = choices(profile).filter(([, observed]) => 'unknown' in observed);
      // (The search for values before the rules updates and retrieves what it keeps for the last
      // sweep: those statuses are observed even by a run of one rule.)
      expect(Object.fromEntries(unknown)).toEqual({
        'errors.status.missingParameter': {
          unknown: 'the run saw no create refused for a required parameter left out',
        },
        avatarDefault: { unknown: 'the run created no contact without avatar_url' },
        'errors.status.malformedId': { unknown: "the run retrieved none of the kit's made-up ids" },
      });
      // What it did observe is the mock's; its values were all taken, so it states no input rule.
      expect(profile.inputRules).toMatchObject({ value: { notStated: [] } });
      for (const [name, observed] of choices(profile))
        if ('value' in observed && name !== 'inputRules')
          expect({ [name]: summary(name, observed.value) }).toEqual({ [name]: MOCK[name] });
      expect(lastLine(run)).toBe(`Server profile written to ${file} (33 of 36 choices observed).`);
    } finally {
      await server.close();
    }
  }, 120_000);

  describe("against staging servers: their options' values, every one observed", () => {
    const variants = [
      ...STAGING_VARIANTS.filter((v) => v.options.paging !== 'link-body'),
      // The links in the body carry the path prefix of a base URL such as http://host/api.
      STAGING_HARD_VARIANTS.find((v) => v.options.prefix)!,
      STAGING_HARD_VARIANTS.find((v) => v.options.formats === 'strict')!,
    ];
    const staged = new Map<string, { run: KitRun; file: string; url: string }>();
    beforeAll(async () => {
      await inBatches(
        variants.map((variant, i) => async () => {
          const server = await startStaging(variant.options);
          const file = path.join(dir, `staging-${i}.json`);
          const url = server.url + (variant.options.prefix ?? '');
          try {
            const run = await runBin([
              '--base-url',
              url,
              '--token',
              `profile-${i}`,
              '--sequences',
              '0',
              '--profile-out',
              file,
            ]);
            staged.set(variant.name, { run, file, url });
          } finally {
            await server.close();
          }
        }),
        2,
      );
    }, 600_000);

    it.each(variants.map((v) => [v.name, v.options] as const))('%s', (name, options) => {
      const { run, file, url } = staged.get(name)!;
      expect({ code: run.code, problems: run.json?.problems }).toEqual({ code: 0, problems: [] });
      const profile = readProfile(file);
      expectProfile(profile, expectedFrom(options));
      // Oldest first ([created_at, insertion]): the older first among equals.
      if (options.order === 'oldest') tiesAs(profile, { contacts: 'older-first', messages: 'older-first' });
      expect(profile.server).toMatchObject({ baseUrl: url, pathPrefix: options.prefix ?? '' });
      expect(lastLine(run)).toBe(`Server profile written to ${file} (36 of 36 choices observed).`);
    });
  });
});
