import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { config, readConfig } from './http/config';
import { deleteResource } from './model/data';
import { discoverSamples } from './probes/discover';
import { lastSweep } from './probes/last-sweep';
import { REFERENCE } from './rules/reference';
import { SETTLED } from './model/settle';
import { transientsOf, type TransientSummary } from './http/transients';
import { describeExchange, InfraError, requestsSinceLastCount, send } from './http/http';
import { readRecords, stopFile, type RecordLine, type SequenceSummary } from './http/records';
import { readWire, wireProcesses } from './http/wire';
import type { UserSamples } from './model/samples';
import { budgetFor, SEQUENCE_TITLE } from './probes/sequences';
import { buildProfile, countObserved } from './profile/build';
import { probeProfile } from './profile/probe';
import type { RuleVerdict } from './judge/rule-verdict';
import { verdictsOfRun } from './judge/run-verdicts';
import { RULES, rulesOf, type Rule, type RuleSet } from './rules/rules';

export interface KitOptions {
  baseUrl: string;
  token: string;
  token2?: string;
  ruleSet: RuleSet;
  timeoutMs?: number;
  /** Only these rule ids. */
  rules?: string[];
  /**
   * Rules the user accepts as not run (--allow-not-run): without them, a rule of the selected set
   * that no exchange could judge makes the run exit 2, since "could not judge" is never "conforms".
   */
  allowNotRun?: string[];
  /** Jest workers; 1 runs every file in this process. */
  workers?: number;
  /** Random operation sequences to run (default a few; 0 for none), and their seed. */
  sequences?: number;
  seed?: number;
  /** Values the server accepts, given by the user, tried first (model/samples.ts). */
  samples?: UserSamples;
  /** How long lists may take to show a write (--settle-ms). */
  settleMs?: number;
  /** The run's request budget (--max-requests); by default requestBudget() of the rule set and sequences. */
  maxRequests?: number;
  /** Write the server's choices there as a server profile (common/server-profile.ts) (--profile-out). */
  profileOut?: string;
  /** Told, before the first request, what the run will check and within which budget. */
  onStart?: (plan: { baseUrl: string; ruleSet: RuleSet; budget: number }) => void;
}

/**
 * Requests the fixed rules may send, the clean-up and the last sweep included: about five times
 * what they send to a local mock, for a server that pages in small pages or holds much data.
 */
const RULE_REQUESTS: Record<RuleSet, number> = { documented: 5000, mock: 7000 };

/** The request budget a run states up front: its rules', and its random sequences' (probes/sequences.ts). */
function requestBudget(ruleSet: RuleSet, sequences: number): number {
  return RULE_REQUESTS[ruleSet] + budgetFor(sequences);
}

type ExitCode = 0 | 1 | 2;

export interface KitResult {
  exitCode: ExitCode;
  baseUrl: string;
  ruleSet: RuleSet;
  runId: string;
  startedAt: string;
  durationMs: number;
  verdicts: RuleVerdict[];
  /**
   * How many rules of the selected set were judged (passed or failed) of how many, and the ones
   * not run that the user accepted by name (--allow-not-run).
   */
  judged: { judged: number; rules: number; acceptedNotRun: string[] };
  /** Why the run could not judge (unreachable, no token, interrupted, a test that broke). */
  problems: string[];
  /** What the server chose where the document says "not shown": key → values seen. */
  serverProfile: Record<string, string[]>;
  /** Requests the run sent to the server, clean-up included. */
  requests: number;
  /** Exchanges of the run that the one judge (the proxy's) judged after it, whoever made them. */
  judgedExchanges?: number;
  /** Answers that were transient (502/503/504, resets, timeouts), put aside and sent again. */
  transient?: TransientSummary;
  /** The request budget the run stated up front (0 where it never started). */
  budget?: number;
  /** The jest workers the run chose (--workers, or defaultWorkers), and the processes its test files ran in. */
  workers?: { chosen: number; ran: number };
  /** The random operation sequences: how many ran, within which budget, and a failure shrunk. */
  sequences?: SequenceSummary;
  /** How many contacts and messages the kit created (all deleted again, but the leftovers). */
  created: { contacts: number; messages: number };
  /** What the kit created and could not delete. */
  leftovers: { resource: 'contact' | 'message'; id: string; label: string }[];
  /** The server profile written (--profile-out): where, and how many of its choices were observed. */
  profileOut?: { file: string; observed: number; choices: number };
}

