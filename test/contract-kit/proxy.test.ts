import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startProxy, type ProxyResult } from '../../contract-tests/proxy/proxy';
import { JUDGE_TITLE } from '../../contract-tests/judge/judge-run';
import type { RuleSet } from '../../contract-tests/rules/rules';
import { runBin, startWrapped, type Running } from './harness';
import { scriptedSession } from './proxy-session';
import { MODEL_ROGUES, ROGUES, type Rogue } from './servers';
import { JUDGE_BLIND } from './judge-blind';
import { startStaging, STAGING_VARIANTS } from './staging';

/**
 * `messaging-contract proxy` in front of real servers: honest ones pass a whole scripted session
 * silently, each rogue is named by the one rule it breaks, answers come back byte for byte, and
 * a target that fails is told apart from a rule broken.
 */
const BIN = path.join(__dirname, '..', '..', 'contract-tests', 'bin', 'messaging-contract.js');
let sessions = 0;

interface Through {
  result: ProxyResult;
  lines: string[];
}

/** The scripted session through a proxy in front of `server`; the server is closed afterwards. */
async function through(server: Running, ruleSet: RuleSet = 'documented'): Promise<Through> {
  const lines: string[] = [];
  const proxy = await startProxy({ target: server.url, ruleSet, print: (line) => lines.push(line) });
  try {
    sessions += 1;
    await scriptedSession(proxy.url, {
      token: `proxy-test-${process.pid}-${sessions}`,
      otherToken: `proxy-test-other-${process.pid}-${sessions}`,
      label: `px${sessions}`,
    });
  } finally {
    await server.close();
  }
  return { result: await proxy.close(), lines };
}

const brokenRules = (result: ProxyResult) =>
  result.rules.filter((t) => t.violations > 0).map((t) => t.rule.id);
const checkedRules = (result: ProxyResult) => result.rules.filter((t) => t.checks > 0).map((t) => t.rule.id);

describe('the proxy in front of honest servers', () => {
  it.each(['documented', 'mock'] as const)(
    'passes a whole session in front of the mock silently (%s rule set)',
    async (ruleSet) => {
      const { result, lines } = await through(await startWrapped(), ruleSet);
      expect(lines).toEqual([]);
      expect(brokenRules(result)).toEqual([]);
      expect(result.exitCode).toBe(0);
      expect(result.exchanges).toBeGreaterThan(50);
      // The session exercises every rule the proxy judges but three: it never walks the list of
      // all messages to its end, which never fits on one page, and, as a client's session, it names
      // none of the ids the kit makes up to name no record (the unknown-id rules).
      expect(result.rules.filter((t) => t.checks === 0).map((t) => t.rule.id)).toEqual([
        'contacts.unknown-id',
        'messages.list.all-conversations',
        'messages.unknown-id',
      ]);
    },
    60_000,
  );

  it.each(STAGING_VARIANTS.map((v) => [v.name, v.options] as const))(
    'passes a whole session in front of the independent staging server "%s" silently',
    async (_name, options) => {
      const { result, lines } = await through(await startStaging(options));
      expect(lines).toEqual([]);
      expect(checkedRules(result).length).toBeGreaterThan(30);
      expect(result.exitCode).toBe(0);
    },
    60_000,
  );
});

describe('the contract kit through the proxy', () => {
  /** The kit's requests are as odd as clients get (bad bodies, unknown parameters, cursor walks). */
  it.each([
    ['the mock', 'mock', () => startWrapped()],
    ['the staging server', 'documented', () => startStaging(STAGING_VARIANTS[3]!.options)],
  ] as const)(
    'passes against %s with the proxy between, which finds nothing in its exchanges (%s rule set)',
    async (_name, ruleSet, start) => {
      const server = await start();
      const lines: string[] = [];
      const proxy = await startProxy({ target: server.url, ruleSet, print: (line) => lines.push(line) });
      const run = await runBin([
        '--base-url',
        proxy.url,
        '--token',
        `kit-through-${ruleSet}`,
        '--rule-set',
        ruleSet,
      ]);
      const result = await proxy.close();
      await server.close();
      expect({ code: run.code, lines }).toEqual({ code: 0, lines: [] });
      expect(result.exchanges).toBeGreaterThan(500);
    },
    300_000,
  );
});

