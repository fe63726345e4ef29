#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from 'commander';
import { APP_DEFAULTS, type AppOptions } from '../express/app';
import { integer, MAX_SEED, unsetEmptyEnv } from './options';
import { loadFixtureFile } from '../fixture-file';
import { parseLatency, type Latency } from '../core/switches';
import { listen } from '../express/server';
import { readFileSync } from 'node:fs';
import { readProfile } from '../twin/profile';
import { FSYNC_MODES, type FsyncMode } from '../durable/data-dir';
import { budgetLine, budgetProblem, heapFacts } from './budget';

const program = new Command()
  .name('messaging-mock')
  .description('A stateful mock of the Messaging API (contacts and messages), seeded with realistic data.')
  .addOption(
    new Option('-p, --port <port>', 'port to listen on')
      .env('PORT')
      .default(4010)
      .argParser(integer(0, 65535)),
  )
  .addOption(new Option('--host <host>', 'interface to listen on').env('HOST').default('127.0.0.1'))
  .addOption(
    new Option('--seed <n>', `seed of the generated world, 0 to ${MAX_SEED}`)
      .default(APP_DEFAULTS.seed)
      .argParser(integer(0, MAX_SEED)),
  )
  .addOption(
    new Option('--contacts <n>', 'contacts in the generated world')
      .default(APP_DEFAULTS.contacts)
      .argParser(integer(0, 1_000_000)),
  )
  .addOption(
    new Option('--messages <n>', 'messages in the generated world, spread over the conversations')
      .default(APP_DEFAULTS.messages)
      .argParser(integer(0, 10_000_000)),
  )
  .addOption(new Option('--fixtures <file>', 'serve this fixture file (JSON) instead of a generated world'))
  .addOption(
    new Option('--token <token>', 'accept only this token (repeatable)')
      .default([] as string[], 'any non-empty token')
      .argParser((value: string, previous: string[] = []) => [...previous, value]),
  )
  .addOption(
    new Option(
      '--admin-token <token>',
      "the token that may reset every token's world (POST /__mock/reset?all=true)",
    ).default(undefined, 'none'),
  )
  .addOption(
    new Option('--latency <ms>', 'milliseconds added to every API answer: MS or MIN-MAX')
      .default({ min: 0, max: 0 } satisfies Latency, 'none')
      .argParser((value: string): Latency => {
        try {
          return parseLatency(value);
        } catch (error) {
          throw new InvalidArgumentError((error as Error).message);
        }
      }),
  )
  .addOption(new Option('--simulate', 'contacts answer your messages a few seconds later').default(false))
  .addOption(
    new Option(
      '--max-worlds <n>',
      'tokens that keep a world at once (the least recently used dropped beyond)',
    )
      .default(APP_DEFAULTS.maxWorlds)
      .argParser(integer(1, 1_000_000)),
  )
  .addOption(
    new Option(
      '--max-world-mb <n>',
      "how much one token's world may hold by its writes, counted at no less than its real size (then 409 world_full)",
    )
      .default(APP_DEFAULTS.maxWorldBytes / 2 ** 20)
      .argParser(integer(1, 1_000_000)),
  )
  .addOption(
    new Option(
      '--max-total-mb <n>',
      "how much all tokens may hold together beyond the seeded world: their worlds' writes and their request journals, counted at no less than their real size; beyond it the least recently used tokens are shed, journals first, then worlds. It must fit in V8's heap limit with the world and a quarter of the limit to spare (checked at start)",
    )
      .default(APP_DEFAULTS.maxTotalBytes / 2 ** 20)
      .argParser(integer(1, 10_000_000)),
  )
  .addOption(
    new Option(
      '--conventions <file>',
      'answer as a real server does where the document says "not shown": a server profile the contract kit observed (messaging-contract --profile-out)',
    ).env('MOCK_CONVENTIONS'),
  )
  .addOption(
    new Option(
      '--data-dir <dir>',
      "keep every token's world in this directory: each write is kept before its answer goes out (or within 50 ms, --fsync batch), a restart brings every world back, and a world the memory bounds shed stays on disk. The dir remembers the seed, fixtures and conventions it was made with",
    ).env('MOCK_DATA_DIR'),
  )
  .addOption(
    new Option(
      '--fsync <mode>',
      'with --data-dir: sync each write before its answer (always), or every 50 ms (batch)',
    )
      .choices(FSYNC_MODES)
      .default('batch')
      .env('MOCK_FSYNC'),
  )
  .addOption(new Option('-q, --quiet', 'no log line per request').default(false))
  .addOption(
    new Option(
      '--log-dashboard',
      "log the dashboard's own requests too (files, calls with X-Mock-Dashboard: 1)",
    ).default(false),
  )
  .configureHelp({ helpWidth: 120 })
  .showHelpAfterError();

interface CliOptions {
  port: number;
  host: string;
  seed: number;
  contacts: number;
  messages: number;
  fixtures?: string;
  conventions?: string;
  dataDir?: string;
  fsync: FsyncMode;
  token: string[];
  adminToken?: string;
  latency: Latency;
  simulate: boolean;
  maxWorlds: number;
  maxWorldMb: number;
  maxTotalMb: number;
  quiet: boolean;
  logDashboard: boolean;
}

/** A mistake in the options that commander cannot see: the message alone, without the whole help. */
function fail(message: string): never {
  console.error(`${message}\n(messaging-mock --help lists every option.)`);
  process.exit(1);
}

