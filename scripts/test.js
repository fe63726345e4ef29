#!/usr/bin/env node
/**
 * `npm test`: every part runs, whatever became of the ones before it, and the summary names
 * each part with its outcome and counts, then ends with one line `tests: N passed, N failed`.
 * The exit code is 1 when any part failed.
 *
 *   typecheck  tsc --noEmit over src/, test/, contract-tests/ and scripts/, then over demo/ with the
 *              DOM's types (demo/tsconfig.json), which the rest must not see
 *   knip       no unused file, export, type or dependency (knip.json)
 *   openapi-lint  the OpenAPI document under Redocly's recommended and Spectral's oas rules, no
 *              error and no warning (scripts/lint-openapi.ts)
 *   build      npm run build: dist/, the package's contents (nothing to do when it is up to date)
 *   jest       the unit, integration, browser and contract-kit tests (jest.config.js)
 *   contract   the kit against the mock started as a process, both rule sets
 *   contract-msw  the kit against the MSW adapter in Node (setupServer), both rule sets
 *   package    npm run pack, both tarballs installed into an empty project and the mock's alone
 *              into another, the bins, a strict TypeScript consumer (test/package/)
 *   examples   examples/: each a user's project with its own lockfile and the packed mock,
 *              its build, Vitest tests, Storybook and Playwright tests in Chromium (scripts/examples.ts)
 *
 * Parts of one stage run at once, each with its output held and printed whole when it ends: the
 * checks (typecheck, knip, openapi-lint), the two kit runs (contract, contract-msw), and the two
 * installs (package, examples), which wait on the disk and the registry as much as on the processor.
 * Alone in its stage (jest, build, or a part chosen with --only), a part's output streams as it comes.
 *
 * `npm test -- --only jest,contract` or `--skip package` runs fewer parts.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const jestBin = require.resolve('jest/bin/jest', { paths: [root] });

/** Counts from a jest --json result file: [passed, failed], or undefined when there is none. */
function jestCounts(file) {
  try {
    const result = JSON.parse(fs.readFileSync(file, 'utf8'));
    // A suite that failed outside any test (a hook, a file that does not load) counts as a failure.
    const brokenSuites = result.testResults.filter(
      (suite) => suite.status === 'failed' && suite.assertionResults.every((a) => a.status !== 'failed'),
    ).length;
    return { passed: result.numPassedTests, failed: result.numFailedTests + brokenSuites, what: 'tests' };
  } catch {
    return undefined;
  }
}

/**
 * Counts from the plain closing line of a script: `contract: N passed, N failed, N skipped` from
 * scripts/contract-against-mock.ts (or -msw.ts, labelled `contract (MSW)`), `openapi lint: N passed,
 * N failed` from scripts/lint-openapi.ts.
 */
function closingCounts(output, label, what) {
  const match = new RegExp(
    `^${label.replace(/[()]/g, '\\$&')}: (\\d+) passed, (\\d+) failed(?:, (\\d+) skipped)?$`,
    'm',
  ).exec(output);
  return match
    ? { passed: Number(match[1]), failed: Number(match[2]), notRun: Number(match[3] ?? 0), what }
    : undefined;
}

/** Counts from the closing line of scripts/examples.ts: `examples: N passed, N failed`. */
function exampleCounts(output) {
  const match = /^examples: (\d+) passed, (\d+) failed$/m.exec(output);
  return match ? { passed: Number(match[1]), failed: Number(match[2]), what: 'tests' } : undefined;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'messaging-api-mock-test-'));
const PARTS = [
  { name: 'typecheck', stage: 'checks', command: ['npm', 'run', '--silent', 'typecheck'] },
  { name: 'knip', stage: 'checks', command: [bin('knip'), '--no-progress'] },
  {
    name: 'openapi-lint',
    stage: 'checks',
    // Through npm: it writes the generated sources first (a fresh clone has none yet).
    command: ['npm', 'run', '--silent', 'lint:openapi'],
    counts: (output) => closingCounts(output, 'openapi lint', 'linters'),
    capture: true,
  },
  { name: 'build', stage: 'build', command: ['npm', 'run', '--silent', 'build'] },
  {
    name: 'jest',
    stage: 'jest',
    command: [process.execPath, jestBin, '--json', `--outputFile=${path.join(tmp, 'jest.json')}`],
    counts: () => jestCounts(path.join(tmp, 'jest.json')),
  },
  {
    name: 'contract',
    stage: 'kit',
    command: [bin('tsx'), 'scripts/contract-against-mock.ts', '--quiet', '--no-build'],
    counts: (output) => closingCounts(output, 'contract', 'rules'),
    capture: true,
  },
  {
    name: 'contract-msw',
    stage: 'kit',
    command: [bin('tsx'), 'scripts/contract-against-msw.ts', '--quiet'],
    counts: (output) => closingCounts(output, 'contract (MSW)', 'rules'),
    capture: true,
  },
  {
    name: 'package',
    stage: 'installs',
    command: [
      process.execPath,
      jestBin,
      '-c',
      'test/package/jest.config.js',
      '--json',
      `--outputFile=${path.join(tmp, 'package.json')}`,
    ],
    counts: () => jestCounts(path.join(tmp, 'package.json')),
  },
  {
    name: 'examples',
    stage: 'installs',
    command: [bin('tsx'), 'scripts/examples.ts'],
    counts: (output) => exampleCounts(output),
    capture: true,
  },
];

