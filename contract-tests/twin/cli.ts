import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { unsetEmptyEnv } from '../rules/rule-set-option';
import { compareSessions, comparisonLines, differs, runSession, unorderedLists } from './compare';
import { driftLines, driftOf } from './drift';

/**
 * `messaging-contract twin --from <url> --token <t>`: a twin of a server in one command. It records
 * the account (the mock's `messaging-fixtures --from`, which only reads), then observes the
 * server's conventions (the kit's own run with `--profile-out`, which deletes what it creates),
 * and writes both to a folder; with `--start` it then serves them (`messaging-mock --fixtures …
 * --conventions …`). The mock's commands are run as processes, never imported: the kit stays a
 * reading of the document of its own.
 */
interface TwinOptions {
  from: string;
  token: string;
  anonymize?: boolean;
  outDir: string;
  start?: boolean;
  port: number;
  sample?: string[];
  settleMs?: number;
  maxRequests?: number;
  json?: string;
  report?: string;
}

function program(): Command {
  return new Command()
    .name('messaging-contract twin')
    .description(
      "Records a server's account and observes its conventions, for the mock to serve as its twin. Exit 0: written (and, with --start, the twin stopped); 1: it could not record or observe; 2: the options are at fault. `messaging-contract twin check --help`: the drift of a server from its profile; `messaging-contract twin compare --help`: a client's session on a server and on its twin, answer beside answer.",
    )
    .requiredOption('--from <url>', "the server's root, as for --base-url")
    .addOption(
      new Option('--token <token>', 'the bearer token of the account')
        .env('CONTRACT_TOKEN')
        .makeOptionMandatory(),
    )
    .option(
      '--anonymize',
      'record fakes of names, phone numbers, avatars and texts (the same fake for the same value)',
    )
    .option('--out-dir <dir>', 'where to write fixture.json and profile.json', 'twin')
    .option('--start', 'then start the mock on them (until Ctrl-C)')
    .addOption(
      new Option('--port <port>', 'with --start: the port of the twin').default(4010).argParser((value) => {
        const n = Number(value);
        if (!/^[0-9]+$/.test(value) || n < 0 || n > 65535)
          throw new Error(`--port must be 0 to 65535, got ${value}`);
        return n;
      }),
    )
    .option('--sample <field=value...>', 'a value the server accepts, passed to the kit (repeatable)')
    .option('--settle-ms <ms>', 'passed to the kit: how long the lists may take to show a write', (v) =>
      Number(v),
    )
    .option('--max-requests <n>', "passed to the kit: the run's request budget", (v) => Number(v))
    .option('--json <file>', 'passed to the kit: its verdicts as JSON')
    .option('--report <file>', 'passed to the kit: its Markdown report')
    .showHelpAfterError()
    .exitOverride();
}

/** The mock's package: beside the kit in a clone (built by `npm ci`), else installed beside it. */
function mockCommand(script: 'cli/fixtures-cli.js' | 'cli/bin.js'): string[] {
  const clone = path.resolve(__dirname, '..', '..', 'dist', script);
  if (fs.existsSync(clone) && fs.existsSync(path.resolve(__dirname, '..', '..', 'src'))) return [clone];
  try {
    const root = path.dirname(require.resolve('messaging-api-mock/package.json'));
    return [path.join(root, 'dist', script)];
  } catch {
    throw new Error(
      'the twin needs the mock: npm install messaging-api-mock (the kit names it as an optional peer)',
    );
  }
}

function run(args: string[], onSpawn?: (stop: () => void) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: 'inherit' });
    onSpawn?.(() => child.kill('SIGTERM'));
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 0 : 1)));
  });
}

interface CheckOptions {
  profile: string;
  baseUrl?: string;
  token: string;
  sample?: string[];
  settleMs?: number;
  maxRequests?: number;
  json?: string;
}

function checkProgram(): Command {
  return new Command()
    .name('messaging-contract twin check')
    .description(
      'Observes the server again and prints each choice of its profile that changed since it was written, with the exchange that shows it now: the drift of a server away from the twin built on its profile. Exit 0: nothing changed; 1: something did; 2: it could not judge (a choice not observed again, or the options are at fault).',
    )
    .requiredOption(
      '--profile <file>',
      'the server profile the twin was built on (--profile-out, twin --from)',
    )
    .option('--base-url <url>', "the server's root; default: the profile's server.baseUrl")
    .addOption(
      new Option(
        '--token <token>',
        'the bearer token of an account to observe with (the kit deletes what it creates)',
      )
        .env('CONTRACT_TOKEN')
        .makeOptionMandatory(),
    )
    .option('--sample <field=value...>', 'a value the server accepts, passed to the kit (repeatable)')
    .option('--settle-ms <ms>', 'passed to the kit: how long the lists may take to show a write', (v) =>
      Number(v),
    )
    .option('--max-requests <n>', "passed to the kit: the run's request budget", (v) => Number(v))
    .option(
      '--json <file>',
      "passed to the kit: its verdicts as JSON (the run's rules, apart from the drift)",
    )
    .showHelpAfterError()
    .exitOverride();
}

