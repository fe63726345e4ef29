import os from 'node:os';
import path from 'node:path';
import type { SectionResult, SoakOptions } from './mock';
import { MOCK_BIN, rssMb, startListening } from './process';
import { percentile, traffic } from './traffic';

const root = path.join(__dirname, '..', '..');
const PROXY_BIN = path.join(root, 'dist', 'contract-tests', 'bin', 'messaging-contract.js');

/**
 * The contract proxy with its default options in front of the mock, under the mock section's
 * traffic. The mock keeps every world here (bounds far above the traffic), so that the traffic
 * stays honest as the proxy sees it: a world that vanished would look like records lost. It
 * passes when no answer is a 5xx or missing, the proxy finds no rule broken (exit 0 on SIGINT),
 * and its RSS is flat after the first minute: the highest sample of the last half of the run is
 * within 10 % (or 10 MB) of the highest of the first half.
 */
export async function soakProxy(options: SoakOptions): Promise<SectionResult> {
  const mock = await startListening(
    [MOCK_BIN, '--port', '0', '--quiet', '--max-worlds', '100000', '--max-total-mb', '3000'],
    'the mock',
  );
  const proxy = await startListening(
    [PROXY_BIN, 'proxy', '--target', mock.url.origin, '--port', '0'],
    'the proxy',
  );
  const lines: string[] = [];
  const say = (line: string) => {
    console.log(line);
    lines.push(line);
  };
  say(
    `proxy: messaging-contract proxy (default options) in front of the mock, ${options.requests.toLocaleString('en')} requests from ${options.tokens.toLocaleString('en')} tokens over ${options.connections} connections; proxy RSS idle ${rssMb(proxy.pid).toFixed(1)} MB`,
  );
  say('');
  say('| t (s) | requests | req/s | 5xx or none | p50 (ms) | p99 (ms) | proxy RSS (MB) | mock RSS (MB) |');
  say('|---:|---:|---:|---:|---:|---:|---:|---:|');
  const load = traffic({ url: proxy.url, prefix: 'proxy-soak', ...options });
  const started = Date.now();
  const samples: { t: number; rss: number }[] = [];
  let requests = 0;
  const sample = () => {
    const interval = load.interval();
    const sorted = interval.latencies.sort((a, b) => a - b);
    const t = (Date.now() - started) / 1000;
    const rss = rssMb(proxy.pid);
    samples.push({ t, rss });
    requests += interval.answered;
    say(
      `| ${t.toFixed(0)} | ${requests.toLocaleString('en')} | ${(interval.answered / options.intervalSeconds).toFixed(0)} | ${interval.failures} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} | ${rss.toFixed(1)} | ${rssMb(mock.pid).toFixed(1)} |`,
    );
    for (const example of interval.examples) say(`  ${example}`);
    if (proxy.died() !== undefined || mock.died() !== undefined) load.stop();
  };
  const sampler = setInterval(sample, options.intervalSeconds * 1000);
  const totals = await load.done;
  clearInterval(sampler);
  sample();
  const death = proxy.died() ?? mock.died();
  const { code } = await proxy.stop('SIGINT');
  await mock.stop();

  const settled = samples.filter((s) => s.t >= 60);
  const firstHalf = settled.slice(0, Math.floor(settled.length / 2));
  const lastHalf = settled.slice(Math.floor(settled.length / 2));
  const highest = (list: typeof samples) => Math.max(...list.map((s) => s.rss));
  const enough = firstHalf.length > 0 && lastHalf.length > 0;
  const growth = enough ? highest(lastHalf) - highest(firstHalf) : NaN;
  const flat = enough && growth <= Math.max(10, highest(firstHalf) * 0.1);
  const summary = proxy.lines
    .filter((line) => /exchanges judged|forgot|rule broken|rules? broken|remembered/.test(line))
    .map((line) => line.trim());
  const verdicts = [
    [death === undefined, death ?? 'the proxy and the mock were alive at the end'],
    [totals.failures === 0, `${totals.failures} answers were 5xx or missing`],
    [code === 0, `the proxy exited ${code} on SIGINT (0: no rule broken)`],
    [
      flat,
      enough
        ? `proxy RSS after the first minute: at most ${highest(firstHalf).toFixed(1)} MB in the first half and ${highest(lastHalf).toFixed(1)} MB in the last (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB); peak ${Math.max(...samples.map((s) => s.rss)).toFixed(1)} MB`
        : 'too short a run to tell whether the proxy RSS is flat after the first minute',
    ],
  ] as const;
  say('');
  say(
    `${totals.answered.toLocaleString('en')} answers in ${((Date.now() - started) / 1000).toFixed(0)} s from ${totals.tokens.toLocaleString('en')} tokens; statuses ${JSON.stringify(totals.byStatus)}; ${os.cpus().length} cores, Node ${process.version}.`,
  );
  for (const line of summary) say(`proxy: ${line}`);
  for (const line of proxy.lines.filter((l) => l.startsWith('VIOLATION')).slice(0, 5)) say(`  ${line}`);
  for (const [ok, text] of verdicts) say(`- ${ok ? 'ok' : 'FAILED'}: ${text}`);
  return { ok: verdicts.every(([ok]) => ok), lines };
}