async function main(): Promise<void> {
  unsetEmptyEnv(program);
  const options = program.parse().opts<CliOptions>();
  if (options.messages > 0 && options.contacts === 0 && !options.fixtures) {
    // `--contacts 0` alone asks for an empty world: the default messages go with the contacts.
    if (program.getOptionValueSource('messages') === 'default') options.messages = 0;
    else fail(`error: --messages ${options.messages} needs at least one contact, and --contacts is 0.`);
  }
  if (!options.dataDir && program.getOptionValueSource('fsync') !== 'default') {
    const from = program.getOptionValueSource('fsync') === 'env' ? 'MOCK_FSYNC' : '--fsync';
    fail(
      `error: ${from} ${options.fsync} needs --data-dir (or MOCK_DATA_DIR): without one, nothing is written to disk.`,
    );
  }
  let data: AppOptions['data'];
  if (options.fixtures) {
    try {
      data = loadFixtureFile(options.fixtures);
    } catch (error) {
      fail(`error: --fixtures ${(error as Error).message}`);
    }
  }
  let conventions: { profile: Record<string, unknown>; taken: string[]; notMirrored: string[] } | undefined;
  if (options.conventions) {
    try {
      const profile = JSON.parse(readFileSync(options.conventions, 'utf8')) as Record<string, unknown>;
      conventions = { profile, ...readProfile(profile) };
    } catch (error) {
      fail(`error: --conventions ${options.conventions}: ${(error as Error).message}`);
    }
  }
  const log = (line: string) => console.log(line);
  const tty = process.stderr.isTTY === true;
  const started = Date.now();
  const dataDir = options.dataDir ? { dataDir: options.dataDir, fsync: options.fsync } : {};
  let running: Awaited<ReturnType<typeof listen>>;
  try {
    running = await listen({
      ...dataDir,
      port: options.port,
      host: options.host,
      seed: options.seed,
      contacts: options.contacts,
      messages: options.messages,
      data,
      ...(conventions ? { conventions: conventions.profile } : {}),
      tokens: options.token,
      adminToken: options.adminToken,
      latency: options.latency.max > 0 ? options.latency : undefined,
      simulate: options.simulate,
      maxWorlds: options.maxWorlds,
      maxWorldBytes: options.maxWorldMb * 2 ** 20,
      maxTotalBytes: options.maxTotalMb * 2 ** 20,
      log,
      logRequests: !options.quiet,
      logDashboard: options.logDashboard,
      color: process.stdout.isTTY === true && !process.env.NO_COLOR,
      onProgress: (done, total) => {
        if (total < 100_000) return;
        const line = `generating the world: ${done.toLocaleString('en')} / ${total.toLocaleString('en')} messages`;
        if (tty) process.stderr.write(`\r${line}${done === total ? '\n' : ''}`);
        else console.error(line);
      },
    });
  } catch (error) {
    // A data dir made with other options says which: that is the whole message.
    if (options.dataDir && !(error as NodeJS.ErrnoException).code) fail(`error: ${(error as Error).message}`);
    throw error;
  }
  const heap = heapFacts();
  const problem = budgetProblem(
    { maxTotalBytes: options.maxTotalMb * 2 ** 20, maxWorldBytes: options.maxWorldMb * 2 ** 20 },
    heap,
  );
  if (problem) {
    await running.close();
    fail(`error: ${problem}`);
  }
  // Before the banner: whoever reads it may stop the mock at once, and must find it listening.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(0);
    stopping = true;
    console.log(`${signal}: finishing requests in flight, then stopping (send it again to stop at once)`);
    setTimeout(() => process.exit(0), 4500).unref();
    void running.close().then(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const restricted = options.token.length > 0;
  const token = restricted ? options.token[0]! : 'demo-token';
  const world = data
    ? `fixture ${options.fixtures} (${data.contacts.length} contacts, ${data.messages.length} messages)`
    : `seed ${options.seed}, ${options.contacts} contacts, ${options.messages} messages`;
  // On every interface (0.0.0.0, ::), say so: the URL to use is another one, this machine's.
  const everywhere = running.bound !== running.url;
  console.log(
    `Messaging API mock listening on ${running.bound} (${everywhere ? 'every interface; ' : ''}${world}, ready in ${Date.now() - started} ms)`,
  );
  if (conventions) {
    console.log(`Conventions:  ${options.conventions}: the server's choices where the document is silent`);
    for (const line of conventions.taken) console.log(`  taken:      ${line}`);
    for (const line of conventions.notMirrored) console.log(`  not mirrored: ${line}`);
  }
  const prefix = conventions ? readProfile(conventions.profile).conventions.pathPrefix : '';
  console.log(
    `Base URL:     ${running.url}${prefix}/v1${everywhere ? " on this machine; from another, this machine's address instead" : ''}`,
  );
  console.log(
    `Sample token: ${token}${restricted ? '' : ' (any non-empty token works; each token has its own world)'}`,
  );
  console.log(`Dashboard:    ${running.url}/__mock/ (requests, world and switches of a token, live)`);
  console.log(`Memory:       ${budgetLine({ maxTotalBytes: options.maxTotalMb * 2 ** 20 }, heap)}`);
  console.log(
    options.dataDir
      ? `Data dir:     ${options.dataDir} (fsync ${options.fsync}): every token's world is kept there, and comes back after a restart`
      : 'Data dir:     none: every world lives in memory, and a restart or the memory bounds lose what tokens wrote (--data-dir keeps it)',
  );
  console.log(
    `Try:          curl -H "Authorization: Bearer ${token}" "${running.url}${prefix}/v1/contacts?limit=3"`,
  );
}

main().catch((error: NodeJS.ErrnoException) => {
  console.error(
    error.code === 'EADDRINUSE'
      ? `error: the port is in use (${error.message}). Pick another with --port.`
      : `error: ${error.message}`,
  );
  process.exit(1);
});