describe('the kit and the proxy on the same exchanges', () => {
  it('name the same rules: what the proxy finds in a kit run passing through it, the kit finds in its own exchanges with the same judge', async () => {
    const rogue = ROGUES.find(
      (r) => r.how === 'answers the first contact a token creates with a fraction in created_at',
    )!;
    const server = await startWrapped(rogue.make());
    const proxy = await startProxy({ target: server.url, ruleSet: 'documented', print: () => undefined });
    const run = await runBin(['--base-url', proxy.url, '--token', 'kit-and-proxy', '--sequences', '0']);
    const result = await proxy.close();
    await server.close();
    const byTheJudge = (run.json?.verdicts ?? [])
      .filter((v) => v.verdict === 'fail' && v.foundBy === JUDGE_TITLE)
      .map((v) => v.rule);
    expect(brokenRules(result)).toEqual(['api.integer-timestamps']);
    expect(byTheJudge).toEqual(brokenRules(result));
  }, 180_000);
});

/**
 * The rogues a passive proxy cannot name: they break the paging walk in a way that only a walk of
 * the whole list tells (which item lies between two pages, or just before a cursor), and the
 * session's client never makes one. (A walk that ends early on a full page the session's client
 * does make: the proxy names lists.has-more there, as the kit's judge does.)
 */
const UNSEEN = [
  'skips the first item of a next page that is not the last',
  'leaves out the item just before the cursor on the way back (ending_before)',
];

/**
 * The rogues whose fault shows only under requests the session of proxy-traffic.ts never makes
 * (the kit makes them, and its judge names them: rogues.test.ts): a page of fifty or more of a list
 * longer than that, the list of one conversation without a token, a walk of all messages to its
 * end after a contact's delete, a send into a deleted contact's conversation a second after the
 * delete.
 */
const NOT_SENT = [
  'says has_more=false on a page asked for with a limit of fifty or more, though more follow, on an account that starts empty',
  "serves the list of one conversation's messages without Authorization, as the last user seen",
  'gives fifty records at most whatever the limit, and says has_more from the limit asked',
  "shows a deleted contact's messages again at the end of the list of all messages, past its first page",
  "takes messages into a deleted contact's conversation again a second after the delete",
];

/** The rogues the kit's judge does not see either (judge-blind.ts, each with why). */
const BLIND = Object.keys(JUDGE_BLIND);

describe('the proxy in front of rogue servers: the same session names exactly the rule broken', () => {
  const table = (rogues: Rogue[]) =>
    rogues
      .filter((r) => !UNSEEN.includes(r.how) && !NOT_SENT.includes(r.how) && !BLIND.includes(r.how))
      .map((r) => [r.rule, r.how, r] as const);

  it.each(table(ROGUES))(
    'names %s when the server %s',
    async (rule, _how, rogue) => {
      const { result, lines } = await through(await startWrapped(rogue.make()));
      expect(brokenRules(result)).toEqual([rule]);
      expect(result.exitCode).toBe(1);
      expect(lines[0]).toMatch(new RegExp(`^VIOLATION ${rule.replace(/\./g, '\\.')} \\(§`));
    },
    60_000,
  );

  it.each(table(MODEL_ROGUES))(
    'names %s when the server %s (a check of the model)',
    async (rule, _how, rogue) => {
      const { result } = await through(await startWrapped(rogue.make()));
      expect(brokenRules(result)).toEqual([rule]);
    },
    60_000,
  );

  it("is blind where the kit's judge is (judge-blind.ts), and names no other rule there", async () => {
    const blind = [...ROGUES, ...MODEL_ROGUES].filter((r) => BLIND.includes(r.how));
    expect(blind.map((r) => r.how).sort()).toEqual([...BLIND].sort());
    for (const rogue of blind)
      expect(brokenRules((await through(await startWrapped(rogue.make()))).result)).toEqual([]);
  }, 120_000);

  it('leaves out of its table only the rogues whose requests the session never sends, each still one of the rogues', () => {
    expect([...ROGUES, ...MODEL_ROGUES].filter((r) => NOT_SENT.includes(r.how)).map((r) => r.how)).toEqual(
      NOT_SENT,
    );
  });

  it('sees every rogue of ROGUES, and all but two of the model rogues, where it names no other rule', async () => {
    expect(ROGUES.filter((r) => UNSEEN.includes(r.how))).toEqual([]);
    const unseen = MODEL_ROGUES.filter((r) => UNSEEN.includes(r.how));
    expect(unseen.map((r) => r.rule)).toEqual(['lists.pages', 'lists.pages']);
    for (const rogue of unseen)
      expect(brokenRules((await through(await startWrapped(rogue.make()))).result)).toEqual([]);
  }, 60_000);
});