function option(name) {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : (process.argv[at + 1] ?? '').split(',').filter(Boolean);
}

/**
 * Runs one part. `held`: its output is kept and printed whole, under its header, when it ends
 * (parts that run at once); else it streams as it comes.
 */
function runPart(part, held) {
  const started = Date.now();
  const header = `\n── ${part.name}: ${part.command.map((a) => path.relative(root, a) || a).join(' ')}\n`;
  if (!held) console.log(header);
  const piped = held || part.capture;
  return new Promise((resolve) => {
    const child = spawn(part.command[0], part.command.slice(1), {
      cwd: root,
      stdio: ['ignore', piped ? 'pipe' : 'inherit', piped ? 'pipe' : 'inherit'],
    });
    let output = '';
    let startError;
    if (piped) {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (!held) process.stdout.write(chunk);
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
        if (!held) process.stderr.write(chunk);
      });
    }
    child.on('error', (error) => {
      startError = error;
      output += `${part.name}: could not start: ${error.message}\n`;
      if (!held) console.error(`${part.name}: could not start: ${error.message}`);
    });
    child.on('close', (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      if (held)
        console.log(
          `${header}\n${output.trimEnd()}\n\n(${part.name}: ${seconds.toFixed(1)} s, beside the rest of its stage)`,
        );
      resolve({ code: startError ? 'could not start' : (code ?? `killed by ${signal}`), output, seconds });
    });
  });
}

async function main() {
  const only = option('--only');
  const skip = option('--skip') ?? [];
  const unknown = [...(only ?? []), ...skip].filter((name) => !PARTS.some((p) => p.name === name));
  if (unknown.length > 0) {
    console.error(
      `npm test: no part named ${unknown.join(', ')}; the parts: ${PARTS.map((p) => p.name).join(', ')}`,
    );
    return 2;
  }
  const parts = PARTS.filter((p) => (!only || only.includes(p.name)) && !skip.includes(p.name));
  const results = [];
  for (const stage of new Set(parts.map((p) => p.stage))) {
    const together = parts.filter((p) => p.stage === stage);
    const ran = await Promise.all(together.map((part) => runPart(part, together.length > 1)));
    together.forEach((part, i) => {
      const counts = part.counts ? part.counts(ran[i].output) : undefined;
      // A part whose counts say nothing ran, or that could not report, has not shown that it passes.
      const passed = ran[i].code === 0 && (!part.counts || (counts !== undefined && counts.passed > 0));
      results.push({ name: part.name, passed, code: ran[i].code, seconds: ran[i].seconds, counts });
    });
  }

  let passed = 0;
  let failed = 0;
  console.log('\nnpm test summary:');
  for (const r of results) {
    let detail = r.passed ? '' : typeof r.code === 'number' ? `exit ${r.code}` : r.code;
    if (r.counts) {
      passed += r.counts.passed;
      failed += r.counts.failed + (r.passed || r.counts.failed > 0 ? 0 : 1);
      const notRun = r.counts.notRun ? `, ${r.counts.notRun} not run` : '';
      detail = `${r.counts.what}: ${r.counts.passed} passed, ${r.counts.failed} failed${notRun}${detail ? `; ${detail}` : ''}`;
    } else if (r.passed) passed += 1;
    else failed += 1;
    console.log(
      `  ${r.name.padEnd(10)} ${(r.passed ? 'passed' : 'FAILED').padEnd(7)} ${r.seconds.toFixed(1).padStart(6)} s  ${detail}`,
    );
  }
  const failedParts = results.filter((r) => !r.passed).map((r) => r.name);
  console.log(failedParts.length > 0 ? `Failed: ${failedParts.join(', ')}` : 'Every part passed.');
  fs.rmSync(tmp, { recursive: true, force: true });
  // One plain closing line, in the form CI logs are read for.
  console.log(`tests: ${passed} passed, ${failed} failed`);
  return failedParts.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(2);
  },
);
