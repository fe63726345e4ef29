import { get } from '../../common/http';
import { startProxy } from '../../contract-tests/proxy/proxy';
import { failedRules, failures, runBin, startWrapped, type ProxyResponse, type Running } from './harness';
import { STAGING_VARIANTS, startStaging } from './staging';

/**
 * Transient answers (502/503/504, dropped connections) are never the server's verdicts: the kit
 * sends again what it may, looks up what a POST of unknown outcome made before sending it again,
 * and past a share of transient answers says it cannot judge (common/transient.ts,
 * contract-tests/model/reconcile.ts, contract-tests/http/transients.ts).
 */
const honest = STAGING_VARIANTS.find((v) => v.name === 'numeric ids, hash order, links in the body')!;

/** The contacts the kit named (`ct<run>_…`) that the server still holds for `token`. */
async function kitContacts(server: Running, token: string): Promise<string[]> {
  const answer = await fetch(`${server.url}/v1/contacts?limit=100`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  const page = (await answer.json()) as { data: { username: string }[] };
  return page.data.map((c) => c.username).filter((name) => /^ct[a-z0-9]{6}_/.test(name));
}

describe('transient answers', () => {
  it('too many of them (every third GET a 503): exit 2, naming them, and no rule judged failed', async () => {
    const server = await startStaging({
      ...honest.options,
      flakyEdge: { gatewayEvery: 3, resetEvery: 1000 },
    });
    try {
      const run = await runBin([
        '--base-url',
        server.url,
        '--token',
        'unsteady',
        ...[
          'contacts.retrieve',
          'contacts.fields',
          'messages.retrieve',
          'contacts.delete.cascades-conversation',
        ].flatMap((rule) => ['--rule', rule]),
      ]);
      expect(run.code).toBe(2);
      expect(run.json?.problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^the server answered \d+ of \d+ requests transiently \(502\/503\/504, resets, timeouts\): more than 10%, so no rule is judged on them: GET \S+ → 50[234]/,
          ),
        ]),
      );
      expect(failedRules(run)).toEqual([]);
      expect(run.json?.leftovers).toEqual([]);
    } finally {
      await server.close();
    }
  }, 300_000);

  /** A POST of the rule contacts.delete's own contact, the first time only. */
  const firstDeleteContact = () => {
    let done = false;
    return (method: string, path: string, form: URLSearchParams | undefined) => {
      if (done || method !== 'POST' || path !== '/v1/contacts') return false;
      if (!/_delete_/.test(form?.get('username') ?? '')) return false;
      done = true;
      return true;
    };
  };

  it.each([
    ['drops the connection', 0],
    ['answers 502', 502],
  ])(
    'a POST the server carried out and then %s: the kit finds the contact, deletes it, and judges no rule on it',
    async (_how, status) => {
      const hit = firstDeleteContact();
      const server = await startWrapped({
        response(req, res) {
          if (hit(req.method, req.path, req.form))
            Object.assign(res, { status, body: undefined, text: 'gateway' });
        },
      });
      try {
        const run = await runBin([
          '--base-url',
          server.url,
          '--token',
          `made${status}`,
          '--rule',
          'contacts.delete',
        ]);
        expect(run.code).toBe(2);
        expect(failedRules(run)).toEqual([]);
        expect(run.json?.problems).toEqual([
          expect.stringMatching(
            /^contacts\.delete: could not judge: POST \S+\/v1\/contacts(: ECONNRESET|: socket hang up| → 502): its outcome was unknown, and the contact it sent was made all the same \(\w+\); the kit deletes it/,
          ),
        ]);
        expect(run.json?.leftovers).toEqual([]);
        expect(await kitContacts(server, `made${status}`)).toEqual([]);
      } finally {
        await server.close();
      }
    },
    120_000,
  );

  it('a POST answered 503 without being carried out: sent again, and the run passes', async () => {
    const hit = firstDeleteContact();
    const server = await startWrapped({
      request(req): ProxyResponse | void {
        if (hit(req.method, req.path, req.form))
          return { status: 503, headers: { 'retry-after': '0' }, text: 'busy' };
      },
    });
    try {
      const run = await runBin(['--base-url', server.url, '--token', 'busy', '--rule', 'contacts.delete']);
      expect({ code: run.code, failed: failures(run), problems: run.json?.problems }).toEqual({
        code: 0,
        failed: [],
        problems: [],
      });
      expect(run.json?.transient).toEqual({
        count: 1,
        examples: [expect.stringMatching(/^POST \S+ → 503$/)],
      });
      expect(await kitContacts(server, 'busy')).toEqual([]);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('the account walker’s GET waits out the flaky edge too, and hands back only real answers', async () => {
    const server = await startStaging({ ...honest.options, flakyEdge: { gatewayEvery: 2, resetEvery: 5 } });
    try {
      const statuses = new Set<number>();
      for (let i = 0; i < 12; i++)
        statuses.add(
          (await get('/v1/contacts', { baseUrl: server.url, token: 'walker', timeoutMs: 5000 })).status,
        );
      expect([...statuses]).toEqual([200]);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('the proxy never judges a target’s 502/503/504 against the server: a problem of the target, not a violation', async () => {
    const edge = [503, 502, 504];
    const server = await startWrapped({
      request(): ProxyResponse | void {
        // The edge answers the second to fourth requests itself, with a gateway's page.
        if (++seen >= 2 && seen <= 4)
          return { status: edge[seen - 2]!, headers: { 'content-type': 'text/html' }, text: '<h1>edge</h1>' };
      },
    });
    let seen = 0;
    const lines: string[] = [];
    const proxy = await startProxy({
      target: server.url,
      ruleSet: 'mock',
      print: (line) => lines.push(line),
    });
    const auth = { Authorization: 'Bearer edge' };
    try {
      const made = await fetch(`${proxy.url}/v1/contacts`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'username=edgy&phone_number=%2B15550100999',
      });
      const id = ((await made.json()) as { id: string }).id;
      const statuses = [made.status];
      for (const [method, path, headers] of [
        ['GET', `/v1/contacts/${id}`, auth],
        ['GET', '/v1/contacts', {}],
        ['DELETE', `/v1/contacts/${id}`, auth],
        ['GET', `/v1/contacts/${id}`, auth],
      ] as const) {
        const answer = await fetch(`${proxy.url}${path}`, { method, headers });
        await answer.text();
        statuses.push(answer.status);
      }
      expect(statuses).toEqual([201, 503, 502, 504, 200]);
    } finally {
      const result = await proxy.close();
      await server.close();
      expect(lines.filter((line) => line.startsWith('VIOLATION'))).toEqual([]);
      expect(result.exitCode).toBe(0);
      expect(result.targetProblems.map((p) => `${p.kind} ${p.status}`)).toEqual([
        'transient 503',
        'transient 502',
        'transient 504',
      ]);
    }
  });

  /**
   * The mock, with a cascade that is late for retrieve: for 300 ms after a contact's delete, its
   * messages are still retrieved by id (as they were made); the contact itself, and a message
   * deleted by its own id, are gone at once.
   */
  const lateCascade = () => {
    const conversationOf = new Map<string, string>();
    const messages = new Map<string, { conversation: string; body: unknown }>();
    const deleted = new Map<string, number>();
    return startWrapped({
      request(req): ProxyResponse | void {
        const id = /^\/v1\/messages\/([^/]+)$/.exec(req.path)?.[1];
        const message = req.method === 'GET' && id ? messages.get(decodeURIComponent(id)) : undefined;
        const at = message && deleted.get(message.conversation);
        if (message && at !== undefined && Date.now() - at < 300)
          return { status: 200, headers: {}, body: message.body };
      },
      response(req, res) {
        const body = res.body as { id?: string; conversation_id?: string } | undefined;
        if (req.method === 'POST' && res.status < 300 && body?.id && body.conversation_id) {
          if (req.path === '/v1/contacts') conversationOf.set(body.id, body.conversation_id);
          else messages.set(body.id, { conversation: body.conversation_id, body });
        }
        // A message deleted by its own id is gone at once: only the cascade is late.
        const message = /^\/v1\/messages\/([^/]+)$/.exec(req.path)?.[1];
        if (req.method === 'DELETE' && res.status < 300 && message)
          messages.delete(decodeURIComponent(message));
        const contact = /^\/v1\/contacts\/([^/]+)$/.exec(req.path)?.[1];
        const conversation = contact && conversationOf.get(decodeURIComponent(contact));
        if (req.method === 'DELETE' && res.status < 300 && conversation)
          deleted.set(conversation, Date.now());
      },
    });
  };

  it('--settle-ms covers a cascade: a deleted contact’s messages may be retrieved a little longer; without it the rule fails', async () => {
    const rule = ['--rule', 'contacts.delete.cascades-conversation'];
    const server = await lateCascade();
    try {
      const patient = await runBin([
        '--base-url',
        server.url,
        '--token',
        'patient',
        ...rule,
        '--settle-ms',
        '1500',
      ]);
      expect({ code: patient.code, failed: failures(patient), problems: patient.json?.problems }).toEqual({
        code: 0,
        failed: [],
        problems: [],
      });
      const hasty = await runBin(['--base-url', server.url, '--token', 'hasty', ...rule]);
      expect(hasty.code).toBe(1);
      expect(failedRules(hasty)).toEqual(['contacts.delete.cascades-conversation']);
    } finally {
      await server.close();
    }
  }, 180_000);
});
