#!/usr/bin/env node
import { Command, CommanderError, Option } from 'commander';
import { writeFileSync } from 'node:fs';
import { fixtureJson } from '../fixtures';
import { integer, MAX_SEED } from './options';
import { recordFixture } from './record';
import { SEED_DEFAULTS, generateWorld } from '../seed';
import { World } from '../store/world';

const RECORDED = 'fixtures/recorded.json';

/**
 * `npm run fixtures -- --seed 42 --contacts 25 --messages 300 --out fixtures/demo.json`, or
 * `messaging-fixtures --from https://api.example.com --token T --anonymize`.
 */
const program = new Command()
  .name('messaging-fixtures')
  .description(
    'Writes a fixture document (JSON): a generated world, byte for byte the same for the same options, or with --from the account that a real server holds. Exit 0: written; 1: the recording failed; 2: the options are at fault.',
  )
  .addOption(
    new Option('--seed <n>', `seed of the world (with --from: of new ids and fakes), 0 to ${MAX_SEED}`)
      .default(SEED_DEFAULTS.seed)
      .argParser(integer(0, MAX_SEED)),
  )
  .addOption(
    new Option('--contacts <n>', 'number of contacts')
      .default(SEED_DEFAULTS.contacts)
      .argParser(integer(0, 1_000_000))
      .conflicts('from'),
  )
  .addOption(
    new Option('--messages <n>', 'number of messages')
      .default(SEED_DEFAULTS.messages)
      .argParser(integer(0, 10_000_000))
      .conflicts('from'),
  )
  .option(
    '--out <file>',
    `where to write the fixture (- for standard output); with --from, ${RECORDED} when not given`,
  )
  .option(
    '--from <url>',
    "record the account of this server (its root, as for messaging-contract's --base-url)",
  )
  .option('--token <token>', 'with --from: the bearer token of the account to record')
  .option(
    '--anonymize',
    'with --from: faker names, usernames, phone numbers, avatars, texts and file names, the same fake for the same value',
  )
  .addOption(
    new Option(
      '--progress',
      'with --from: a progress line on standard error (default: when it is a terminal)',
    ),
  )
  .addOption(new Option('--no-progress', 'with --from: no progress line').hideHelp())
  .showHelpAfterError()
  .exitOverride();

interface CliOptions {
  seed: number;
  contacts: number;
  messages: number;
  out?: string;
  from?: string;
  token?: string;
  anonymize?: boolean;
  progress?: boolean;
}

/** A mistake that commander cannot see: the message, and where the options are listed. */
function usage(message: string): number {
  console.error(`error: ${message}\n(messaging-fixtures --help lists every option.)`);
  return 2;
}

async function main(argv: string[]): Promise<number> {
  let options: CliOptions;
  try {
    options = program.parse(argv).opts<CliOptions>();
  } catch (error) {
    // Commander has said what was wrong; a usage mistake is never a failed recording.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  if (options.from !== undefined) {
    if (options.token === undefined || options.token === '')
      return usage('--token is needed with --from: the bearer token of the account to record.');
    return recordFixture({
      from: options.from,
      token: options.token,
      out: options.out ?? RECORDED,
      anonymize: options.anonymize === true,
      seed: options.seed,
      progress: options.progress ?? process.stderr.isTTY === true,
    });
  }
  for (const only of ['token', 'anonymize', 'progress'] as const)
    if (program.getOptionValueSource(only) === 'cli') return usage(`--${only} goes with --from <url>.`);
  if (options.out === undefined) return usage("required option '--out <file>' not specified");

  // Through a World, so that the file lists records in the order GET /__mock/state does: oldest first.
  const text = fixtureJson(World.fromData(generateWorld(options)).toData());
  if (options.out === '-') process.stdout.write(text);
  else {
    writeFileSync(options.out, text);
    console.error(
      `wrote ${options.out}: ${options.contacts} contacts, ${options.messages} messages (seed ${options.seed})`,
    );
  }
  return 0;
}

main(process.argv).then(
  (code) => (process.exitCode = code),
  (error: Error) => {
    console.error(`error: ${error.message}`);
    process.exitCode = 1;
  },
);
