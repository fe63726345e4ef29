#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from 'commander';
import { APP_DEFAULTS } from './app';
import { listen } from './server';

const integer = (min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}.`);
  }
  return n;
};

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
    new Option('--seed <n>', 'seed of the generated world')
      .default(APP_DEFAULTS.seed)
      .argParser(integer(0, 2 ** 31)),
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
  .addOption(
    new Option(
      '--token <token>',
      'accept only this token (repeatable); by default any token is accepted',
    ).argParser((value: string, previous: string[] = []) => [...previous, value]),
  )
  .addOption(
    new Option('--max-worlds <n>', 'tokens that keep a world at once')
      .default(APP_DEFAULTS.maxWorlds)
      .argParser(integer(1, 1_000_000)),
  )
  .option('-q, --quiet', 'no log line per request', false)
  .showHelpAfterError();

interface CliOptions {
  port: number;
  host: string;
  seed: number;
  contacts: number;
  messages: number;
  token?: string[];
  maxWorlds: number;
  quiet: boolean;
}

async function main(): Promise<void> {
  const options = program.parse().opts<CliOptions>();
  if (options.messages > 0 && options.contacts === 0) {
    program.error('error: --messages needs at least one contact (--contacts).');
  }
  const log = (line: string) => console.log(line);
  const running = await listen({
    port: options.port,
    host: options.host,
    seed: options.seed,
    contacts: options.contacts,
    messages: options.messages,
    tokens: options.token,
    maxWorlds: options.maxWorlds,
    log,
    logRequests: !options.quiet,
  });
  const token = options.token?.[0] ?? 'demo-token';
  console.log(`Messaging API mock listening on ${running.url}`);
  console.log(`Base URL:     ${running.url}/v1`);
  console.log(
    `Sample token: ${token}${options.token ? '' : ' (any non-empty token works; each token has its own world)'}`,
  );
  console.log(`Try:          curl -H "Authorization: Bearer ${token}" "${running.url}/v1/contacts?limit=3"`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(0);
    stopping = true;
    console.log(`${signal}: finishing requests in flight, then stopping (send it again to stop at once)`);
    setTimeout(() => process.exit(0), 5000).unref();
    void running.close().then(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: NodeJS.ErrnoException) => {
  console.error(
    error.code === 'EADDRINUSE'
      ? `error: the port is in use (${error.message}). Pick another with --port.`
      : `error: ${error.message}`,
  );
  process.exit(1);
});
