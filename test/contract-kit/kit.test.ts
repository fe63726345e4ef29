import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { JUDGE_TITLE } from '../../contract-tests/judge/judge-run';
import { RULES } from '../../contract-tests/rules/rules';
import {
  failedRules,
  failures,
  inBatches,
  runBin,
  startBin,
  startWrapped,
  type KitRun,
  type Running,
} from './harness';
import { strictInputs, MODEL_ROGUES, ROGUES, honestButDifferent, withoutPaging, KEPT_PATH } from './servers';
import { FLAKY_EDGE, STAGING_HARD_VARIANTS, STAGING_VARIANTS, startStaging } from './staging';
import { listen } from '../../src/express/server';
import { undocumented } from '../twin/documented';
import { beside } from '../twin/mirrored';

/** The server profile each staging server showed (--profile-out), for the twins at the end. */
const profiles = new Map<string, { file: string; prefix: string }>();
const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-profiles-'));
const profileOut = (name: string, prefix = '') => {
  const file = path.join(profileDir, `${profiles.size}.json`);
  profiles.set(name, { file, prefix });
  return ['--profile-out', file];
};

/** The contract kit run as users run it (the bin), against the mock and honest variants of it. */
describe('the contract kit', () => {
  const verdicts = (run: KitRun) => new Map((run.json?.verdicts ?? []).map((v) => [v.rule, v.verdict]));

  describe('against the unmodified mock', () => {
    let server: Running;
    const runs: Record<string, KitRun> = {};
    beforeAll(async () => {
      server = await startWrapped();
      const [documented, mock] = await inBatches(
        [
          () => runBin(['--base-url', server.url, '--token', 'clean-documented']),
          () => runBin(['--base-url', server.url, '--token', 'clean-mock', '--rule-set', 'mock']),
        ],
        2,
      );
      runs.documented = documented!;
      runs.mock = mock!;
    }, 120_000);
    afterAll(() => server.close());

    it.each(['documented', 'mock'] as const)(
      'passes every rule of the %s rule set and exits 0',
      (ruleSet) => {
        const run = runs[ruleSet]!;
        const expected = RULES.filter((r) => ruleSet === 'mock' || r.ruleSet === 'documented').map(
          (r) => r.id,
        );
        expect({ code: run.code, problems: run.json?.problems }).toEqual({ code: 0, problems: [] });
        expect([...verdicts(run)].filter(([, v]) => v !== 'pass')).toEqual([]);
        expect([...verdicts(run).keys()].sort()).toEqual(expected.sort());
      },
    );

    it('says, for each rule, how many of the run’s exchanges the judge of every exchange held against the rule', () => {
      const run = runs.documented!;
      const measured = run.json!.verdicts.filter((v) => v.judge !== undefined).map((v) => v.rule);
      expect(measured).toEqual(RULES.filter((r) => r.ruleSet === 'documented').map((r) => r.id));
      const byRule = new Map(run.json!.verdicts.map((v) => [v.rule, v.judge]));
      // Every answer is a JSON object or none; every create answers a new id.
      expect(byRule.get('api.json-objects')!.exchanges).toBeGreaterThan(100);
      expect(byRule.get('api.unique-ids')).toEqual({ exchanges: expect.any(Number), violations: 0 });
      expect(byRule.get('api.unique-ids')!.exchanges).toBeGreaterThan(10);
      // The unknown-id rules, on the ids the kit made up: a retrieve, an update and a delete each.
      expect(byRule.get('contacts.unknown-id')!.exchanges).toBeGreaterThanOrEqual(3);
      expect(byRule.get('messages.unknown-id')!.exchanges).toBeGreaterThanOrEqual(3);
      // The /v1 prefix, on the lists asked for with nothing: at least the kit's test's two.
      expect(byRule.get('api.v1-prefix')).toEqual({ exchanges: expect.any(Number), violations: 0 });
      expect(byRule.get('api.v1-prefix')!.exchanges).toBeGreaterThanOrEqual(2);
    });

    it('deletes everything it created', () => {
      expect(runs.documented!.json?.leftovers).toEqual([]);
      expect(runs.mock!.json?.leftovers).toEqual([]);
    });

    it('states its request budget before the first request, and stays within it', () => {
      for (const run of [runs.documented!, runs.mock!]) {
        const budget = run.json!.budget!;
        expect(run.output.split('\n')[0]).toBe(
          `Checking ${server.url} against the ${run === runs.mock ? 'mock' : 'documented'} rule set, within a budget of ${budget} requests.`,
        );
        expect(run.json!.requests).toBeGreaterThan(0);
        expect(run.json!.requests).toBeLessThanOrEqual(budget);
      }
    });

    it("records the mock's choices as its server profile", () => {
      const profile = runs.documented!.json!.serverProfile;
      expect(profile['success status: create contacts']).toEqual(['201']);
      expect(profile['delete body']).toEqual(['(empty)']);
      expect(profile['id format: contacts']).toEqual(['16 chars [A-Za-z0-9]']);
      expect(profile['list order']).toEqual(['newest first']);
      expect(profile['timestamp unit']).toEqual(['Unix seconds']);
      expect(profile['paging parameter']).toEqual(['`starting_after=<last id>`']);
    });
  });

  describe('against honest servers that fill the gaps differently', () => {
    it('passes the documented rule set on 200-on-create, prefixed ids, milliseconds, oldest first, cursor paging and 422 errors (and fails the mock rule set)', async () => {
      const server = await startWrapped(honestButDifferent(), { contacts: 5, messages: 20 });
      try {
        const run = await runBin(['--base-url', server.url, '--token', 'honest']);
        expect({ code: run.code, failed: failures(run), problems: run.json?.problems }).toEqual({
          code: 0,
          failed: [],
          problems: [],
        });
        expect([...verdicts(run).values()].every((v) => v === 'pass')).toBe(true);
        const profile = run.json!.serverProfile;
        expect(profile['success status: create contacts']).toEqual(['200']);
        expect(profile['id format: contacts']).toEqual(['prefix "obj_" + 16 chars [A-Za-z0-9]']);
        expect(profile['timestamp unit']).toEqual(['Unix milliseconds']);
        expect(profile['list order']).toEqual(['oldest first']);
        expect(profile['paging parameter']).toEqual(['`cursor=<next token from the body>`']);
        expect(profile['error body']).toEqual(['{error: {detail, status}}']);
        expect(run.json?.leftovers).toEqual([]);
        // The mock rule set holds it to the mock's conventions, which it fills differently: those
        // fail (so they can), and still no documented rule does.
        const strict = await runBin([
          '--base-url',
          server.url,
          '--token',
          'honest-strict',
          '--rule-set',
          'mock',
        ]);
        expect(strict.code).toBe(1);
        expect(failedRules(strict).filter((rule) => !rule.startsWith('mock.'))).toEqual([]);
        expect(failedRules(strict)).toEqual(
          expect.arrayContaining([
            'mock.success-codes',
            'mock.error-body',
            'mock.unix-seconds',
            'mock.ids',
            'mock.newest-first',
          ]),
        );
      } finally {
        await server.close();
      }
    }, 120_000);

    it('reports rules it cannot exercise (no next-page mechanism, no reaction name it knows) as not run, not failed, and exits 2 unless they are accepted by name', async () => {
      const server = await startWrapped(withoutPaging());
      try {
        const run = await runBin(['--base-url', server.url, '--token', 'no-paging']);
        expect(failedRules(run)).toEqual([]);
        expect(verdicts(run).get('messages.list.conversation-filter')).toBe('not-run');
        expect(verdicts(run).get('messages.update.add-reaction')).toBe('not-run');
        expect(verdicts(run).get('messages.reactions-shape')).toBe('not-run');
        expect(run.output).toMatch(
          /NOT RUN messages\.list\.conversation-filter[\s\S]*no next-page mechanism/,
        );
        // Could not judge is never "conforms".
        const notRun = [...verdicts(run)].filter(([, v]) => v === 'not-run').map(([id]) => id);
        const { judged, rules } = run.json!.judged;
        expect({ code: run.code, judged }).toEqual({ code: 2, judged: rules - notRun.length });
        expect(run.output).toContain(`${judged} of ${rules} rules judged: ${judged} passed, 0 failed`);
        expect(run.json!.problems.join('\n')).toContain(`--allow-not-run ${notRun.join(' ')}`);
        const accepted = await runBin([
          '--base-url',
          server.url,
          '--token',
          'no-paging-accepted',
          '--allow-not-run',
          ...notRun,
        ]);
        expect({
          code: accepted.code,
          failed: failures(accepted),
          problems: accepted.json?.problems,
        }).toEqual({
          code: 0,
          failed: [],
          problems: [],
        });
        expect(accepted.json!.judged.acceptedNotRun.sort()).toEqual([...notRun].sort());
      } finally {
        await server.close();
      }
    }, 180_000);
  });

  describe('adapts to the input formats of the server before it judges', () => {
    it('finds the username style, attachment shape and reaction names a strict server takes; without a phone number it takes, it fails nothing; with one given by --sample, it passes', async () => {
      const server = await startWrapped(strictInputs());
      try {
        const blind = await runBin(['--base-url', server.url, '--token', 'strict-1', '--sequences', '0']);
        // Nothing failed, and yet most rules could not be judged: exit 2, never "conforms".
        expect({ code: blind.code, failed: failures(blind) }).toEqual({ code: 2, failed: [] });
        expect(blind.json?.problems).toEqual([expect.stringMatching(/could not be judged on this server/)]);
        expect(blind.output).toMatch(/\d+ of \d+ rules judged: .* \(exit 2\)$/m);
        expect(verdicts(blind).get('contacts.create')).toBe('not-run');
        expect(blind.json!.verdicts.find((v) => v.rule === 'contacts.create')?.reason).toMatch(
          /--sample contact\.phone_number/,
        );
        const told = await runBin([
          '--base-url',
          server.url,
          '--token',
          'strict-2',
          '--sample',
          'contact.phone_number=+4915112345678',
        ]);
        expect({ code: told.code, failed: failures(told), problems: told.json?.problems }).toEqual({
          code: 0,
          failed: [],
          problems: [],
        });
        expect([...verdicts(told).entries()].filter(([, v]) => v !== 'pass')).toEqual([]);
        const profile = told.json!.serverProfile;
        expect(profile['accepted sample: phone_number']).toEqual(['+4915112345678']);
        expect(profile['accepted sample: attachment fields']).toEqual(['url, name']);
        expect(profile['accepted sample: username']![0]!.length).toBeLessThanOrEqual(20);
        expect(told.json?.leftovers).toEqual([]);
      } finally {
        await server.close();
      }
    }, 180_000);

    it('exits 2 on a sample it does not know, before it sends anything', async () => {
      const run = await runBin([
        '--base-url',
        'http://127.0.0.1:9',
        '--token',
        't',
        '--sample',
        'contact.age=3',
      ]);
      expect(run.code).toBe(2);
      expect(run.output).toMatch(/unknown sample key "contact\.age"/);
    });
  });

  describe('against staging-like servers: another implementation, with data of its own in every state', () => {
    const runs = new Map<string, KitRun>();
    beforeAll(async () => {
      await inBatches(
        STAGING_VARIANTS.map((variant) => async () => {
          const server = await startStaging(variant.options);
          try {
            runs.set(
              variant.name,
              await runBin(['--base-url', server.url, '--token', 'staging', ...profileOut(variant.name)]),
            );
          } finally {
            await server.close();
          }
        }),
        2,
      );
    }, 600_000);

    it.each(STAGING_VARIANTS.map((v) => v.name))(
      'passes the documented rule set on %s, and exits 0',
      (name) => {
        const run = runs.get(name)!;
        expect({ code: run.code, failed: failures(run), problems: run.json?.problems }).toEqual({
          code: 0,
          failed: [],
          problems: [],
        });
        expect(run.json?.leftovers).toEqual([]);
      },
    );

    it("finds each variant's way to the next page, the Link header included", () => {
      const found = [...runs.values()].flatMap((run) => run.json!.serverProfile['paging parameter'] ?? []);
      expect(found).toEqual(
        expect.arrayContaining(['`page=<n>`', '`offset=<items so far>`', 'a `Link: <…>; rel="next"` header']),
      );
    });
  });

  describe('against staging servers as real services run them: strict formats, gzip, a rate limit, a path prefix, ids shared across kinds, lists that settle late, a flaky edge', () => {
    const runs = new Map<string, KitRun>();
    beforeAll(async () => {
      await inBatches(
        STAGING_HARD_VARIANTS.map((variant) => async () => {
          const server = await startStaging(variant.options);
          const settle = variant.options.settleMs
            ? ['--settle-ms', String(variant.options.settleMs * 5)]
            : [];
          try {
            runs.set(
              variant.name,
              await runBin([
                '--base-url',
                server.url + (variant.options.prefix ?? ''),
                '--token',
                'hard',
                ...settle,
                ...profileOut(variant.name, variant.options.prefix ?? ''),
              ]),
            );
          } finally {
            await server.close();
          }
        }),
        2,
      );
    }, 900_000);

    it.each(STAGING_HARD_VARIANTS.map((v) => v.name))(
      'passes the documented rule set on %s, and exits 0',
      (name) => {
        const run = runs.get(name)!;
        expect({ code: run.code, failed: failures(run), problems: run.json?.problems }).toEqual({
          code: 0,
          failed: [],
          problems: [],
        });
        expect(run.json?.leftovers).toEqual([]);
      },
    );

    it('fails the late lists without --settle-ms: the window is what lets them pass', async () => {
      const late = STAGING_HARD_VARIANTS.find((v) => v.options.settleMs)!;
      // Late by more than any round trip on a loaded machine: at 300 ms, a list read that waited
      // its turn behind other processes could come after the write had settled, and see nothing late.
      const server = await startStaging({ ...late.options, settleMs: 3_000 });
      try {
        const run = await runBin(['--base-url', server.url, '--token', 'hasty']);
        expect({ code: run.code, problems: run.json?.problems }).toEqual({ code: 1, problems: [] });
        // Which rule a late list breaks first hangs on the machine's timing (a record missing, a
        // deleted one still there, an old name); whichever it is, a list showed it.
        const failed = run.json!.verdicts.filter((v) => v.verdict === 'fail');
        expect(failed.length).toBeGreaterThan(0);
        for (const verdict of failed)
          expect(`${verdict.rule}: ${verdict.exchange?.method} ${verdict.exchange?.path}`).toMatch(
            /: GET \/v1\/(contacts|messages)(\?|$)/,
          );
        expect(run.json?.leftovers).toEqual([]);
      } finally {
        await server.close();
      }
    }, 300_000);

    it('puts the flaky edge’s transient answers aside, counts them and judges only the real answers', async () => {
      const run = runs.get('behind a flaky edge')!;
      expect(run.json?.transient?.count).toBeGreaterThan(0);
      expect(run.json?.transient?.examples[0]).toMatch(/^GET \S+ (→ 50[234]|: ECONNRESET|: socket hang up)/);
      expect(run.output).toMatch(/\d+ transient answers?, retried/);
      // The proof that the edge is flaky: GETs sent plainly meet its gateway answers and resets.
      const server = await startStaging(
        STAGING_HARD_VARIANTS.find((v) => v.name === 'behind a flaky edge')!.options,
      );
      try {
        const seen: string[] = [];
        for (let i = 0; i < FLAKY_EDGE.resetEvery; i++) {
          try {
            const answer = await fetch(`${server.url}/v1/contacts`, {
              headers: { Authorization: 'Bearer plain' },
            });
            await answer.text();
            seen.push(String(answer.status));
          } catch {
            seen.push('reset');
          }
        }
        expect(seen).toEqual(expect.arrayContaining(['200', '503', 'reset']));
      } finally {
        await server.close();
      }
    });

    it('reports how long the late lists took to settle', () => {
      const run = runs.get('lists settle after 300 ms')!;
      expect(run.json?.serverProfile['lists settled within']).toEqual([expect.stringMatching(/^\d+ ms$/)]);
    });
  });

  describe('clean-up', () => {
    it("leaves a contact's messages to its delete, and still deletes every one a server kept: the cascade's failure leaves nothing behind", async () => {
      const rogue = ROGUES.find((r) => r.how === "keeps a deleted contact's conversation and messages")!;
      const server = await startWrapped(rogue.make());
      try {
        const run = await runBin(['--base-url', server.url, '--token', 'cascade-kept']);
        expect({ code: run.code, failed: failedRules(run) }).toEqual({
          code: 1,
          failed: ['contacts.delete.cascades-conversation'],
        });
        expect(run.json?.leftovers).toEqual([]);
        // The messages the kit left to their contacts' deletes, which this server kept: the last
        // sweep found each one still there, and the bin deleted it.
        const held = await fetch(`${server.url}${KEPT_PATH}`).then(
          (r) => r.json() as Promise<{ kept: number }>,
        );
        expect(held.kept).toBe(0);
      } finally {
        await server.close();
      }
    }, 300_000);
  });

  describe('random operation sequences', () => {
    it('find a rogue that no fixed check of the selected rule sees, shrink the sequence and print a curl script', async () => {
      const rogue = MODEL_ROGUES.find(
        (r) => r.how === "drops a message's reactions when its text is edited",
      )!;
      const server = await startWrapped(rogue.make());
      try {
        const run = await runBin([
          '--base-url',
          server.url,
          '--token',
          'sequences',
          '--rule',
          'messages.fields',
          '--sequences',
          '60',
          '--seed',
          '3',
        ]);
        expect({ code: run.code, failed: failedRules(run) }).toEqual({
          code: 1,
          failed: ['messages.update.keeps-the-rest'],
        });
        // The rule is the judge's to decide: it saw the fault in the sequences' exchanges, which
        // the sequences found on their own too, shrank and printed.
        const verdict = run.json!.verdicts.find((v) => v.rule === 'messages.update.keeps-the-rest')!;
        expect(verdict.foundBy).toBe(JUDGE_TITLE);
        // The sequences' oracle is the same judge, in a session of each try's own: the shortest
        // sequence fails for what the judge says of its exchanges, not for the model's reading.
        const failure = (
          run.json as unknown as { sequences: { failure: { rule: string; reason: string; check: string } } }
        ).sequences.failure;
        expect(failure).toMatchObject({ rule: 'messages.update.keeps-the-rest', check: 'a random sequence' });
        expect(failure.reason).toMatch(
          /^message \S+: the reaction \S+ by \S+ is gone$|is gone after the update$/,
        );
        expect(run.output).toMatch(
          /Random sequences: \d+ of 60 run \(seed 3\), \d+ requests of a budget of \d+; a failure, shrunk to \d+ step/,
        );
        expect(run.output).toContain('#!/usr/bin/env bash');
        expect(run.output).toMatch(/curl -sS -X PUT "\$\{BASE_URL\}\/v1\/messages\/\$\{M\d\}"/);
      } finally {
        await server.close();
      }
    }, 300_000);

    it('stay within the budget they state on the mock, with no failure', async () => {
      const server = await startWrapped();
      try {
        const run = await runBin([
          '--base-url',
          server.url,
          '--token',
          'seq-budget',
          '--rule',
          'messages.fields',
          '--sequences',
          '20',
        ]);
        expect(run.code).toBe(0);
        const [, ran, used, budget] =
          /Random sequences: (\d+) of 20 run \(seed \d+\), (\d+) requests of a budget of (\d+); no failure/.exec(
            run.output,
          ) ?? [];
        expect(Number(ran)).toBe(20);
        expect(Number(used)).toBeLessThanOrEqual(Number(budget));
      } finally {
        await server.close();
      }
    }, 300_000);
  });

  describe('exit codes and reports', () => {
    const listenOn = (app: express.Express) =>
      new Promise<Server>((resolve) => {
        const server = app.listen(0, '127.0.0.1', () => resolve(server));
      });
    const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    it('exits 2 when the base URL is unreachable', async () => {
      const server = await listenOn(express());
      const url = urlOf(server);
      await new Promise((done) => server.close(done));
      const run = await runBin(['--base-url', url, '--token', 't']);
      expect(run.code).toBe(2);
      expect(run.output).toContain('could not be reached');
      expect(failedRules(run)).toEqual([]);
    }, 60_000);

    it('exits 2 on a usage mistake, never 1', async () => {
      const run = await runBin(['--base-url', 'http://127.0.0.1:9', '--token', 't', '--rule-set', 'strict']);
      expect(run.code).toBe(2);
      expect(run.output).toContain("argument 'strict' is invalid");
    }, 60_000);

    it('stops judging at its request budget (--max-requests): exits 2, says so, sends no more, and still deletes what it made', async () => {
      const server = await startWrapped();
      try {
        const run = await runBin(['--base-url', server.url, '--token', 'thrifty', '--max-requests', '200']);
        expect(run.code).toBe(2);
        expect(run.json?.problems.join('\n')).toContain('spent its budget of 200 requests (--max-requests)');
        expect(run.json?.requests).toBeLessThanOrEqual(200);
        expect(run.json?.leftovers).toEqual([]);
      } finally {
        await server.close();
      }
    }, 120_000);

    it('exits 2 without a token', async () => {
      const run = await runBin(['--base-url', 'http://127.0.0.1:9']);
      expect(run.code).toBe(2);
      expect(run.output).toContain('no token');
    }, 60_000);

    /** The kit's bin against a server that answers every request with one handler. */
    async function binAgainst(handler: express.RequestHandler) {
      const app = express();
      app.use(handler);
      const server = await listenOn(app);
      try {
        return await runBin(['--base-url', urlOf(server), '--token', 't']);
      } finally {
        await new Promise((done) => server.close(done));
      }
    }

    it('exits 2 when the server answers nothing usable', async () => {
      const run = await binAgainst(
        (_req, res) => void res.status(200).type('html').send('<html>maintenance</html>'),
      );
      expect(run.code).toBe(2);
      expect(run.output).toContain('nothing usable');
    }, 60_000);

    it('exits 2 on a server that redirects the endpoints, and names where to', async () => {
      const run = await binAgainst((req, res) => void res.redirect(308, `${req.path}/`));
      expect(run.code).toBe(2);
      expect(run.output).toContain('redirects GET /v1/contacts to /v1/contacts/ (308)');
    }, 60_000);

    it('exits 2, and fails no rule, when the server stops answering in the middle of the run', async () => {
      const server = await startWrapped({
        request: (req) =>
          req.method === 'POST' && req.path.startsWith('/v1/messages')
            ? { status: 0, headers: {} }
            : undefined,
      });
      try {
        const run = await runBin(['--base-url', server.url, '--token', 'dropped', '--timeout-ms', '2000']);
        expect(run.code).toBe(2);
        expect(failedRules(run)).toEqual([]);
        expect(run.json?.problems.join('\n')).toMatch(/could not judge: POST .*\/v1\/messages/);
      } finally {
        await server.close();
      }
    }, 120_000);

    it('stops soon, exits 2 and still cleans up, when the server hangs', async () => {
      const server = await startWrapped({
        request: (req) =>
          req.method === 'POST' && req.path.startsWith('/v1/messages') ? new Promise(() => {}) : undefined,
      });
      try {
        const started = Date.now();
        const run = await runBin(['--base-url', server.url, '--token', 'hung', '--timeout-ms', '1000']);
        expect(run.code).toBe(2);
        expect(failedRules(run)).toEqual([]);
        expect(run.json?.leftovers).toEqual([]);
        expect(Date.now() - started).toBeLessThan(30_000);
      } finally {
        await server.close();
      }
    }, 120_000);

    it('exits 1 and writes the failing exchange to the JUnit and Markdown reports', async () => {
      const rogue = ROGUES.find((r) => r.rule === 'contacts.create.last-active-at-null')!;
      const server = await startWrapped(rogue.make());
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-reports-'));
      try {
        const junit = path.join(dir, 'junit.xml');
        const report = path.join(dir, 'report.md');
        const run = await runBin([
          '--base-url',
          server.url,
          '--token',
          'reports',
          '--junit',
          junit,
          '--report',
          report,
          '--rule',
          'contacts.create.last-active-at-null',
          'contacts.create',
        ]);
        expect(run.code).toBe(1);
        expect([...verdicts(run)]).toEqual([
          ['contacts.create', 'pass'],
          ['contacts.create.last-active-at-null', 'fail'],
        ]);
        const xml = fs.readFileSync(junit, 'utf8');
        expect(xml).toContain('tests="2" failures="1"');
        // The judge alone decides the rule: the message is its own, on the exchange that showed it.
        expect(xml).toMatch(
          /<failure message="check: judged from the exchange: the created contact has last_active_at \d+"/,
        );
        const markdown = fs.readFileSync(report, 'utf8');
        expect(markdown).toContain('| `contacts.create.last-active-at-null` | 2.1, 4.1 rule 5 | ❌ fail |');
        expect(markdown).toMatch(/POST \/v1\/contacts\n\nusername=/);
        expect(markdown).toContain('## Server profile');
      } finally {
        await server.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }, 120_000);

    it('retries a GET whose connection dropped, and still judges', async () => {
      let gets = 0;
      const server = await startWrapped({
        request: (req) =>
          req.method === 'GET' && ++gets % 15 === 0 ? { status: 0, headers: {} } : undefined,
      });
      try {
        const run = await runBin(['--base-url', server.url, '--token', 'flaky', '--timeout-ms', '2000']);
        expect({ code: run.code, problems: run.json?.problems }).toEqual({ code: 0, problems: [] });
      } finally {
        await server.close();
      }
    }, 120_000);

    it('waits out a 429 (Retry-After) and sends the request again, whatever its method', async () => {
      let posts = 0;
      let limited = 0;
      const server = await startWrapped({
        request: (req) => {
          if (req.method !== 'POST' || ++posts % 2 === 1) return undefined;
          limited++;
          return { status: 429, headers: { 'retry-after': '0' }, body: {} };
        },
      });
      try {
        const run = await runBin([
          '--base-url',
          server.url,
          '--token',
          'limited',
          '--rule',
          'contacts.create',
          'messages.send',
        ]);
        expect({ code: run.code, problems: run.json?.problems }).toEqual({ code: 0, problems: [] });
        expect(limited).toBeGreaterThanOrEqual(2);
      } finally {
        await server.close();
      }
    }, 120_000);

    it('on Ctrl-C, creates nothing more, deletes what it created, and exits 2', async () => {
      const token = 'interrupted';
      let created = 0;
      let kit: ReturnType<typeof startBin> | undefined;
      const server = await startWrapped({
        response: (req, res) => {
          if (req.method === 'POST' && req.path === '/v1/contacts' && res.status === 201 && ++created === 5) {
            kit!.child.kill('SIGINT');
          }
        },
      });
      try {
        kit = startBin(['--base-url', server.url, '--token', token]);
        const run = await kit.done;
        expect(run.code).toBe(2);
        expect(run.output).toContain('SIGINT');
        const auth = { Authorization: `Bearer ${token}` };
        const contacts = (await (
          await fetch(`${server.url}/v1/contacts?limit=100`, { headers: auth })
        ).json()) as {
          data: { username: string }[];
        };
        expect(contacts.data.filter((c) => /^ct[a-z0-9]{6}_/.test(c.username))).toEqual([]);
        const messages = (await (
          await fetch(`${server.url}/v1/messages?limit=100`, { headers: auth })
        ).json()) as {
          data: { message: string }[];
        };
        expect(messages.data.filter((m) => /^ct[a-z0-9]{6} /.test(m.message))).toEqual([]);
      } finally {
        await server.close();
      }
    }, 120_000);

    it('prints the catalogue with --list', async () => {
      const run = await runBin(['--list']);
      expect(run.code).toBe(0);
      for (const rule of RULES) expect(run.output).toContain(rule.id);
    }, 60_000);

    it('prints the homes of the rules named with --list --rule, how each is judged, and refuses an unknown id', async () => {
      const rule = RULES.find((r) => r.id === 'contacts.delete.cascades-conversation')!;
      const run = await runBin(['--list', '--rule', rule.id]);
      expect(run.code).toBe(0);
      expect(run.output).toContain(rule.sentence);
      for (const claim of Object.values(rule.judged)) expect(run.output).toContain(claim);
      expect(RULES.filter((r) => run.output.includes(`${r.id} `)).map((r) => r.id)).toEqual([rule.id]);
      const unknown = await runBin(['--list', '--rule', 'contacts.nothing']);
      expect(unknown.code).toBe(2);
      expect(unknown.output).toContain('unknown rule ids: contacts.nothing');
    }, 60_000);
  });

  describe('the twin of each staging server: the mock on the profile the kit observed', () => {
    const runs = new Map<
      string,
      {
        run: KitRun;
        server: Record<string, unknown>;
        twin: Record<string, unknown>;
        documented: { problems: string[]; answers: number; paged: boolean };
      }
    >();
    beforeAll(async () => {
      await inBatches(
        [...profiles].map(([name, { file, prefix }]) => async () => {
          const server = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
          const twin = await listen({ port: 0, conventions: server });
          const out = `${file}.twin.json`;
          try {
            const run = await runBin([
              '--base-url',
              twin.url + prefix,
              '--token',
              'twin',
              '--profile-out',
              out,
            ]);
            // Its /openapi.json describes what it answers, in its server's conventions.
            const documented = await undocumented(twin.url, 'twin-openapi');
            runs.set(name, { run, server, twin: JSON.parse(fs.readFileSync(out, 'utf8')), documented });
          } finally {
            await twin.close();
          }
        }),
        2,
      );
    }, 900_000);
    afterAll(() => fs.rmSync(profileDir, { recursive: true, force: true }));

    it('has a profile of every staging server', () => {
      expect([...profiles.keys()].sort()).toEqual(
        [...STAGING_VARIANTS, ...STAGING_HARD_VARIANTS].map((v) => v.name).sort(),
      );
    });

    it.each([...STAGING_VARIANTS, ...STAGING_HARD_VARIANTS].map((v) => v.name))(
      'the twin of %s passes the documented rule set and shows the profile the server showed',
      (name) => {
        const { run, server, twin } = runs.get(name)!;
        expect({ code: run.code, failed: failures(run), problems: run.json?.problems }).toEqual({
          code: 0,
          failed: [],
          problems: [],
        });
        const compared = beside(server, twin);
        expect(compared.twin).toEqual(compared.server);
      },
    );

    it.each([...STAGING_VARIANTS, ...STAGING_HARD_VARIANTS].map((v) => v.name))(
      'the twin of %s answers as its own /openapi.json says',
      (name) => {
        const { documented } = runs.get(name)!;
        expect(documented).toEqual({ problems: [], answers: expect.any(Number), paged: true });
        expect(documented.answers).toBeGreaterThanOrEqual(15);
      },
    );
  });
});
