import { compareSessions, comparisonLines, differs, type Step } from '../../contract-tests/twin/compare';
import { twinDistances } from '../../scripts/bench/twin-compare';
import { runBin } from './harness';
import { startStaging, STAGING_HARD_VARIANTS, STAGING_VARIANTS } from './staging';

/**
 * `messaging-contract twin compare`: a client's session on a server and on another, answer beside
 * answer, by form only: the same server twice (other tokens, other ids, other clocks) answers
 * alike; two servers of other conventions do not, and each difference is named.
 */
describe('messaging-contract twin compare', () => {
  it('finds nothing between a server and itself, and names what differs between two servers; 2 when a side does not answer', async () => {
    const [a, b] = STAGING_VARIANTS;
    const server = await startStaging(a!.options);
    const other = await startStaging(b!.options);
    try {
      const same = await runBin([
        'twin',
        'compare',
        '--server',
        server.url,
        '--twin',
        server.url,
        '--token',
        'cmp-1',
        '--twin-token',
        'cmp-2',
      ]);
      expect({ code: same.code, tail: same.output.trim().split('\n').at(-1) }).toEqual({
        code: 0,
        tail: '19 of 19 steps answered alike (server ≠ twin above).',
      });

      const apart = await runBin([
        'twin',
        'compare',
        '--server',
        server.url,
        '--twin',
        other.url,
        '--token',
        'cmp-3',
      ]);
      expect(apart.code).toBe(1);
      // Hex ids beside UUIDs (of the whole session, as the kit infers a profile's), and a
      // refusal's body of another form.
      expect(apart.output).toMatch(/\ncontact ids: string hex of \d+(?: to \d+)? ≠ string uuid\n/);
      expect(apart.output).toMatch(/\n3\. a create without phone_number, refused \(POST \/v1\/contacts\):\n/);
      expect(apart.output).toMatch(/steps answered alike \(server ≠ twin above\)/);

      const nobody = await runBin([
        'twin',
        'compare',
        '--server',
        'http://127.0.0.1:9',
        '--twin',
        server.url,
        '--token',
        'cmp-4',
      ]);
      expect({ code: nobody.code, output: nobody.output }).toEqual({
        code: 2,
        output: expect.stringContaining('the server did not answer'),
      });
    } finally {
      await server.close();
      await other.close();
    }
  }, 180_000);
});

describe('twin compare, a list no field orders', () => {
  const step = (name: string, request: string, body: unknown): Step => ({
    name,
    request,
    answer: { status: 200, contentType: 'application/json', body, text: JSON.stringify(body) },
  });
  const contact = (display: string | null, extra: Record<string, unknown> = {}) => ({
    id: 'c1',
    username: 'ada',
    display_name: display,
    last_active_at: null,
    ...extra,
  });
  const page = (...data: unknown[]) =>
    step('list contacts', 'GET /v1/contacts?limit=2', { has_more: true, data });

  it('compares such a list as a set, a nullable field null beside a value being two records, not two forms', () => {
    const server = [page(contact('Ada'), contact(null))];
    const twin = [page(contact(null), contact('Bo'))];
    // In a list whose order a field explains, the first records are the same record: null ≠ string.
    expect(compareSessions(server, [page(contact(null), contact('Ada'))]).steps[0]!.differences).toEqual([
      'data.0.display_name: string ≠ null',
    ]);
    const unordered = compareSessions(server, twin, new Set(['contacts']));
    expect(unordered.steps[0]!.differences).toEqual([]);
    // The messages' order is compared still: only the contacts list follows no field here.
    expect(unordered.order.unexplained).toBeUndefined();
    expect(compareSessions(server, twin, new Set(['messages'])).order).toEqual({ unexplained: true });
    expect(differs(unordered)).toBe(false);
    expect(comparisonLines(unordered).join('\n')).not.toMatch(/list order/);
  });

  it('still finds an item of one side that has no like on the other, whichever comes first', () => {
    const server = [page(contact('Ada'), contact('Bo', { object: 'contact' }))];
    const twin = [page(contact('Cy'), contact('Di'))];
    const compared = compareSessions(server, twin, new Set(['contacts']));
    expect(compared.steps[0]!.differences).toEqual(['data.0.object: present ≠ absent']);
    expect(differs(compared)).toBe(true);
    // A field the document never lets be null: null beside a string differs even so.
    const usernames = compareSessions(
      [page(contact('Ada'))],
      [page(contact('Ada', { username: null }))],
      new Set(['contacts']),
    );
    expect(usernames.steps[0]!.differences).toEqual(['data.0.username: string ≠ null']);
  });
});

describe("twin compare, the order of the session's two messages", () => {
  const answer = (body: unknown) => ({
    status: 200,
    contentType: 'application/json',
    body,
    text: JSON.stringify(body),
  });
  const T = 1_796_000_000;
  /** A session that sent two messages at these times and listed them in this order (ids). */
  const session = (times: [number, number], listed: [string, string]): Step[] => [
    {
      name: 'send a message',
      request: 'POST /v1/messages',
      answer: answer({ id: 'm1', created_at: times[0] }),
    },
    {
      name: 'send a message again',
      request: 'POST /v1/messages',
      answer: answer({ id: 'm2', created_at: times[1] }),
    },
    {
      name: "list the contact's conversation",
      request: 'GET /v1/messages?conversation_id=c',
      answer: answer({ has_more: false, data: listed.map((id) => ({ id })) }),
    },
  ];

  it('compares it where both sides sent the two within one tick, or both not, and names a difference', () => {
    const tie = compareSessions(session([T, T], ['m1', 'm2']), session([T + 60, T + 60], ['m2', 'm1']));
    expect(tie.order).toEqual({ server: 'the first sent first', twin: 'the last sent first' });
    expect(comparisonLines(tie).at(-1)).toMatch(/the list order differs\.$/);
    const apart = compareSessions(session([T, T + 1], ['m2', 'm1']), session([T + 60, T + 61], ['m2', 'm1']));
    expect(differs(apart)).toBe(false);
  });

  it('does not compare it where one side sent them within one tick and the other not: a tie there, newest first here', () => {
    const compared = compareSessions(session([T, T], ['m1', 'm2']), session([T + 60, T + 61], ['m2', 'm1']));
    expect(compared.order).toEqual({ apartOnOneSide: true });
    expect(differs(compared)).toBe(false);
    expect(comparisonLines(compared).join('\n')).toMatch(
      /list order: not compared \(the session's two messages have the same created_at on one side/,
    );
  });
});

describe('twin compare against the twin of every staging server', () => {
  it("finds the twin apart from a strict server once its input rules are taken out of the twin's profile", async () => {
    const [result] = await twinDistances('strict input formats', () => {}, false, ['inputRules']);
    expect({ code: result!.code, summary: result!.summary }).toEqual({
      code: 1,
      summary: '18 of 19 steps answered alike (server ≠ twin above).',
    });
    expect(result!.output).toMatch(/\n4\. a phone number written with spaces \(POST \/v1\/contacts\):\n/);
  }, 300_000);

  it('finds nothing: each answers the 19 steps alike (a hash order said not compared)', async () => {
    const results = await twinDistances(undefined, () => {});
    const compared = results.map((r) => ({ server: r.server, code: r.code, summary: r.summary }));
    expect(compared.length).toBe(STAGING_VARIANTS.length + STAGING_HARD_VARIANTS.length - 2);
    for (const result of compared)
      expect(result).toEqual({
        server: result.server,
        code: 0,
        summary: '19 of 19 steps answered alike (server ≠ twin above).',
      });
  }, 1_200_000);
});
