/**
 * `npm test` runs the examples (examples/<name>/) as a user's projects: both packages packed
 * (`npm run pack`), each example copied out of the clone, installed from its own lockfile
 * (`npm ci`), the mock's tarball installed into it as a user installs it (`npm install --save-dev
 * <tarball>`), then its own scripts: build, test (Vitest), build-storybook and e2e (Playwright
 * against messaging-mock), each when the example has it. The browser is the one the browser tests
 * use (test/browser/chromium.ts: CHROMIUM_PATH, the system's, or the npm package's), given to
 * the example as CHROMIUM_PATH.
 *
 *   tsx scripts/examples.ts [--only vite-app] [--keep]
 *
 * Closes with `examples: N passed, N failed` (the tests that Vitest and Playwright counted; a
 * script that fails without counting counts as one failure).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { findChromium } from '../test/browser/chromium';
import { packBoth } from './bench/install';

const root = path.resolve(__dirname, '..');
const { values: args } = parseArgs({
  options: { only: { type: 'string' }, keep: { type: 'boolean', default: false } },
});
const STEPS = ['build', 'test', 'build-storybook', 'e2e'];
const LEFT_BEHIND = new Set([
  'node_modules',
  'dist',
  'storybook-static',
  'test-results',
  'playwright-report',
]);

/** npm's variables of a parent `npm test` would point npm at this clone: left out. */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (
      !/^npm_/i.test(key) ||
      /^npm_config_(registry|cache|userconfig|.*proxy|strict_ssl|cafile|ca)$/i.test(key)
    )
      if (key !== 'INIT_CWD') clean[key] = value;
  return { ...clean, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0', ...extra };
}

function run(command: string, commandArgs: string[], cwd: string, extra: Record<string, string> = {}) {
  console.log(`\n$ (${path.basename(cwd)}) ${command} ${commandArgs.join(' ')}`);
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(command, commandArgs, { cwd, env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const echo = (chunk: Buffer) => {
      output += chunk.toString();
      process.stdout.write(chunk);
    };
    child.stdout.on('data', echo);
    child.stderr.on('data', echo);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** What Vitest ("Tests  3 passed (3)") or Playwright ("5 passed") counted. */
function counted(output: string): { passed: number; failed: number } | undefined {
  const vitest = /^\s*Tests\s+(?:(\d+) failed \| )?(\d+) passed/m.exec(output);
  if (vitest) return { passed: Number(vitest[2]), failed: Number(vitest[1] ?? 0) };
  const passed = /^\s*(\d+) passed\b/m.exec(output);
  const failed = /^\s*(\d+) failed\b/m.exec(output);
  if (passed || failed) return { passed: Number(passed?.[1] ?? 0), failed: Number(failed?.[1] ?? 0) };
  return undefined;
}

async function main(): Promise<number> {
  const examples = fs
    .readdirSync(path.join(root, 'examples'))
    .filter((name) => fs.existsSync(path.join(root, 'examples', name, 'package.json')))
    .filter((name) => !args.only || args.only.split(',').includes(name));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'messaging-examples-'));
  const chromium = findChromium();
  console.log(`Chromium: ${chromium.description}`);
  const totals = { passed: 0, failed: 0 };
  try {
    const [mock] = packBoth(work, env({}));
    for (const name of examples) {
      const project = path.join(work, name);
      fs.cpSync(path.join(root, 'examples', name), project, {
        recursive: true,
        filter: (source) => !LEFT_BEHIND.has(path.basename(source)),
      });
      const install = await run('npm', ['ci', '--no-audit', '--no-fund'], project);
      const tarball =
        install.code === 0
          ? await run(
              'npm',
              ['install', '--save-dev', '--no-audit', '--no-fund', path.join(work, mock!.filename)],
              project,
            )
          : install;
      if (tarball.code !== 0) {
        console.log(`${name}: could not be installed`);
        totals.failed += 1;
        continue;
      }
      const scripts = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8')).scripts ?? {};
      for (const step of STEPS.filter((s) => s in scripts)) {
        const ran = await run('npm', ['run', '--silent', step], project, {
          CHROMIUM_PATH: chromium.executablePath(),
        });
        const counts = counted(ran.output);
        if (counts) {
          totals.passed += counts.passed;
          totals.failed += counts.failed;
        }
        if (ran.code !== 0 && (!counts || counts.failed === 0)) totals.failed += 1;
        console.log(`${name}: npm run ${step}: ${ran.code === 0 ? 'passed' : `FAILED (exit ${ran.code})`}`);
      }
    }
  } finally {
    if (args.keep) console.log(`kept: ${work}`);
    else fs.rmSync(work, { recursive: true, force: true });
  }
  console.log(`examples: ${totals.passed} passed, ${totals.failed} failed`);
  return totals.failed > 0 || totals.passed === 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error.stack);
    process.exit(2);
  },
);