// ---- forwarding, byte for byte ----

interface RawAnswer {
  status: number;
  statusMessage: string;
  headers: string[];
  body: Buffer;
}

/** One request on a connection of its own; the answer's raw headers and bytes, as they came. */
/** What a browser reads of headers: more than Node's 16 KiB. */
const WIDE = 256 * 1024;

function raw(
  base: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const options = { method, headers, agent: false, maxHeaderSize: WIDE } as const;
    const req = http.request(`${base}${pathAndQuery}`, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          statusMessage: res.statusMessage!,
          headers: res.rawHeaders,
          body: Buffer.concat(chunks),
        }),
      );
      res.on('aborted', () => reject(new Error('the answer was cut off')));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const CONNECTION_HEADERS = ['connection', 'keep-alive', 'transfer-encoding', 'date'];
/** The headers as sent, less those of the connection (and the Date, which moves with the clock). */
const endToEnd = (answer: RawAnswer) => {
  const pairs: string[] = [];
  for (let i = 0; i < answer.headers.length; i += 2)
    if (!CONNECTION_HEADERS.includes(answer.headers[i]!.toLowerCase()))
      pairs.push(`${answer.headers[i]}: ${answer.headers[i + 1]}`);
  return pairs;
};
const same = (direct: RawAnswer, proxied: RawAnswer) => {
  expect(proxied.status).toBe(direct.status);
  expect(proxied.statusMessage).toBe(direct.statusMessage);
  expect(endToEnd(proxied)).toEqual(endToEnd(direct));
  expect(proxied.body.equals(direct.body)).toBe(true);
};

