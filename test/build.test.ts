import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * `npm run build` (scripts/build.js) side by side with itself and with the mock starting from
 * dist/, as `npm test` in one terminal and `npm start` in another do. Each runs in a copy of the
 * build's inputs with this clone's node_modules, so that this clone's dist/ is left alone.
 */
const ROOT = path.resolve(__dirname, '..');
const { INPUTS } = require('../scripts/build.js') as { INPUTS: string[] };

let copy: string;

beforeAll(() => {
  copy = fs.mkdtempSync(path.join(os.tmpdir(), 'messaging-api-mock-build-'));
  for (const input of INPUTS) fs.cpSync(path.join(ROOT, input), path.join(copy, input), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
});

afterAll(() => {
  if (copy) fs.rmSync(copy, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  output: string;
}

function run(args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: copy, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

const build = (...args: string[]) => run(['scripts/build.js', ...args]);

/**
 * Starts `messaging-mock --help` from dist/ again and again until `until` settles (or, with
 * `stopAtFailure`, until one start fails): every start's outcome.
 */
async function startsMeanwhile(until: Promise<unknown>, stopAtFailure = false): Promise<Ran[]> {
  let done = false;
  void until.finally(() => (done = true));
  const starts: Ran[] = [];
  while (!done) {
    const started = await run(['dist/cli/bin.js', '--help']);
    starts.push(started);
    if (stopAtFailure && started.code !== 0) break;
  }
  return starts;
}

const failures = (starts: Ran[]) =>
  starts.filter((s) => s.code !== 0 || !s.output.includes('--port')).map((s) => s.output);

it('finds dist/ up to date when it was built from the same sources, and builds nothing', async () => {
  // This clone's dist/ (npm test builds it first) is the copy's build too, when the sources are the same.
  if (fs.existsSync(path.join(ROOT, 'dist')))
    fs.cpSync(path.join(ROOT, 'dist'), path.join(copy, 'dist'), { recursive: true });
  expect((await build()).code).toBe(0);
  const stamp = fs.statSync(path.join(copy, 'dist', '.build-stamp')).mtimeMs;
  expect(await build()).toEqual({ code: 0, output: expect.stringContaining('dist/ is up to date') });
  expect(fs.statSync(path.join(copy, 'dist', '.build-stamp')).mtimeMs).toBe(stamp);
}, 300_000);

it('a source changed: two builds at once both succeed, and the mock starts from dist/ all the while', async () => {
  fs.appendFileSync(path.join(copy, 'src', 'ids.ts'), '\nexport const BUILD_PROBE = 1;\n');
  const builds = Promise.all([build(), build()]);
  const starts = await startsMeanwhile(builds);
  const [a, b] = await builds;
  expect([a.code, b.code]).toEqual([0, 0]);
  expect([a.output, b.output].filter((o) => !o.includes('up to date')).length).toBeGreaterThan(0);
  expect(starts.length).toBeGreaterThan(0);
  expect(failures(starts)).toEqual([]);
  expect(fs.readdirSync(copy).filter((f) => f.startsWith('dist.tmp-'))).toEqual([]);
  // What both left is a whole build, of the changed sources: the mock and the kit start from it.
  expect((await build()).output).toContain('dist/ is up to date');
  expect(fs.readFileSync(path.join(copy, 'dist', 'ids.js'), 'utf8')).toContain('BUILD_PROBE');
  expect((await run(['dist/cli/bin.js', '--help'])).code).toBe(0);
  expect((await run(['dist/contract-tests/bin/messaging-contract.js', '--help'])).code).toBe(0);
}, 600_000);

it('the check catches a build that deletes dist/ first, as the build did before', async () => {
  // The former build: rm -rf dist, then compile. A start during the compilation finds no bin.
  const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  fs.rmSync(path.join(copy, 'dist'), { recursive: true, force: true });
  const compiling = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: copy });
  const exited = new Promise((resolve) => compiling.on('close', resolve));
  const starts = await startsMeanwhile(exited, true);
  compiling.kill();
  await exited;
  expect(failures(starts).join('\n')).toContain("Cannot find module '");
}, 300_000);