const KIT_DIR = __dirname;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isLoopback(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname;
    return host === 'localhost' || host.startsWith('127.') || host === '[::1]';
  } catch {
    return false;
  }
}

/**
 * A server whose quickest answer so far (the check before the run, the search for samples) took
 * this long is far away, wherever it listens, unless this machine is too busy to tell.
 */
const FAR_MS = 20;

/**
 * Jest workers when `--workers` is not given. Four for a server that is not on this machine, or
 * that is but whose quickest answer so far took FAR_MS or more (a tunnel, a server that waits
 * before it answers): the run then waits on round trips, and test files at once overlap them. One
 * for a server on this machine that answers at once, and for one whose answers were slow while
 * every processor here was busy (nine tenths of their time or more, measured over the kit's own
 * first requests): the slowness is then the kit's and the server's wait for a processor, which
 * more test files at once would only share, at half as much processor again a run (each worker
 * loads the kit anew). The processors are measured as the server answered, not by the load
 * average, which still counts, for a minute or more, work that has ended.
 */
export function defaultWorkers(server: {
  loopback: boolean;
  /** The quickest answer so far, in ms (undefined: none yet). */
  quickestMs: number | undefined;
  /** The share of the processors' time that was busy while those answers came, 0 to 1. */
  busy: number;
}): number {
  if (!server.loopback) return 4;
  const far = server.quickestMs !== undefined && server.quickestMs >= FAR_MS;
  return far && server.busy < BUSY ? 4 : 1;
}

/** Processors busy this share of their time or more are all busy (see defaultWorkers). */
const BUSY = 0.9;

/** The share of every processor's time that was busy between two readings of `os.cpus()`. */
export function busyShare(before: os.CpuInfo[], after: os.CpuInfo[]): number {
  const sum = (t: os.CpuInfo['times']) => t.user + t.nice + t.sys + t.idle + t.irq;
  let idle = 0;
  let total = 0;
  after.forEach((cpu, i) => {
    const was = before[i]?.times;
    if (!was) return;
    idle += cpu.times.idle - was.idle;
    total += sum(cpu.times) - sum(was);
  });
  return total > 0 ? 1 - idle / total : 0;
}

/** The processes the test files made requests in: jest's workers, or this one alone (in band). */
function testProcesses(resultsDir: string): number {
  return Math.max(1, wireProcesses(resultsDir).filter((pid) => pid !== process.pid).length);
}