/** A server on a free port; as a browser and the proxy do, it reads headers up to 256 KiB. */
function listen(handler: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer({ maxHeaderSize: WIDE }, handler);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  );
}
const close = (server: http.Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

describe('forwarding', () => {
  const auth = { Authorization: 'Bearer byte-for-byte', Origin: 'http://frontend.example' };

  it('gives the same answers as the server direct: lists, a whole world, HEAD, a 204, errors, a create, a preflight', async () => {
    const mock = await startWrapped();
    const lines: string[] = [];
    const proxy = await startProxy({ target: mock.url, ruleSet: 'mock', print: (line) => lines.push(line) });
    try {
      for (const [method, p] of [
        ['GET', '/v1/contacts?limit=5'],
        ['GET', '/v1/messages?limit=100'],
        ['GET', '/__mock/state'],
        ['HEAD', '/v1/contacts'],
        ['GET', '/v1/contacts/no-such-id'],
        ['PUT', '/v1/contacts'],
      ] as const)
        same(await raw(mock.url, method, p, auth), await raw(proxy.url, method, p, auth));
      const state = await raw(proxy.url, 'GET', '/__mock/state', auth);
      expect(state.body.length).toBeGreaterThan(50_000);
      const preflight = {
        Origin: 'http://frontend.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      };
      same(
        await raw(mock.url, 'OPTIONS', '/v1/contacts', preflight),
        await raw(proxy.url, 'OPTIONS', '/v1/contacts', preflight),
      );
      // A create and a delete of the same kind of record, direct and through the proxy.
      const form = { ...auth, 'Content-Type': 'application/x-www-form-urlencoded' };
      const made = await Promise.all(
        [mock.url, proxy.url].map((base) =>
          raw(base, 'POST', '/v1/contacts', form, 'username=byte&phone_number=%2B1%20555'),
        ),
      );
      expect(made.map((a) => a.status)).toEqual([201, 201]);
      expect(endToEnd(made[1]!).map((h) => h.split(':')[0])).toEqual(
        endToEnd(made[0]!).map((h) => h.split(':')[0]),
      );
      const [gone, goneThrough] = await Promise.all(
        made.map((answer, i) =>
          raw(
            [mock.url, proxy.url][i]!,
            'DELETE',
            `/v1/contacts/${JSON.parse(answer.body.toString()).id}`,
            auth,
          ),
        ),
      );
      same(gone!, goneThrough!);
      expect(goneThrough!.status).toBe(204);
    } finally {
      await mock.close();
    }
    const result = await proxy.close();
    expect(lines).toEqual([]);
    expect(result.exchanges).toBe(10);
  }, 60_000);

  it('streams a body larger than it keeps, unchanged and unjudged', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const { url, server } = await listen((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Big': 'yes' });
      res.write('{"has_more":false,"data":[],"pad":"');
      for (let i = 0; i < 200; i++) res.write(chunk); // 12.5 MB, chunked
      res.end('"}');
    });
    const lines: string[] = [];
    const proxy = await startProxy({ target: url, ruleSet: 'documented', print: (line) => lines.push(line) });
    same(
      await raw(url, 'GET', '/v1/contacts', { Authorization: 'Bearer big' }),
      await raw(proxy.url, 'GET', '/v1/contacts', { Authorization: 'Bearer big' }),
    );
    const result = await proxy.close();
    await close(server);
    expect(lines).toEqual([]);
    expect(result.exchanges).toBe(1);
    expect(result.rules.find((t) => t.rule.id === 'api.json-objects')!.checks).toBe(0);
  }, 60_000);

  it('passes on a request and an answer whose headers are longer than Node reads by default: a long cursor, a long Link header', async () => {
    const cursor = 'c'.repeat(20_000);
    const { url, server } = await listen((req, res) => {
      res.writeHead(200, {
        'Content-Type': 'application/json',
        Link: `<${req.url}>; rel="next", <${req.url}>; rel="prev"`,
      });
      res.end('{"has_more":false,"data":[]}');
    });
    const lines: string[] = [];
    const proxy = await startProxy({ target: url, ruleSet: 'documented', print: (line) => lines.push(line) });
    const at = `/v1/contacts?cursor=${cursor}`;
    let result: ProxyResult;
    try {
      const direct = await raw(url, 'GET', at, { Authorization: 'Bearer long' });
      const answer = await raw(proxy.url, 'GET', at, { Authorization: 'Bearer long' });
      same(direct, answer);
      expect(answer.status).toBe(200);
    } finally {
      result = await proxy.close();
      await close(server);
    }
    expect({ lines, problems: result.targetProblems, exchanges: result.exchanges }).toEqual({
      lines: [],
      problems: [],
      exchanges: 1,
    });
  });

  it('survives a target that closes the connection in the middle of an answer', async () => {
    const { url, server } = await listen((req, res) => {
      if (req.url === '/v1/contacts') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
        res.write('{"has_more":');
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"has_more":false,"data":[]}');
    });
    const lines: string[] = [];
    const proxy = await startProxy({ target: url, ruleSet: 'documented', print: (line) => lines.push(line) });
    await expect(raw(proxy.url, 'GET', '/v1/contacts', { Authorization: 'Bearer cut' })).rejects.toThrow();
    const after = await raw(proxy.url, 'GET', '/v1/contacts?limit=1', { Authorization: 'Bearer cut' });
    expect(after.status).toBe(200);
    const result = await proxy.close();
    await close(server);
    expect(result.targetProblems.map((p) => p.kind)).toEqual(['dropped']);
    expect(lines).toEqual([
      expect.stringMatching(/^TARGET dropped: GET \/v1\/contacts: .*\(not a rule violation\)$/),
    ]);
    expect(result.exchanges).toBe(1);
    expect(result.exitCode).toBe(0);
  });

  it('sends a request again, once and on a connection of its own, when the target closed the kept-alive connection it went on', async () => {
    // The target drops a connection when a second request arrives on it, as a server whose idle
    // kept-alive connections time out drops one that a request was already on its way over.
    const answered = new WeakSet<object>();
    const bodies: string[] = [];
    let alwaysDrop = false;
    const { url, server } = await listen((req, res) => {
      if (alwaysDrop || answered.has(req.socket)) return void req.socket.destroy();
      answered.add(req.socket);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push(`${req.method} ${Buffer.concat(chunks).toString()}`);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"has_more":false,"data":[]}');
      });
    });
    const proxy = await startProxy({ target: url, ruleSet: 'documented', print: () => undefined });
    const statuses: number[] = [];
    try {
      const auth = { Authorization: 'Bearer again' };
      statuses.push((await raw(proxy.url, 'GET', '/v1/contacts', auth)).status);
      const json = { ...auth, 'Content-Type': 'application/json' };
      statuses.push((await raw(proxy.url, 'POST', '/v1/contacts/search', json, '{"q":"x"}')).status);
      // Once only: a target that drops the fresh connection too gets the client a 502.
      alwaysDrop = true;
      statuses.push((await raw(proxy.url, 'GET', '/v1/contacts?limit=2', auth)).status);
    } finally {
      const result = await proxy.close();
      await close(server);
      expect(result.targetProblems.map((p) => p.kind)).toEqual(['unreachable']);
    }
    expect(statuses).toEqual([200, 200, 502]);
    expect(bodies).toEqual(['GET ', 'POST {"q":"x"}']);
  });

  it('answers 502 in the API error shape when the target is down, and 504 when it does not answer', async () => {
    const { url: down, server: closed } = await listen(() => {});
    await close(closed);
    const lines: string[] = [];
    const proxy = await startProxy({ target: down, ruleSet: 'mock', print: (line) => lines.push(line) });
    const answer = await raw(proxy.url, 'GET', '/v1/contacts', { Authorization: 'Bearer down' });
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body.toString())).toEqual({
      type: 'api_error',
      code: 'bad_gateway',
      message: expect.stringContaining('ECONNREFUSED'),
    });
    const result = await proxy.close();
    expect(result).toMatchObject({ exchanges: 0, exitCode: 0 });
    expect(lines).toEqual([expect.stringMatching(/^TARGET unreachable: GET \/v1\/contacts → 502: /)]);

    const { url: silent, server } = await listen(() => {});
    const slow = await startProxy({ target: silent, ruleSet: 'documented', timeoutMs: 300, print: () => {} });
    const late = await raw(slow.url, 'GET', '/v1/contacts', { Authorization: 'Bearer slow' });
    expect(late.status).toBe(504);
    expect(JSON.parse(late.body.toString())).toMatchObject({ type: 'api_error', code: 'gateway_timeout' });
    expect((await slow.close()).targetProblems.map((p) => p.kind)).toEqual(['timeout']);
    await close(server);
  });
});

