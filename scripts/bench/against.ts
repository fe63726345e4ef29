/**
 * `npm run bench:against -- --base DIR`: this tree's mock side by side with another checkout's
 * (built, e.g. `git worktree add DIR <commit> && cd DIR && npm ci`), to tell a slowdown from the
 * noise of a shared machine, which moves both alike. In alternating rounds (which tree goes first
 * alternates too): the server CPU per `GET /v1/contacts` under autocannon (10 connections,
 * `--seconds` per run after 1 s of warm-up), and the time from `node` starting to the first
 * answer of a 10,000-contact, 1,000,000-message world (`--skip-large` to leave it out).
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '5' },
    'large-rounds': { type: 'string', default: '2' },
    'skip-large': { type: 'boolean', default: false },
  },
});
const here = path.resolve(__dirname, '..', '..');
const trees = { base: values.base === undefined ? '' : path.resolve(values.base), this: here };
for (const [name, dir] of Object.entries(trees)) {
  if (!existsSync(path.join(dir, 'dist', 'cli', 'bin.js'))) {
    console.error(
      name === 'base' && values.base === undefined
        ? 'error: --base DIR is needed: a checkout to compare with, built (npm ci builds it)'
        : `error: ${dir} has no dist/cli/bin.js: build it first (npm run build)`,
    );
    process.exit(2);
  }
}
type Tree = keyof typeof trees;
const TOKEN = { Authorization: 'Bearer bench' };

/** User and system seconds of a process so far (/proc/<pid>/stat). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Starts a tree's mock on a free port; resolves once it answers, with the time that took. */
async function start(tree: Tree, args: string[]): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const began = Date.now();
  const child = spawn(
    process.execPath,
    [path.join(trees[tree], 'dist', 'cli', 'bin.js'), '--port', '0', ...args],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (found) resolve(found[0]);
    });
    child.on('exit', (code) => reject(new Error(`the ${tree} mock exited (${code}) before it listened`)));
  });
  for (;;) {
    try {
      if ((await fetch(`${url}/v1/contacts`, { headers: TOKEN })).ok) break;
    } catch {
      // not answering yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { child, url, ms: Date.now() - began };
}

async function cpuPerRequest(tree: Tree): Promise<number> {
  const { child, url } = await start(tree, []);
  try {
    const load = (duration: number) =>
      autocannon({ url: `${url}/v1/contacts`, connections: 10, duration, headers: TOKEN });
    await load(1);
    const before = cpuSeconds(child.pid!);
    const run = await load(Number(values.seconds));
    return ((cpuSeconds(child.pid!) - before) / run.requests.total) * 1e6;
  } finally {
    child.kill();
  }
}

const order = (round: number): Tree[] => (round % 2 === 0 ? ['base', 'this'] : ['this', 'base']);
const cpu: Record<Tree, number[]> = { base: [], this: [] };
const large: Record<Tree, number[]> = { base: [], this: [] };

async function main(): Promise<void> {
  for (let round = 0; round < Number(values.rounds); round++)
    for (const tree of order(round)) cpu[tree].push(await cpuPerRequest(tree));
  if (!values['skip-large'])
    for (let round = 0; round < Number(values['large-rounds']); round++)
      for (const tree of order(round)) {
        const { child, ms } = await start(tree, ['--contacts', '10000', '--messages', '1000000']);
        child.kill();
        large[tree].push(ms);
      }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  const row = (what: string, xs: Record<Tree, number[]>, unit: string) =>
    `| ${what} | ${xs.this.map((x) => Math.round(x)).join(', ')} ${unit} | ${xs.base
      .map((x) => Math.round(x))
      .join(', ')} ${unit} | ${(median(xs.this) / median(xs.base)).toFixed(2)}× |`;
  console.log(`# This tree against ${trees.base}, ${new Date().toISOString().slice(0, 10)}\n`);
  console.log('| measure, each round | this tree | base | ratio of the medians |\n|---|---:|---:|---:|');
  console.log(row('server CPU per `GET /v1/contacts`', cpu, 'µs'));
  if (!values['skip-large']) console.log(row('first answer of a 1,000,000-message world', large, 'ms'));
}

void main();
