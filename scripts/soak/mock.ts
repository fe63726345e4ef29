import os from 'node:os';
import { CORE_DEFAULTS } from '../../src/create-core';
import { MOCK_BIN, rssMb, startListening } from './process';
import { percentile, traffic, type TrafficOptions } from './traffic';

export interface SoakOptions {
  requests: number;
  tokens: number;
  connections: number;
  intervalSeconds: number;
  /** V8's old-space limit for the process under test, as on a machine of that much memory. */
  heapMb: number;
  /** The recorder section: the account's size, the bound of a recording's RSS, the worst case. */
  messages: number;
  contacts: number;
  recorderMaxRssMb: number;
  distinctTexts: boolean;
}

export interface SectionResult {
  ok: boolean;
  /** Markdown lines: a table of samples, then what was found. */
  lines: string[];
}

/**
 * What V8 holds beyond the live heap whatever the traffic: its young generation (three 16 MB
 * semi-spaces on 64-bit Node 20) and the old space it keeps free between full collections.
 */
const V8_ROOM_MB = 96;

/** The live and committed heap (MB) after the last full collection that `--trace-gc` printed. */
function lastFullCollection(lines: readonly string[]): { live: number; committed: number } | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = /Mark-Compact [\d.]+ \([\d.]+\) -> ([\d.]+) \(([\d.]+)\) MB/.exec(lines[i]!);
    if (match) return { live: Number(match[1]), committed: Number(match[2]) };
  }
  return undefined;
}

/** How long the process idles after the traffic before its RSS is read for the verdict. */
const QUIET_SECONDS = 20;

/**
 * The mock with its default options, under a heap limit such as a machine of 1 GB gives V8
 * (`--max-old-space-size=256`), loaded with the traffic of many tokens. It passes when no answer
 * is a 5xx or missing, the process is alive at the end, and its RSS at the end is within the
 * default budget (`--max-total-mb`) plus the baseline: the RSS of the same process idle after
 * start, and the collector's room, stated beside it.
 */
export async function soakMock(options: SoakOptions): Promise<SectionResult> {
  const budgetMb = CORE_DEFAULTS.maxTotalBytes / 2 ** 20;
  let shedJournals = 0;
  let shedWorlds = 0;
  const mock = await startListening(
    // --trace-gc: each full collection prints the live heap it left, which the verdict reads.
    [`--max-old-space-size=${options.heapMb}`, '--trace-gc', MOCK_BIN, '--port', '0', '--quiet'],
    'the mock',
    (line) => {
      if (line.startsWith('journal of token')) shedJournals++;
      else if (line.startsWith('world of token')) shedWorlds++;
    },
  );
  await new Promise((done) => setTimeout(done, 2000));
  const baseline = rssMb(mock.pid);
  const lines: string[] = [];
  const say = (line: string) => {
    console.log(line);
    lines.push(line);
  };
  say(
    `mock: node --max-old-space-size=${options.heapMb} dist/cli/bin.js (default options: --max-total-mb ${budgetMb}, --max-worlds ${CORE_DEFAULTS.maxWorlds}), ` +
      `${options.requests.toLocaleString('en')} requests from ${options.tokens.toLocaleString('en')} tokens over ${options.connections} connections; ` +
      `RSS idle after start ${baseline.toFixed(1)} MB`,
  );
  say('');
  say(
    '| t (s) | requests | req/s | 5xx or none | p50 (ms) | p99 (ms) | RSS (MB) | journals shed | worlds dropped |',
  );
  say('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const shed = () => ({ journals: shedJournals, worlds: shedWorlds });
  const run: TrafficOptions = { url: mock.url, prefix: 'soak', ...options };
  const load = traffic(run);
  const started = Date.now();
  const samples: number[] = [];
  let requests = 0;
  const sample = () => {
    const interval = load.interval();
    const sorted = interval.latencies.sort((a, b) => a - b);
    const rss = rssMb(mock.pid);
    samples.push(rss);
    requests += interval.answered;
    const { journals, worlds } = shed();
    say(
      `| ${Math.round((Date.now() - started) / 1000)} | ${requests.toLocaleString('en')} | ${(interval.answered / options.intervalSeconds).toFixed(0)} | ${interval.failures} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} | ${rss.toFixed(1)} | ${journals} | ${worlds} |`,
    );
    for (const example of interval.examples) say(`  ${example}`);
    if (mock.died() !== undefined) {
      load.stop();
      const words = mock.lines.filter((l) => !/^\[\d+:0x/.test(l) && !/^ *\d+: 0x/.test(l));
      say(`  ${mock.died()}; its last words:`);
      for (const line of words.slice(-4)) say(`    ${line}`);
    }
  };
  const sampler = setInterval(sample, options.intervalSeconds * 1000);
  const totals = await load.done;
  clearInterval(sampler);
  sample();
  // The collector reclaims what the last requests left once they stop (V8's memory reducer).
  const loaded = rssMb(mock.pid);
  await new Promise((done) => setTimeout(done, QUIET_SECONDS * 1000));
  const end = rssMb(mock.pid);
  const death = mock.died();
  const { code, signal } = await mock.stop();
  const peak = Math.max(...samples.filter((s) => !Number.isNaN(s)));
  const live = lastFullCollection(mock.lines);
  const startHeap = Number(/the heap is at (\d+) MB/.exec(mock.lines.join('\n'))?.[1] ?? NaN);
  const rssBound = budgetMb + baseline + V8_ROOM_MB;
  const verdicts = [
    [death === undefined, death ?? 'the process was alive at the end'],
    [totals.failures === 0, `${totals.failures} answers were 5xx or missing`],
    [
      live !== undefined && live.live <= budgetMb + startHeap,
      `live heap after the last full collection ${live?.live ?? '?'} MB (of ${live?.committed ?? '?'} MB the heap had), within the budget ${budgetMb} MB + the heap at start ${startHeap} MB`,
    ],
    [
      end <= rssBound,
      `RSS at the end ${end.toFixed(1)} MB (${QUIET_SECONDS} s after the last request; ${loaded.toFixed(1)} MB as it came; peak ${peak.toFixed(1)} MB), within the budget ${budgetMb} MB + the baseline ${(baseline + V8_ROOM_MB).toFixed(0)} MB (the idle process ${baseline.toFixed(1)} MB, and ${V8_ROOM_MB} MB of V8's room: its young generation and the slack it keeps above the live heap)`,
    ],
    [code === 0, `exit code ${code ?? signal} after SIGTERM`],
  ] as const;
  say('');
  say(
    `${totals.answered.toLocaleString('en')} answers in ${((Date.now() - started) / 1000).toFixed(0)} s from ${totals.tokens.toLocaleString('en')} tokens; statuses ${JSON.stringify(totals.byStatus)}; ${shed().journals} journals shed and ${shed().worlds} worlds dropped (each logged); ${os.cpus().length} cores, Node ${process.version}.`,
  );
  for (const [ok, text] of verdicts) say(`- ${ok ? 'ok' : 'FAILED'}: ${text}`);
  return { ok: verdicts.every(([ok]) => ok), lines };
}
