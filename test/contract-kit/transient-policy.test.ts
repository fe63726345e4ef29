import {
  isTransientError,
  isTransientStatus,
  MAX_ATTEMPTS,
  MAX_WAIT_MS,
  RateGate,
  retryAfterMs,
  waitBefore,
  withRetries,
  type Answered,
} from '../../common/transient';

/** The transient policy that the kit's client and the account walker share (common/transient.ts). */
describe('the transient policy', () => {
  const now = Date.parse('2024-05-01T12:00:00Z');

  it('reads Retry-After in seconds, as an HTTP-date, or not at all, and caps it', () => {
    expect(retryAfterMs('0', now)).toBe(0);
    expect(retryAfterMs(' 3 ', now)).toBe(3000);
    expect(retryAfterMs('Wed, 01 May 2024 12:00:04 GMT', now)).toBe(4000);
    expect(retryAfterMs('Wed, 01 May 2024 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('3600', now)).toBe(MAX_WAIT_MS);
    expect(retryAfterMs('Thu, 02 May 2024 12:00:00 GMT', now)).toBe(MAX_WAIT_MS);
    for (const none of [undefined, '', '-1', '1.5', 'soon', '12:00'])
      expect(retryAfterMs(none, now)).toBeUndefined();
  });

  it('backs off exponentially without Retry-After, within the cap, and takes Retry-After when given', () => {
    expect([1, 2, 3, 4].map((n) => waitBefore(n, undefined, now))).toEqual([200, 400, 800, 1600]);
    expect(waitBefore(30, undefined, now)).toBe(MAX_WAIT_MS);
    expect(waitBefore(4, '1', now)).toBe(1000);
  });

  it('tells transient statuses and errors from the server’s own answers and other failures', () => {
    expect([500, 501, 502, 503, 504, 505, 429, 404].filter(isTransientStatus)).toEqual([502, 503, 504]);
    for (const reason of [
      'ECONNRESET',
      'socket hang up',
      'EPIPE',
      'ECONNREFUSED',
      'no answer within 100 ms',
      'socket hang up (other side closed)',
    ])
      expect(isTransientError(reason)).toBe(true);
    for (const reason of ['ENOTFOUND', 'CERT_HAS_EXPIRED', 'EPROTO'])
      expect(isTransientError(reason)).toBe(false);
  });

  class Gone extends Error {}
  /** Answers `script` in turn ('reset' for none), and notes every wait and transient line. */
  function scripted(
    script: (number | 'reset' | 'refused-dns')[],
    retryAfter?: string,
    gate = new RateGate(() => now),
  ) {
    const waits: number[] = [];
    const lines: string[] = [];
    let sent = 0;
    const hooks = {
      once: async (): Promise<Answered> => {
        const next = script[Math.min(sent++, script.length - 1)]!;
        if (next === 'reset') throw new Gone('ECONNRESET');
        if (next === 'refused-dns') throw new Gone('ENOTFOUND');
        return { status: next, headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter } };
      },
      noAnswer: (error: unknown) => (error instanceof Gone ? error.message : undefined),
      onTransient: (line: string) => lines.push(line),
      giveUp: (line: string, noAnswer: boolean) => new Error(`${noAnswer ? 'none' : 'transient'}: ${line}`),
      sleep: async (ms: number) => void waits.push(ms),
      gate,
    };
    return { hooks, waits, lines, sent: () => sent };
  }

  it('sends an idempotent request again until the real answer, and hands back only that', async () => {
    const s = scripted([503, 'reset', 504, 404]);
    const answer = await withRetries('DELETE', '/v1/contacts/1', s.hooks);
    expect(answer.status).toBe(404);
    expect(s.lines).toEqual([
      'DELETE /v1/contacts/1 → 503',
      'DELETE /v1/contacts/1: ECONNRESET',
      'DELETE /v1/contacts/1 → 504',
    ]);
    expect(s.waits).toEqual([200, 400, 800]);
  });

  it('honours Retry-After on a 503', async () => {
    const s = scripted([503, 200], '0');
    expect((await withRetries('GET', '/v1/contacts', s.hooks)).status).toBe(200);
    expect(s.waits).toEqual([0]);
  });

  it('gives up after the bound, with the last transient answer', async () => {
    const s = scripted([502]);
    await expect(withRetries('PUT', '/v1/contacts/1', s.hooks)).rejects.toThrow(
      `transient: PUT /v1/contacts/1 → 502 (still transient after ${MAX_ATTEMPTS} attempts)`,
    );
    expect(s.sent()).toBe(MAX_ATTEMPTS);
  });

  it('does not send again what failed for good (a host that does not resolve)', async () => {
    const s = scripted(['refused-dns', 200]);
    await expect(withRetries('GET', '/v1/contacts', s.hooks)).rejects.toThrow(
      'none: GET /v1/contacts: ENOTFOUND',
    );
    expect(s.sent()).toBe(1);
  });

  it('waits out a 429 for any method, without counting it transient', async () => {
    const s = scripted([429, 429, 201], '2');
    expect((await withRetries('POST', '/v1/contacts', s.hooks)).status).toBe(201);
    expect({ waits: s.waits, lines: s.lines }).toEqual({ waits: [2000, 2000], lines: [] });
  });

  it('holds every request to the same server while a 429 is waited out, and gives up only after ten waits', async () => {
    let clock = now;
    const gate = new RateGate(() => clock);
    const limited = scripted([429, 200], '3', gate);
    // The first send meets the limit and waits until the test lets it go on.
    let goOn = () => {};
    const first = withRetries('GET', 'http://api.test/v1/contacts', {
      ...limited.hooks,
      sleep: (ms) => {
        limited.waits.push(ms);
        return new Promise<void>((resolve) => (goOn = resolve));
      },
    });
    await new Promise(setImmediate);
    expect({ waits: limited.waits, left: gate.waitLeft() }).toEqual({ waits: [3000], left: 3000 });
    // A second request, sent a second later while the first waits, waits for the rest.
    clock += 1000;
    const other = scripted([200], undefined, gate);
    expect((await withRetries('GET', 'http://api.test/v1/messages', other.hooks)).status).toBe(200);
    expect({ other: other.waits, sent: other.sent() }).toEqual({ other: [2000], sent: 1 });
    clock += 2000;
    goOn();
    expect((await first).status).toBe(200);
    expect(limited.sent()).toBe(2);

    const always = scripted([429], '1');
    await expect(withRetries('GET', '/v1/contacts', always.hooks)).rejects.toThrow(
      'transient: GET /v1/contacts: still rate limited (429) after 10 waits',
    );
    expect(always.sent()).toBe(11);
  });

  it('never sends a POST again without a reconciliation, and sends it again when it made nothing', async () => {
    const alone = scripted([503, 201]);
    await expect(withRetries('POST', '/v1/contacts', alone.hooks)).rejects.toThrow(
      'POST /v1/contacts → 503: its outcome is unknown, and it is not sent again',
    );
    expect(alone.sent()).toBe(1);

    const looked: string[] = [];
    const s = scripted(['reset', 201]);
    const answer = await withRetries('POST', '/v1/contacts', {
      ...s.hooks,
      reconcile: async (line) => void looked.push(line),
    });
    expect({ status: answer.status, looked }).toEqual({
      status: 201,
      looked: ['POST /v1/contacts: ECONNRESET'],
    });

    const found = scripted([502, 201]);
    await expect(
      withRetries('POST', '/v1/contacts', {
        ...found.hooks,
        reconcile: async () => {
          throw new Error('made all the same');
        },
      }),
    ).rejects.toThrow('made all the same');
    expect(found.sent()).toBe(1);
  });
});
