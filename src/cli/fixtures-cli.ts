#!/usr/bin/env node
import { Command, Option } from 'commander';
import { writeFileSync } from 'node:fs';
import { fixtureJson } from '../fixtures';
import { integer, MAX_SEED } from './options';
import { SEED_DEFAULTS, generateWorld } from '../seed';
import { World } from '../store/world';

/** `npm run fixtures -- --seed 42 --contacts 25 --messages 300 --out fixtures/demo.json` */
const options = new Command()
  .name('messaging-fixtures')
  .description(
    'Writes a generated world as a fixture document (JSON), byte for byte the same for the same options.',
  )
  .addOption(
    new Option('--seed <n>', `seed of the world, 0 to ${MAX_SEED}`)
      .default(SEED_DEFAULTS.seed)
      .argParser(integer(0, MAX_SEED)),
  )
  .addOption(
    new Option('--contacts <n>', 'number of contacts')
      .default(SEED_DEFAULTS.contacts)
      .argParser(integer(0, 1_000_000)),
  )
  .addOption(
    new Option('--messages <n>', 'number of messages')
      .default(SEED_DEFAULTS.messages)
      .argParser(integer(0, 10_000_000)),
  )
  .requiredOption('--out <file>', 'where to write the fixture (- for standard output)')
  .showHelpAfterError()
  .parse()
  .opts<{ seed: number; contacts: number; messages: number; out: string }>();

// Through a World, so that the file lists records in the order GET /__mock/state does: oldest first.
const text = fixtureJson(World.fromData(generateWorld(options)).toData());
if (options.out === '-') process.stdout.write(text);
else {
  writeFileSync(options.out, text);
  console.error(
    `wrote ${options.out}: ${options.contacts} contacts, ${options.messages} messages (seed ${options.seed})`,
  );
}
