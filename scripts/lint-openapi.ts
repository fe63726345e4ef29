/**
 * Lints the mock's OpenAPI document (what `GET /openapi.json` serves, built from src/openapi/) with
 * Redocly's `recommended` rules (redocly.yaml) and Spectral's `spectral:oas` rules (.spectral.yaml).
 * Any error or warning of either fails: the document is what teams generate clients from.
 *
 * The document is written to a temporary folder beside copies of the config files, because
 * Redocly finds its exemptions (.redocly.lint-ignore.yaml) by the document's path from its config.
 * Both linters run offline: their rulesets are built in, and Redocly's telemetry and update check
 * are off. `npm run lint:openapi`; `npm test` runs it as its part `openapi-lint`.
 *
 *   --document <file>     lint this file instead of the document the mock serves
 *   --conventions <file>  lint the document of the twin of this server profile (docs/twin.md)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openApiDocument } from '../src/openapi';
import { twinDocument } from '../src/twin/document';
import { readProfile } from '../src/twin/profile';

const root = path.resolve(__dirname, '..');
const CONFIG_FILES = ['redocly.yaml', '.redocly.lint-ignore.yaml', '.spectral.yaml'];
const DOCUMENT = 'openapi.json';

interface Problem {
  severity: 'error' | 'warning';
  rule: string;
  /** A JSON pointer into the document. */
  at: string;
  message: string;
}

interface Verdict {
  linter: string;
  problems: Problem[];
  /** Problems the linter's own exemptions set aside, when it says. */
  exempted?: number;
  /** Set when the linter gave no result to read: its output. */
  broken?: string;
}

/** A linter's bin, run with this Node: the path its package.json (`manifest`) gives. */
function binOf(manifest: string, bin: string): string {
  const bins = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin;
  return path.join(path.dirname(manifest), bins[bin]!);
}

function run(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? 2, stdout, stderr })));
}

async function redocly(folder: string): Promise<Verdict> {
  const linter = 'Redocly (recommended)';
  const ran = await run(
    [binOf(require.resolve('@redocly/cli/package.json'), 'redocly'), 'lint', DOCUMENT, '--format=json'],
    folder,
    {
      // Its check for a newer version asks the npm registry; the lint needs no network.
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    },
  );
  try {
    const result = JSON.parse(ran.stdout) as {
      totals: { ignored: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
    };
    return {
      linter,
      exempted: result.totals.ignored,
      problems: result.problems.map((p) => ({
        severity: p.severity === 'error' ? 'error' : 'warning',
        rule: p.ruleId,
        at: p.location[0]?.pointer ?? '',
        message: p.message,
      })),
    };
  } catch {
    return { linter, problems: [], broken: `${ran.stdout}${ran.stderr}`.trim() };
  }
}

async function spectral(folder: string): Promise<Verdict> {
  const linter = 'Spectral (spectral:oas)';
  const ran = await run(
    [
      binOf(require.resolve('@stoplight/spectral-cli/package.json'), 'spectral'),
      'lint',
      DOCUMENT,
      '--ruleset',
      '.spectral.yaml',
      '--format',
      'json',
      '--fail-severity',
      'warn',
      // To a file: on stdout a closing sentence follows the JSON.
      '--output',
      'spectral.json',
    ],
    folder,
  );
  try {
    const results = JSON.parse(fs.readFileSync(path.join(folder, 'spectral.json'), 'utf8')) as {
      code: string;
      severity: number;
      message: string;
      path: (string | number)[];
    }[];
    return {
      linter,
      // Severities 0 and 1 are errors and warnings; information and hints fail nothing.
      problems: results
        .filter((r) => r.severity <= 1)
        .map((r) => ({
          severity: r.severity === 0 ? 'error' : 'warning',
          rule: r.code,
          at: `#/${r.path.map((part) => String(part).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`,
          message: r.message,
        })),
    };
  } catch {
    return { linter, problems: [], broken: `${ran.stdout}${ran.stderr}`.trim() };
  }
}

function report(verdict: Verdict): void {
  if (verdict.broken !== undefined) {
    console.log(`${verdict.linter}: gave no result to read:\n${verdict.broken}`);
    return;
  }
  const count = (severity: Problem['severity']) => {
    const n = verdict.problems.filter((p) => p.severity === severity).length;
    return `${n} ${severity}${n === 1 ? '' : 's'}`;
  };
  const exempted = verdict.exempted ? ` (${verdict.exempted} exempted by .redocly.lint-ignore.yaml)` : '';
  console.log(`${verdict.linter}: ${count('error')}, ${count('warning')}${exempted}`);
  for (const p of verdict.problems)
    console.log(`  ${p.severity.padEnd(7)} ${p.rule}  ${p.at}\n          ${p.message}`);
}

/** The server profile of a twin, read as the mock reads it; none without a file. */
/** The mock's document, or the document of the twin of a profile. */
function documentOf(file: string | undefined): Record<string, unknown> {
  return file === undefined
    ? openApiDocument()
    : twinDocument(openApiDocument(), readProfile(JSON.parse(fs.readFileSync(path.resolve(file), 'utf8'))));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { document: { type: 'string' }, conventions: { type: 'string' } },
  });
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'messaging-openapi-lint-'));
  try {
    const document = values.document
      ? fs.readFileSync(path.resolve(values.document), 'utf8')
      : `${JSON.stringify(documentOf(values.conventions), null, 2)}\n`;
    fs.writeFileSync(path.join(folder, DOCUMENT), document);
    for (const file of CONFIG_FILES) fs.copyFileSync(path.join(root, file), path.join(folder, file));
    const verdicts = await Promise.all([redocly(folder), spectral(folder)]);
    verdicts.forEach(report);
    const clean = verdicts.filter((v) => v.broken === undefined && v.problems.length === 0).length;
    // One plain closing line, in the form CI logs are read for (scripts/test.js reads it).
    console.log(`openapi lint: ${clean} passed, ${verdicts.length - clean} failed`);
    return clean === verdicts.length ? 0 : 1;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error.message);
    process.exit(2);
  },
);
