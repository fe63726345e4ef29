import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { driftLines, driftOf } from '../../contract-tests/twin/drift';
import { runBin } from './harness';
import { startStaging, STAGING_VARIANTS } from './staging';

/**
 * `messaging-contract twin check`: the drift of a server from the profile its twin was built on,
 * choice by choice, with the exchange that shows each change; exit 0, 1 or 2.
 */
type Json = Record<string, unknown>;
const profile = (choices: Json): Json => ({
  version: 1,
  server: { baseUrl: 'http://x', pathPrefix: '', observedAt: 'then', by: 'test' },
  ...choices,
});

describe('the drift of a profile', () => {
  const before = profile({
    timestampUnit: { value: 'seconds', seen: 'POST /v1/contacts → 201' },
    successStatus: { 'contacts.create': { value: 201, seen: 'a' } },
    ids: {
      contact: { value: { kind: 'hex', prefix: '', json: 'string', minLength: 8, maxLength: 12 }, seen: 'b' },
    },
    errors: { status: { deletedId: { value: 410, seen: 'c' }, unknownId: { unknown: 'not asked' } } },
  });

  it('finds nothing where every choice is observed again the same (ids: lengths within the range)', () => {
    const now = profile({
      timestampUnit: { value: 'seconds', seen: 'x' },
      successStatus: { 'contacts.create': { value: 201, seen: 'y' } },
      ids: {
        contact: {
          value: { json: 'string', prefix: '', kind: 'hex', minLength: 9, maxLength: 12 },
          seen: 'z',
        },
      },
      errors: { status: { deletedId: { value: 410, seen: 'w' }, unknownId: { unknown: 'still not asked' } } },
    });
    const drift = driftOf(before, now);
    expect(drift).toEqual({ changed: [], unobserved: [], same: 5, choices: 5 });
    expect(driftLines(drift)).toEqual([
      '5 of 5 choices as the profile says; 0 changed; 0 not observed again.',
    ]);
  });

  it("holds reaction names and the server's own fields to what a run can tell again", () => {
    const names = (taken: string[], refused: string[]) => ({ value: { taken, refused }, seen: 'x' });
    const own = (value: unknown) => ({
      value: {
        contact: [{ path: 'object', as: 'constant', value: 'contact' }],
        message: [],
        page: [{ path: 'request_id', as: 'example', value }],
        error: [],
      },
      seen: 'x',
    });
    const then = { reactionNames: names(['like', 'thumbs_up'], ['heart']), ownFields: own('req_1') };
    // Other names tried (a run's sequences draw some), another example's value: no change.
    const same = driftOf(
      then as never,
      {
        reactionNames: names(['like', 'party', 'thumbs_up'], ['heart', 'smile']),
        ownFields: own('req_2'),
      } as never,
    );
    expect(same).toEqual({ changed: [], unobserved: [], same: 2, choices: 2 });
    // A name refused before and taken now, a constant gone: both changed.
    const moved = driftOf(
      then as never,
      {
        reactionNames: names(['heart', 'like'], []),
        ownFields: { ...own('req_1'), value: { ...own('req_1').value, contact: [] } },
      } as never,
    );
    expect(moved.changed.map((c) => c.choice)).toEqual(['reactionNames', 'ownFields']);
  });

  it("holds an order's ties to a run that saw some", () => {
    const order = (ties?: string) => ({
      order: {
        messages: { value: { field: 'created_at', direction: 'desc', ...(ties ? { ties } : {}) }, seen: 'x' },
      },
    });
    expect(driftOf(order('older-first') as never, order() as never).changed).toEqual([]);
    expect(driftOf(order() as never, order('newer-first') as never).changed).toEqual([]);
    expect(
      driftOf(order('older-first') as never, order('newer-first') as never).changed.map((c) => c.choice),
    ).toEqual(['order.messages']);
    const turned = driftOf(
      order('older-first') as never,
      {
        order: { messages: { value: { field: 'created_at', direction: 'asc' }, seen: 'x' } },
      } as never,
    );
    expect(turned.changed.map((c) => c.choice)).toEqual(['order.messages']);
  });

  it('holds input rules to the limits and forms they state, not to the longest value a run sent', () => {
    const rules = (fields: Json, status?: number, notStated: string[] = []) => ({
      inputRules: { value: { fields, notStated, ...(status ? { status } : {}) }, seen: 'x' },
    });
    const strict = rules(
      {
        'contacts.username': { longestTaken: 40, maxLength: 40, refused: ['spaces inside'] },
        'messages.message': { longestTaken: 9000, refused: [] },
      },
      422,
    );
    const again = rules(
      {
        'contacts.username': { longestTaken: 40, maxLength: 40, refused: ['spaces inside'] },
        'messages.message': { longestTaken: 10000, refused: [] },
      },
      422,
      ['contacts.display_name: a value with emoji, spaces inside was refused, for one of them or all'],
    );
    expect(driftOf(strict as never, again as never).changed).toEqual([]);
    const loose = rules({ 'contacts.username': { longestTaken: 10000, refused: [] } });
    expect(driftOf(strict as never, loose as never).changed.map((c) => c.choice)).toEqual(['inputRules']);
    const otherStatus = rules(
      { 'contacts.username': { longestTaken: 40, maxLength: 40, refused: ['spaces inside'] } },
      400,
    );
    expect(driftOf(strict as never, otherStatus as never).changed.map((c) => c.choice)).toEqual([
      'inputRules',
    ]);
  });

  it('names each choice that changed, with the exchange that shows it, and each not observed again', () => {
    const now = profile({
      timestampUnit: { value: 'milliseconds', seen: 'POST /v1/contacts → 201 (created_at 1764500000000)' },
      successStatus: { 'contacts.create': { unknown: 'the run saw no successful contacts.create' } },
      ids: {
        contact: {
          value: { kind: 'hex', prefix: '', json: 'string', minLength: 8, maxLength: 16 },
          seen: 'v',
        },
      },
      errors: {
        status: {
          deletedId: { value: 410, seen: 'w' },
          unknownId: { value: 404, seen: 'GET /v1/contacts/x → 404' },
        },
      },
    });
    const drift = driftOf(before, now);
    expect(drift.changed.map((c) => c.choice)).toEqual([
      'timestampUnit',
      'ids.contact',
      'errors.status.unknownId',
    ]);
    expect(drift.unobserved).toEqual([
      {
        choice: 'successStatus.contacts.create',
        before: 201,
        why: 'the run saw no successful contacts.create',
      },
    ]);
    expect(driftLines(drift)[0]).toBe(
      '  changed: timestampUnit: "seconds" → "milliseconds" (seen: POST /v1/contacts → 201 (created_at 1764500000000))',
    );
    expect(driftLines(drift).at(-1)).toBe(
      '1 of 5 choices as the profile says; 3 changed; 1 not observed again.',
    );
  });
});

