/**
 * Runs the contract kit against the mock started as a real process (the built `dist/cli/bin.js`, as
 * `npm start` runs it) on an ephemeral port, in both rule sets. `npm test` ends with it.
 * With `--runs N` it repeats each rule set and prints the wall times and request counts: the kit's
 * benchmark. `--latency MS` starts the mock with that delay on every answer (a server that far
 * away), `--workers N` runs the kit's test files N at a time.
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startMock } from './mock-process';

const root = path.resolve(__dirname, '..');
const bin = path.join(root, 'contract-tests', 'bin', 'messaging-contract.js');

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' },
    'rule-set': { type: 'string', multiple: true },
    'no-build': { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    latency: { type: 'string' },
    workers: { type: 'string' },
  },
});
const runs = Math.max(1, Number(values.runs) || 1);
const ruleSets = values['rule-set']?.length ? values['rule-set'] : ['documented', 'mock'];

function runKit(url: string, ruleSet: string): Promise<{ code: number; ms: number; output: string }> {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      bin,
      '--base-url',
      url,
      '--token',
      `ci-${ruleSet}-${Date.now()}`,
      '--rule-set',
      ruleSet,
      ...(values.workers ? ['--workers', values.workers] : []),
    ],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ code: code ?? 2, ms: Date.now() - started, output })),
  );
}

async function main(): Promise<number> {
  if (!values['no-build']) {
    const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) return build.status ?? 1;
  }
  const { url, child } = await startMock({ latency: values.latency });
  let worst = 0;
  try {
    const times: Record<string, number[]> = {};
    const requests: Record<string, number[]> = {};
    const totals = { passed: 0, failed: 0, notRun: 0 };
    for (let i = 0; i < runs; i++) {
      for (const ruleSet of ruleSets) {
        const result = await runKit(url, ruleSet);
        (times[ruleSet] ??= []).push(result.ms);
        const sent = /Sent (\d+) requests/.exec(result.output);
        if (sent) (requests[ruleSet] ??= []).push(Number(sent[1]));
        const last = result.output.trim().split('\n').at(-1) ?? '';
        const counts = /(\d+) passed, (\d+) failed, (\d+) not run/.exec(last);
        if (counts)
          for (const [i, key] of (['passed', 'failed', 'notRun'] as const).entries())
            totals[key] += Number(counts[i + 1]);
        if (result.code !== 0 || !values.quiet) process.stdout.write(result.output.trimEnd() + '\n');
        else process.stdout.write(`contract kit, ${ruleSet} rule set, against the mock process: ${last}\n`);
        worst = Math.max(worst, result.code);
      }
    }
    // One plain closing line, in the form CI logs are read for.
    console.log(`contract: ${totals.passed} passed, ${totals.failed} failed, ${totals.notRun} skipped`);
    if (runs > 1) {
      console.log(
        `\nWall time of the kit against the local mock (${runs} runs each${values.latency ? `, ${values.latency} ms latency` : ''}${values.workers ? `, ${values.workers} workers` : ''}, Node ${process.version}, ${require('node:os').cpus().length} cores):`,
      );
      for (const [ruleSet, list] of Object.entries(times)) {
        const sorted = [...list].sort((a, b) => a - b);
        const median = sorted[Math.floor(sorted.length / 2)]!;
        console.log(
          `  ${ruleSet.padEnd(10)} median ${(median / 1000).toFixed(1)} s, min ${(sorted[0]! / 1000).toFixed(1)} s, max ${(sorted.at(-1)! / 1000).toFixed(1)} s; requests ${(requests[ruleSet] ?? []).join(', ')}`,
        );
      }
    }
  } finally {
    child.kill('SIGTERM');
  }
  return worst;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error.message);
    process.exit(2);
  },
);