// ---- the bin ----

interface BinRun {
  code: number | null;
  output: string;
}

/** Starts the bin's proxy; `drive` gets its URL; then SIGINT, and the exit. */
async function runProxyBin(args: string[], drive: (url: string) => Promise<void>): Promise<BinRun> {
  const child = spawn(process.execPath, [BIN, 'proxy', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string | undefined>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[\d.:]+)/.exec(output);
      if (match) resolve(match[1]);
    });
    child.on('close', () => resolve(undefined));
  });
  if (url) {
    await drive(url);
    child.kill('SIGINT');
  }
  return { code: await exited, output };
}

describe('messaging-contract proxy, the bin', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxy-bin-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const files = (name: string) => [
    '--report',
    `${dir}/${name}.md`,
    '--junit',
    `${dir}/${name}.xml`,
    '--json',
    `${dir}/${name}.json`,
  ];

  it('exits 0 in front of the mock, with its summary and three reports', async () => {
    const mock = await startWrapped();
    const run = await runProxyBin(
      ['--target', mock.url, '--port', '0', '--rule-set', 'mock', ...files('honest')],
      async (url) => {
        const answer = await fetch(`${url}/v1/contacts?limit=2`, {
          headers: { Authorization: 'Bearer bin-honest' },
        });
        expect(answer.status).toBe(200);
      },
    );
    await mock.close();
    expect(run.output).toMatch(`proxy for ${mock.url} listening on http://127.0.0.1:`);
    expect(run.output).toMatch(/1 exchanges judged/);
    expect(run.code).toBe(0);
    expect(fs.readFileSync(`${dir}/honest.md`, 'utf8')).toMatch(/no rule broken \(exit 0\)/);
    expect(fs.readFileSync(`${dir}/honest.xml`, 'utf8')).toMatch(/failures="0"/);
    expect(JSON.parse(fs.readFileSync(`${dir}/honest.json`, 'utf8'))).toMatchObject({
      exitCode: 0,
      exchanges: 1,
    });
  }, 60_000);

  it('exits 1 in front of a rogue, naming the rule in its output and its reports, never the token', async () => {
    const rogue = ROGUES.find((r) => r.rule === 'messages.contact-fields')!;
    const server = await startWrapped(rogue.make());
    const run = await runProxyBin(['--target', server.url, '--port', '0', ...files('rogue')], async (url) => {
      await fetch(`${url}/v1/messages?limit=3`, { headers: { Authorization: 'Bearer very-secret-token' } });
    });
    await server.close();
    expect(run.code).toBe(1);
    expect(run.output).toMatch(
      /VIOLATION messages\.contact-fields \(§2\.2\): .* — #1 GET \/v1\/messages\?limit=3 → 200 \[Bearer very…\]/,
    );
    expect(run.output).not.toMatch('very-secret-token');
    const report = fs.readFileSync(`${dir}/rogue.md`, 'utf8');
    expect(report).toMatch(/### messages\.contact-fields/);
    expect(report).not.toMatch('very-secret-token');
    expect(fs.readFileSync(`${dir}/rogue.xml`, 'utf8')).toMatch(/failures="1"/);
    const json = JSON.parse(fs.readFileSync(`${dir}/rogue.json`, 'utf8'));
    expect(json.rules.find((r: { rule: string }) => r.rule === 'messages.contact-fields').violations).toBe(1);
  }, 60_000);

  it('forgets the least recently used tokens beyond --max-tokens, and says how many in its summary and reports', async () => {
    const mock = await startWrapped();
    const run = await runProxyBin(
      ['--target', mock.url, '--port', '0', '--rule-set', 'mock', '--max-tokens', '1', ...files('forgetful')],
      async (url) => {
        for (const token of ['bin-one', 'bin-two', 'bin-three', 'bin-one'])
          await fetch(`${url}/v1/messages?limit=3`, { headers: { Authorization: `Bearer ${token}` } });
      },
    );
    await mock.close();
    expect(run.code).toBe(0);
    const said =
      /Memory: 1 token\(s\) remembered, .* --max-tokens 1, --max-records 10000; it forgot 3 token\(s\) whole \(least recently used\) and 0 record\(s\)/;
    expect(run.output).toMatch(said);
    expect(fs.readFileSync(`${dir}/forgetful.md`, 'utf8')).toMatch(said);
    expect(fs.readFileSync(`${dir}/forgetful.xml`, 'utf8')).toMatch(
      '<property name="forgotten-tokens" value="3"/>',
    );
    expect(JSON.parse(fs.readFileSync(`${dir}/forgetful.json`, 'utf8')).memory).toMatchObject({
      limits: { maxTokens: 1, maxRecords: 10_000, maxBytes: 16 * 2 ** 20 },
      tokens: 1,
      forgottenTokens: 3,
      forgottenRecords: 0,
    });
  }, 60_000);

  it('exits 2 when it cannot start: a bad target URL, a port in use', async () => {
    const bad = await runProxyBin(['--target', 'ftp://example.com'], async () => {});
    expect(bad.code).toBe(2);
    expect(bad.output).toMatch(/not an http\(s\) URL/);
    const none = await runProxyBin(['--target', 'http://127.0.0.1:9', '--max-records', '0'], async () => {});
    expect(none.code).toBe(2);
    expect(none.output).toMatch(/--max-records <n>' argument '0' is invalid. must be a whole number above 0/);
    const { url, server } = await listen(() => {});
    const port = new URL(url).port;
    const busy = await runProxyBin(['--target', 'http://127.0.0.1:9', '--port', port], async () => {});
    await close(server);
    expect(busy.code).toBe(2);
    expect(busy.output).toMatch(`the port ${port} is in use`);
  }, 60_000);
});