describe('messaging-contract twin check', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twin-check-'));
  const [a, b] = STAGING_VARIANTS;
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("exits 0 against the server its profile shows, 1 against another server's, naming what changed; 2 on a profile it cannot read", async () => {
    const server = await startStaging(a!.options);
    const other = await startStaging(b!.options);
    try {
      const profileOf = async (url: string, file: string) => {
        const run = await runBin([
          '--base-url',
          url,
          '--token',
          `profile-${path.basename(file)}`,
          '--sequences',
          '0',
          '--profile-out',
          file,
        ]);
        expect(fs.existsSync(file)).toBe(true);
        return run;
      };
      const own = path.join(dir, 'a.json');
      const others = path.join(dir, 'b.json');
      await Promise.all([profileOf(server.url, own), profileOf(other.url, others)]);

      const same = await runBin([
        'twin',
        'check',
        '--profile',
        own,
        '--base-url',
        server.url,
        '--token',
        'check-a',
      ]);
      expect({ code: same.code, tail: same.output.trim().split('\n').at(-1) }).toEqual({
        code: 0,
        tail: expect.stringMatching(
          /^(\d+) of \1 choices as the profile says; 0 changed; 0 not observed again\.$/,
        ),
      });

      const moved = await runBin([
        'twin',
        'check',
        '--profile',
        others,
        '--base-url',
        server.url,
        '--token',
        'check-b',
      ]);
      expect(moved.code).toBe(1);
      // The two variants differ in their ids, order and paging (staging.ts), each shown now.
      for (const choice of ['ids.contact', 'order.contacts', 'paging'])
        expect(moved.output).toMatch(
          new RegExp(`  changed: ${choice.replace('.', '\\.')}: .+ → .+ \\(seen: `),
        );

      fs.writeFileSync(path.join(dir, 'bad.json'), '{');
      const bad = await runBin(['twin', 'check', '--profile', path.join(dir, 'bad.json'), '--token', 't']);
      expect({ code: bad.code, output: bad.output }).toEqual({
        code: 2,
        output: expect.stringContaining('--profile: '),
      });
    } finally {
      await server.close();
      await other.close();
    }
  }, 300_000);
});