function quickestAnswer(resultsDir: string): number | undefined {
  const times = readWire(resultsDir).map((r) => r.finishedAt - r.startedAt);
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** A run that cannot start: exit 2 with the reason, no rule judged. */
function cannotJudge(options: KitOptions, problem: string, started: number): KitResult {
  return {
    exitCode: 2,
    baseUrl: options.baseUrl,
    ruleSet: options.ruleSet,
    runId: '',
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    verdicts: [],
    judged: { judged: 0, rules: 0, acceptedNotRun: [] },
    problems: [problem],
    requests: 0,
    budget: 0,
    serverProfile: {},
    created: { contacts: 0, messages: 0 },
    leftovers: [],
  };
}

/** Sets the kit's environment, for this process and jest's workers. */
function configure(options: KitOptions, runId: string, resultsDir: string): void {
  process.env.CONTRACT_BASE_URL = options.baseUrl;
  process.env.CONTRACT_TOKEN = options.token;
  if (options.token2) process.env.CONTRACT_TOKEN_2 = options.token2;
  else delete process.env.CONTRACT_TOKEN_2;
  process.env.CONTRACT_RULE_SET = options.ruleSet;
  process.env.CONTRACT_TIMEOUT_MS = String(options.timeoutMs ?? config.timeoutMs);
  process.env.CONTRACT_RUN_ID = runId;
  process.env.CONTRACT_RESULTS_DIR = resultsDir;
  process.env.CONTRACT_SEQUENCES = String(options.sequences ?? config.sequences);
  process.env.CONTRACT_SEED = String(options.seed ?? config.seed);
  process.env.CONTRACT_SETTLE_MS = String(options.settleMs ?? 0);
  process.env.CONTRACT_MAX_REQUESTS = String(
    options.maxRequests ?? requestBudget(options.ruleSet, options.sequences ?? config.sequences),
  );
  if (options.profileOut) process.env.CONTRACT_PROFILE_OUT = options.profileOut;
  else delete process.env.CONTRACT_PROFILE_OUT;
  Object.assign(config, readConfig());
}

/**
 * One request before the tests: is there a server, does it take the token, does it answer the
 * document's first endpoint with JSON? Without that, no verdict could be trusted.
 */
async function preflight(): Promise<string | undefined> {
  try {
    const answer = await send('GET', '/v1/contacts');
    if (answer.status === 401 || answer.status === 403) {
      return `the server refused the token: ${describeExchange(answer, 200)}`;
    }
    const location = answer.headers.location;
    if (answer.status >= 300 && answer.status < 400 && typeof location === 'string') {
      // The kit asks for the document's paths as they are and follows no redirect.
      return `the server redirects GET /v1/contacts to ${location} (${answer.status}), and the kit follows no redirect: give the base URL the endpoints answer at`;
    }
    if (answer.status < 200 || answer.status >= 300 || answer.body === undefined) {
      return `the server answers nothing usable: ${describeExchange(answer, 200)} (is the base URL the server's root, without /v1?)`;
    }
    return undefined;
  } catch (error) {
    if (error instanceof InfraError) return `the server could not be reached: ${error.message}`;
    throw error;
  }
}

/**
 * Deletes what the ledger says was created and not deleted; returns what could not be. A message
 * left to its contact's delete (model/data.ts `cleanup`) counts as deleted once the last sweep read
 * it back: those it found still there (`stillThere`) are deleted here. Without the last sweep's
 * word (an interrupted run), every such message is deleted here too.
 */
async function sweep(
  records: RecordLine[],
  stillThere?: readonly { resource: 'contact' | 'message'; id: string }[],
): Promise<KitResult['leftovers']> {
  const key = (r: { resource: string; id: string }) => `${r.resource}:${r.id}`;
  const there = new Set((stillThere ?? []).map(key));
  // A message left to the cascade is gone once the last sweep did not find it still there.
  const gone = (r: Extract<RecordLine, { kind: 'deleted' }>) =>
    r.by !== 'cascade' || (stillThere !== undefined && !there.has(key(r)));
  const deleted = new Set(records.flatMap((r) => (r.kind === 'deleted' && gone(r) ? [key(r)] : [])));
  const created = records.filter(
    (r): r is Extract<RecordLine, { kind: 'created' }> => r.kind === 'created' && !deleted.has(key(r)),
  );
  const ordered = [
    ...created.filter((r) => r.resource === 'message'),
    ...created.filter((r) => r.resource === 'contact'),
  ];
  const leftovers: KitResult['leftovers'] = [];
  for (const item of ordered) {
    let gone = false;
    try {
      gone = await deleteResource(item.resource, item.id);
    } catch {
      gone = false;
    }
    if (!gone) leftovers.push({ resource: item.resource, id: item.id, label: item.label });
  }
  return leftovers;
}

/**
 * Which rules of the selected set were judged. A rule not run counts against the run (exit 2)
 * unless the user narrowed the run to named rules (--rule) or accepted it by name
 * (--allow-not-run): a run that judged 4 rules of 42 does not say "the server conforms".
 */
function judgedOf(verdicts: RuleVerdict[], selected: Rule[], options: KitOptions) {
  const notRun = verdicts.filter((v) => v.verdict === 'not-run');
  const allowed = new Set(options.allowNotRun ?? []);
  const narrowed = (options.rules?.length ?? 0) > 0;
  return {
    judged: verdicts.filter((v) => v.verdict !== 'not-run').length,
    rules: Math.max(selected.length, verdicts.length),
    accepted: notRun.filter((v) => allowed.has(v.rule.id)).map((v) => v.rule.id),
    unaccepted: narrowed ? [] : notRun.filter((v) => !allowed.has(v.rule.id)),
  };
}

function notJudgedProblem(unaccepted: RuleVerdict[]): string {
  const ids = unaccepted.map((v) => v.rule.id);
  return `${ids.length} rule(s) of the selected set could not be judged on this server (reasons above): ${ids.join(', ')}. Give the kit what it needs (e.g. --sample), or accept them as not run with --allow-not-run ${ids.join(' ')}`;
}

let interrupted = false;

/** Runs the kit against one server and judges every rule of the rule set. */
export async function runKit(options: KitOptions): Promise<KitResult> {
  const started = Date.now();
  const givenBaseUrl = options.baseUrl;
  let baseUrl = options.baseUrl.trim().replace(/\/+$/, '');
  // The document's paths start with /v1, so the base URL is the server's root.
  if (baseUrl.endsWith('/v1')) baseUrl = baseUrl.slice(0, -3);
  options = { ...options, baseUrl };
  if (!baseUrl) return cannotJudge(options, 'no base URL: pass --base-url or set CONTRACT_BASE_URL', started);
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    return cannotJudge(options, `the base URL ${JSON.stringify(baseUrl)} is not an http(s) URL`, started);
  }
  if (!options.token) return cannotJudge(options, 'no token: pass --token or set CONTRACT_TOKEN', started);
  const unknown = [...(options.rules ?? []), ...(options.allowNotRun ?? [])].filter(
    (id) => !RULES.some((r) => r.id === id),
  );
  if (unknown.length > 0)
    return cannotJudge(options, `unknown rule ids: ${unknown.join(', ')} (see --list)`, started);
  const selected = rulesOf(options.ruleSet).filter(
    (r) => !options.rules?.length || options.rules.includes(r.id),
  );
  if (selected.length === 0)
    return cannotJudge(
      options,
      `none of the selected rules belongs to the ${options.ruleSet} rule set`,
      started,
    );

  const runId = `ct${Math.random().toString(36).slice(2, 8)}`;
  // A seed of its own each run, printed with the result, so that a failure can be run again.
  options = { ...options, seed: options.seed ?? Math.floor(Math.random() * 2 ** 31) };
  if (options.rules?.length && options.sequences === undefined) options = { ...options, sequences: 0 };
  const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'messaging-contract-'));
  configure(options, runId, resultsDir);
  options.onStart?.({ baseUrl, ruleSet: options.ruleSet, budget: config.maxRequests });
  try {
    const processors = os.cpus();
    const unusable = await preflight();
    if (unusable) return { ...cannotJudge(options, unusable, started), runId };
    // Values the server accepts, found before any rule runs; jest's workers read them.
    let attachment: string[] | undefined;
    try {
      const found = await discoverSamples(options.samples ?? {});
      attachment = found.attachment;
      process.env.CONTRACT_FOUND_SAMPLES = JSON.stringify(found);
    } catch (error) {
      if (!(error instanceof InfraError)) throw error;
      const leftovers = await sweep(readRecords(resultsDir));
      return { ...cannotJudge(options, `could not judge: ${error.message}`, started), runId, leftovers };
    }

    const workers =
      options.workers ??
      defaultWorkers({
        loopback: isLoopback(baseUrl),
        quickestMs: quickestAnswer(resultsDir),
        busy: busyShare(processors, os.cpus()),
      });
    const pattern = options.rules?.length
      ? `\\[(${[...options.rules.map(escapeRegExp), ...(options.sequences ? ['sequences'] : [])].join('|')})\\]`
      : undefined;
    // Loaded here, not at the top: `--list` and the checks before the run need no jest.
    let runCLI: typeof import('jest').runCLI;
    try {
      ({ runCLI } = await import('jest'));
    } catch (error) {
      const why = `the kit could not start its test runner (jest): ${(error as Error).message.split('\n')[0]}`;
      return { ...cannotJudge(options, `${why}; reinstall messaging-api-mock`, started), runId };
    }
    const { results } = await runCLI(
      {
        $0: 'messaging-contract',
        _: [],
        config: path.join(KIT_DIR, 'jest.config.js'),
        runInBand: workers <= 1,
        maxWorkers: Math.max(1, workers),
        // Jest runs every file in this one process, whatever maxWorkers says, when the durations it
        // keeps from an earlier run say each file took under a second (a run against a quick
        // server, one narrowed by --rule): the next run, against a far server, would take twice as
        // long. A limit set on workers' idle memory turns that guess off (@jest/core's
        // shouldRunInBand); this one is far above what a worker of the kit holds.
        ...(workers > 1 ? { workerIdleMemoryLimit: '2GB' } : {}),
        silent: true,
        reporters: [],
        // Jest would exit(1) itself on finding no test file; the kit says so and exits 2 below.
        passWithNoTests: true,
        // Files that declare no test in this run (the mock rule set's in the documented rule set, the
        // sequences' without sequences): jest would call them an error. (.ts in a clone, .js
        // compiled into dist/ and installed.)
        testPathIgnorePatterns: [
          ...(options.ruleSet === 'documented' ? ['\\.mock\\.contract\\.[jt]s$'] : []),
          ...(options.sequences === 0 ? ['sequences\\.contract\\.[jt]s$'] : []),
        ],
        ...(pattern ? { testNamePattern: pattern } : {}),
      } as Parameters<typeof import('jest').runCLI>[0],
      [KIT_DIR],
    );

    if (results.numTotalTestSuites === 0) {
      const problem = `the kit found none of its test files (*.contract.*) in ${KIT_DIR}`;
      return { ...cannotJudge(options, problem, started), runId };
    }
    // Every record the kit deleted must stay gone: its failures join the tests' verdicts.
    const problems: string[] = [];
    let stillThere: Awaited<ReturnType<typeof lastSweep>> | undefined;
    try {
      if (!interrupted) stillThere = await lastSweep(readRecords(resultsDir));
    } catch (error) {
      if (!(error instanceof InfraError)) throw error;
      problems.push(`the last sweep could not judge: ${error.message}`);
    }
    // The few requests the server profile needs beyond the rules' own, once, at the end.
    if (options.profileOut && !interrupted) await probeProfile(readRecords(resultsDir));
    // Every exchange through the one judge, the tests' outcomes and their records: each rule's verdict.
    const { verdicts, records, byJudge } = verdictsOfRun(
      {
        results,
        resultsDir,
        kitDir: KIT_DIR,
        ruleSet: options.ruleSet,
        settleMs: options.settleMs ?? 0,
        selected,
        interrupted,
        sequenceTitle: SEQUENCE_TITLE,
      },
      problems,
    );
    const serverProfile: Record<string, string[]> = {};
    for (const record of records) {
      if (record.kind !== 'observe') continue;
      const values = (serverProfile[record.key] ??= []);
      if (!values.includes(record.value)) values.push(record.value);
    }
    // Each process (the bin, jest's workers) reports the longest settle it waited: the run's is theirs.
    const settle = serverProfile[SETTLED];
    if (settle) serverProfile[SETTLED] = [`${Math.max(...settle.map((v) => parseInt(v, 10)))} ms`];
    const sequences = records.find(
      (r): r is Extract<RecordLine, { kind: 'sequences' }> => r.kind === 'sequences',
    )?.summary;
    const leftovers = await sweep(records, stillThere);
    // The tests' requests, and this process's own: the check before the run, and the sweep.
    const requests =
      records.reduce((n, r) => n + (r.kind === 'requests' ? r.count : 0), 0) + requestsSinceLastCount();
    // The sweep's own transient answers count too.
    const { transient, problem: unsteady } = transientsOf(readRecords(resultsDir), requests);
    if (unsteady) {
      problems.push(unsteady);
      // A failure seen among so many transient answers is not the server's verdict to trust.
      for (const [i, v] of verdicts.entries())
        if (v.verdict === 'fail')
          verdicts[i] = {
            ...v,
            verdict: 'not-run',
            reason: `not judged: too many transient answers (${v.reason})`,
          };
    }
    if (interrupted) problems.push('the run was interrupted');
    let profileOut: KitResult['profileOut'];
    if (options.profileOut) {
      const profile = buildProfile(records, {
        baseUrl: givenBaseUrl,
        pathPrefix: new URL(baseUrl).pathname.replace(/\/+$/, ''),
        observedAt: new Date(started).toISOString(),
        by: `messaging-contract${REFERENCE.version ? ` ${REFERENCE.version}` : ''}`,
        attachment,
      });
      try {
        fs.mkdirSync(path.dirname(path.resolve(options.profileOut)), { recursive: true });
        fs.writeFileSync(options.profileOut, `${JSON.stringify(profile, null, 2)}\n`);
        profileOut = { file: options.profileOut, ...countObserved(profile) };
      } catch (error) {
        problems.push(
          `could not write the server profile to ${options.profileOut}: ${(error as Error).message}`,
        );
      }
    }
    const failed = verdicts.some((v) => v.verdict === 'fail');
    const nothingJudged = verdicts.every((v) => v.verdict === 'not-run');
    const judged = judgedOf(verdicts, selected, options);
    const exitCode: ExitCode =
      problems.length > 0 || nothingJudged ? 2 : failed ? 1 : judged.unaccepted.length > 0 ? 2 : 0;
    if (nothingJudged && problems.length === 0) problems.push('no rule could be judged');
    else if (!failed && problems.length === 0 && judged.unaccepted.length > 0)
      problems.push(notJudgedProblem(judged.unaccepted));
    return {
      exitCode,
      baseUrl,
      ruleSet: options.ruleSet,
      runId,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      verdicts,
      judged: { judged: judged.judged, rules: judged.rules, acceptedNotRun: judged.accepted },
      problems,
      serverProfile,
      requests,
      ...(byJudge ? { judgedExchanges: byJudge.exchanges } : {}),
      transient,
      budget: config.maxRequests,
      workers: { chosen: workers, ran: testProcesses(resultsDir) },
      ...(sequences ? { sequences } : {}),
      ...(profileOut ? { profileOut } : {}),
      created: {
        contacts: records.filter((r) => r.kind === 'created' && r.resource === 'contact').length,
        messages: records.filter((r) => r.kind === 'created' && r.resource === 'message').length,
      },
      leftovers,
    };
  } finally {
    fs.rmSync(resultsDir, { recursive: true, force: true });
  }
}

/**
 * On Ctrl-C or SIGTERM: no more creations, delete what the ledger holds, say what is left, exit 2.
 * Returns the remover of the handlers.
 */
export function handleInterrupts(report: (leftovers: KitResult['leftovers']) => void): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(2);
    interrupted = true;
    const dir = config.resultsDir;
    process.stderr.write(
      `\n${signal}: stopping; deleting what the kit created (send it again to stop at once)\n`,
    );
    if (!dir || !fs.existsSync(dir)) process.exit(2);
    fs.writeFileSync(stopFile(dir), signal);
    // Requests in flight may still create something: let them land, sweep, then sweep what landed.
    void new Promise((resolve) => setTimeout(resolve, 500))
      .then(() => sweep(readRecords(dir)))
      .then(() => sweep(readRecords(dir)))
      .then(report, () => report([]))
      .finally(() => {
        fs.rmSync(dir, { recursive: true, force: true });
        process.exit(2);
      });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
