/**
 * "The same honest server never fails one run in fifty": the contract kit run again and again,
 * each run with a seed of its own, against servers that honour every documented rule. Any run
 * that does not exit 0 is the kit's fault, and is told with its seed, the rule and the reason,
 * so that it can be run again (`messaging-contract --seed N`).
 *
 * The servers: the mock as `npm start` runs it (the built `dist/cli/bin.js`), and the staging
 * servers of the kit's tests (test/contract-kit/staging.ts): every STAGING_VARIANTS entry and the
 * ones as real services run them (STAGING_HARD_VARIANTS: strict formats, gzip, a rate limit, a path
 * prefix, ids shared across kinds, lists that settle late, a flaky edge), which the test suite
 * expects to pass (exit 0) as well.
 *
 * `npm run bench -- --only honest [--honest-runs N] [--honest-staging-runs M]`, or alone:
 * `npx tsx scripts/bench/honest-runs.ts [--runs N] [--staging-runs M] [--servers mock,staging,hard|edge]
 * [--name <text>]` (`--name`: only the servers whose name holds the text, e.g. `--name gzip`).
 * One run at a time (the kit's own default workers), a new token each run.
 */
import { parseArgs } from 'node:util';
import { runBin, type KitRun } from '../../test/contract-kit/harness';
import { STAGING_HARD_VARIANTS, STAGING_VARIANTS, startStaging } from '../../test/contract-kit/staging';
import { startMock } from '../mock-process';

interface HonestServer {
  name: string;
  /** Starts it; resolves with its base URL and how to stop it. */
  start(): Promise<{ url: string; close(): Promise<void> }>;
  /** Options the kit needs for it, as the test suite gives them. */
  args: string[];
}

function servers(which: Set<string>): HonestServer[] {
  const list: HonestServer[] = [];
  if (which.has('mock'))
    list.push({ name: 'the mock (dist/cli/bin.js)', start: () => startMock(), args: [] });
  if (which.has('staging'))
    for (const variant of STAGING_VARIANTS)
      list.push({ name: `staging: ${variant.name}`, start: () => startStaging(variant.options), args: [] });
  // The staging servers as real services run them, with the options the test suite gives the kit
  // for them (the path prefix in the base URL, a settle window five times the server's); `edge`:
  // only the one behind a flaky edge.
  for (const variant of STAGING_HARD_VARIANTS) {
    if (!which.has('hard') && !(which.has('edge') && variant.options.flakyEdge)) continue;
    const { prefix = '', settleMs } = variant.options;
    list.push({
      name: `staging: ${variant.name}`,
      start: async () => {
        const server = await startStaging(variant.options);
        return { url: server.url + prefix, close: () => server.close() };
      },
      args: settleMs ? ['--settle-ms', String(settleMs * 5)] : [],
    });
  }
  return list;
}

interface Failure {
  run: number;
  seed: number;
  code: number;
  what: string;
}

export interface HonestResult {
  server: string;
  runs: number;
  codes: Record<number, number>;
  failures: Failure[];
  medianMs: number;
}

/** What made a run other than exit 0: the rules it failed (reason, check, who found it), or its problems. */
function whyNotZero(run: KitRun): string {
  const failed = (run.json?.verdicts ?? []).filter((v) => v.verdict === 'fail');
  if (failed.length > 0)
    return failed
      .map(
        (v) =>
          `${v.rule}${v.check ? ` (${v.check})` : ''}: ${v.reason ?? ''}${v.foundBy ? ` — found by ${v.foundBy}` : ''}`,
      )
      .join('; ');
  if (run.json?.problems.length) return run.json.problems.join('; ');
  return run.output.trim().split('\n').slice(-3).join(' / ');
}

/** Runs the kit `runs` times against `server`, each run with a new seed and token. */
async function runsAgainst(
  server: HonestServer,
  runs: number,
  say: (line: string) => void,
): Promise<HonestResult> {
  const running = await server.start();
  const codes: Record<number, number> = {};
  const failures: Failure[] = [];
  const times: number[] = [];
  try {
    for (let i = 1; i <= runs; i++) {
      const seed = Math.floor(Math.random() * 2 ** 31);
      const started = Date.now();
      const run = await runBin([
        '--base-url',
        running.url,
        '--token',
        `honest-${i}-${started.toString(36)}`,
        '--seed',
        String(seed),
        ...server.args,
      ]);
      times.push(Date.now() - started);
      codes[run.code] = (codes[run.code] ?? 0) + 1;
      if (run.code !== 0) {
        const failure = { run: i, seed, code: run.code, what: whyNotZero(run) };
        failures.push(failure);
        say(`  run ${i}: exit ${run.code}, seed ${seed}: ${failure.what}`);
      }
    }
  } finally {
    await running.close();
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { server: server.name, runs, codes, failures, medianMs: sorted[Math.floor(sorted.length / 2)] ?? 0 };
}

/**
 * The runs against each server, one line each, and a line for every run that did not exit 0.
 * `stagingRuns` applies to the staging servers (they take longer); the mock takes `runs`.
 */
export async function honestRuns(
  options: { runs: number; stagingRuns?: number; servers?: string[]; name?: string },
  say: (line: string) => void = console.log,
): Promise<HonestResult[]> {
  const which = new Set(options.servers ?? ['mock', 'staging', 'hard']);
  const results: HonestResult[] = [];
  for (const server of servers(which)) {
    if (options.name !== undefined && !server.name.includes(options.name)) continue;
    const runs = server.name.startsWith('staging') ? (options.stagingRuns ?? options.runs) : options.runs;
    if (runs <= 0) continue;
    const result = await runsAgainst(server, runs, say);
    results.push(result);
    const codes = Object.entries(result.codes)
      .map(([code, n]) => `exit ${code} × ${n}`)
      .join(', ');
    say(
      `- ${result.server}: ${result.runs} runs, ${codes}; median ${(result.medianMs / 1000).toFixed(1)} s a run${result.failures.length === 0 ? '' : `; ${result.failures.length} not 0 (seeds ${result.failures.map((f) => f.seed).join(', ')})`}`,
    );
  }
  return results;
}

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '50' },
      'staging-runs': { type: 'string' },
      servers: { type: 'string', default: 'mock,staging,hard' },
      name: { type: 'string' },
    },
  });
  const runs = Math.max(0, Math.round(Number(values.runs)));
  const stagingRuns =
    values['staging-runs'] === undefined
      ? undefined
      : Math.max(0, Math.round(Number(values['staging-runs'])));
  honestRuns({ runs, stagingRuns, servers: values.servers.split(','), name: values.name }).then(
    (results) => process.exit(results.some((r) => r.failures.length > 0) ? 1 : 0),
    (error: Error) => {
      console.error(error.stack);
      process.exit(2);
    },
  );
}