/** What the kit's observing run is given: the server, the profile to write, and the options passed on. */
function observing(
  argv: string[],
  baseUrl: string,
  profileOut: string,
  options: Pick<TwinOptions, 'token' | 'sample' | 'settleMs' | 'maxRequests' | 'json' | 'report'>,
): string[] {
  return [
    argv[0]!,
    argv[1]!,
    '--base-url',
    baseUrl,
    '--token',
    options.token,
    '--profile-out',
    profileOut,
    ...(options.sample ?? []).flatMap((s) => ['--sample', s]),
    ...(options.settleMs !== undefined ? ['--settle-ms', String(options.settleMs)] : []),
    ...(options.maxRequests !== undefined ? ['--max-requests', String(options.maxRequests)] : []),
    ...(options.json !== undefined ? ['--json', options.json] : []),
    ...(options.report !== undefined ? ['--report', options.report] : []),
  ];
}

/** `twin check`: the profile against the server observed again (twin/drift.ts). */
async function checkMain(argv: string[], kit: (argv: string[]) => Promise<number>): Promise<number> {
  let options: CheckOptions;
  let before: Record<string, unknown>;
  let baseUrl: string;
  try {
    const command = checkProgram();
    unsetEmptyEnv(command);
    options = command.parse(argv).opts<CheckOptions>();
    let text: string;
    try {
      text = fs.readFileSync(options.profile, 'utf8');
    } catch (error) {
      throw new Error(`--profile: cannot read ${options.profile}: ${(error as Error).message}`);
    }
    try {
      before = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new Error(`--profile: ${options.profile} is not JSON`);
    }
    const server = before.server as { baseUrl?: unknown } | undefined;
    const url = options.baseUrl ?? (typeof server?.baseUrl === 'string' ? server.baseUrl : undefined);
    if (url === undefined)
      throw new Error(`--base-url: not given, and ${options.profile} names no server.baseUrl`);
    new URL(url);
    baseUrl = url;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    console.error(`messaging-contract twin check: ${(error as Error).message}`);
    return 2;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twin-check-'));
  const now = path.join(dir, 'profile.json');
  try {
    console.log(`Observing ${baseUrl} again (the kit deletes what it creates)`);
    await kit(observing(argv, baseUrl, now, options));
    if (!fs.existsSync(now)) {
      console.error('messaging-contract twin check: the kit could not observe the server; nothing compared');
      return 2;
    }
    const drift = driftOf(before, JSON.parse(fs.readFileSync(now, 'utf8')) as Record<string, unknown>);
    console.log(`\nDrift of ${baseUrl} since ${options.profile}:`);
    for (const line of driftLines(drift)) console.log(line);
    return drift.changed.length > 0 ? 1 : drift.unobserved.length > 0 ? 2 : 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface CompareOptions {
  server: string;
  twin: string;
  token: string;
  twinToken?: string;
  json?: string;
}

function compareProgram(): Command {
  return new Command()
    .name('messaging-contract twin compare')
    .description(
      "Runs a client's session (every operation, successes and refusals) on a server and on its twin, and prints each answer whose form differs: status, content type, every key at every depth and the kind of its value, the form of ids, the digits of timestamps, the order of a list. Exit 0: none differs; 1: some do; 2: it could not compare (a side did not answer, or the options are at fault).",
    )
    .requiredOption('--server <url>', "the server's root, as for --base-url")
    .requiredOption(
      '--twin <url>',
      "the twin's root (the mock with --conventions, under the server's path prefix)",
    )
    .addOption(
      new Option(
        '--token <token>',
        'the bearer token of an account on the server (the session deletes what it creates)',
      )
        .env('CONTRACT_TOKEN')
        .makeOptionMandatory(),
    )
    .option('--twin-token <token>', "the twin's token; default: --token")
    .option('--json <file>', 'also write the comparison as JSON: each step, its request and its differences')
    .showHelpAfterError()
    .exitOverride();
}

/** `twin compare`: the same session on both, answer beside answer (twin/compare.ts). */
async function compareMain(argv: string[]): Promise<number> {
  let options: CompareOptions;
  try {
    const command = compareProgram();
    unsetEmptyEnv(command);
    options = command.parse(argv).opts<CompareOptions>();
    for (const [name, url] of [
      ['--server', options.server],
      ['--twin', options.twin],
    ] as const)
      if (!/^https?:\/\//.test(url)) throw new Error(`${name}: ${url} is not an http(s) URL`);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    console.error(`messaging-contract twin compare: ${(error as Error).message}`);
    return 2;
  }
  const stamp = Date.now().toString(36);
  const server = await runSession({ baseUrl: options.server, token: options.token }, stamp);
  const twin = await runSession({ baseUrl: options.twin, token: options.twinToken ?? options.token }, stamp);
  const silent = (steps: typeof server) => steps.every((s) => s.skipped !== undefined);
  if (silent(server) || silent(twin)) {
    const side = silent(server) ? server : twin;
    console.error(
      `messaging-contract twin compare: the ${side === server ? 'server' : 'twin'} did not answer: ${side[0]?.skipped ?? ''}`,
    );
    return 2;
  }
  const comparison = compareSessions(
    server,
    twin,
    await unorderedLists({ baseUrl: options.twin, token: options.twinToken ?? options.token }),
  );
  if (options.json) {
    fs.mkdirSync(path.dirname(path.resolve(options.json)), { recursive: true });
    fs.writeFileSync(
      options.json,
      `${JSON.stringify({ server: options.server, twin: options.twin, ...comparison }, null, 2)}\n`,
    );
  }
  console.log(`The session on ${options.server} (server) and ${options.twin} (twin):`);
  for (const line of comparisonLines(comparison)) console.log(line);
  return differs(comparison) ? 1 : 0;
}

/** Runs the command; `kit` is the kit's own main (for the observing run, in this process). */
export async function twinMain(argv: string[], kit: (argv: string[]) => Promise<number>): Promise<number> {
  if (argv[2] === 'check') return checkMain([...argv.slice(0, 2), ...argv.slice(3)], kit);
  if (argv[2] === 'compare') return compareMain([...argv.slice(0, 2), ...argv.slice(3)]);
  let options: TwinOptions;
  try {
    const command = program();
    unsetEmptyEnv(command);
    options = command.parse(argv).opts<TwinOptions>();
    new URL(options.from);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    console.error(`messaging-contract twin: ${(error as Error).message}`);
    return 2;
  }
  let fixturesCli: string[];
  let mockBin: string[];
  try {
    fixturesCli = mockCommand('cli/fixtures-cli.js');
    mockBin = mockCommand('cli/bin.js');
  } catch (error) {
    console.error(`messaging-contract twin: ${(error as Error).message}`);
    return 2;
  }
  fs.mkdirSync(options.outDir, { recursive: true });
  const fixture = path.join(options.outDir, 'fixture.json');
  const profile = path.join(options.outDir, 'profile.json');

  console.log(`1/2 Recording the account of ${options.from} (reads only) into ${fixture}`);
  const recorded = await run([
    ...fixturesCli,
    '--from',
    options.from,
    '--token',
    options.token,
    '--out',
    fixture,
    ...(options.anonymize ? ['--anonymize'] : []),
  ]);
  if (recorded !== 0) {
    console.error(`messaging-contract twin: the recording failed (exit ${recorded}); nothing observed`);
    return 1;
  }

  console.log(`2/2 Observing its conventions (the kit deletes what it creates) into ${profile}`);
  // A profile left by an earlier twin must not pass for this observation.
  fs.rmSync(profile, { force: true });
  const observed = await kit(observing(argv, options.from, profile, options));
  // Exit 2 with a profile written: some rules could not be judged (their choices are unknown in
  // the profile, with the reason); the rest was observed. Without a profile, nothing was.
  if (!fs.existsSync(profile)) {
    console.error('messaging-contract twin: the kit could not observe the server; no profile written');
    return 1;
  }
  if (observed === 2)
    console.log(
      'Some rules could not be judged on the server (above): the choices they would have shown are unknown in the profile, and the twin keeps its own there.',
    );
  if (observed === 1)
    console.log(
      'The server breaks documented rules (above): the twin keeps the documented rules, so it will differ there.',
    );
  const serve = [...mockBin, '--fixtures', fixture, '--conventions', profile];
  console.log(`Twin written. Serve it: npx messaging-mock --fixtures ${fixture} --conventions ${profile}`);
  if (!options.start) return 0;
  return run([...serve, '--port', String(options.port)], (stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
