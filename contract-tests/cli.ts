import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_SEQUENCES, DEFAULT_TIMEOUT_MS } from './http/config';
import { citation, REFERENCE } from './rules/reference';
import { REQUESTS_PER_SEQUENCE, SHRINK_REQUESTS } from './probes/sequences';
import { proxyMain } from './proxy/cli';
import { twinMain } from './twin/cli';
import { formatConsole } from './report/console';
import { buildJunit } from './report/junit';
import { buildMarkdown } from './report/markdown';
import {
  attachmentKeysOf,
  readUserSamples,
  SAMPLE_KEYS,
  type SampleKey,
  type UserSamples,
} from './model/samples';
import { addRuleSetOptions, readRuleSet, RuleSetUsageError, unsetEmptyEnv } from './rules/rule-set-option';
import { PRINCIPLES, type Principle } from './rules/rule';
import { findRule, RULES, type RuleSet } from './rules/rules';
import { handleInterrupts, runKit, type KitResult } from './run';

/** The environment's old name for CONTRACT_RULE_SET (the proxy never read one). */
const OLD_ENV = 'CONTRACT_PROFILE';

const whole = (value: string) => {
  if (!/^[0-9]+$/.test(value)) throw new InvalidArgumentError('must be a whole number (0 or more).');
  return Number(value);
};

const positive = (value: string) => {
  if (!/^[1-9][0-9]*$/.test(value)) throw new InvalidArgumentError('must be a whole number above 0.');
  return Number(value);
};

function program(): Command {
  return (
    addRuleSetOptions(new Command(), OLD_ENV)
      .name('messaging-contract')
      .description(
        `Checks a Messaging API server, rule by rule, against the rules of ${REFERENCE.title} (${REFERENCE.path}). Exit 0: it conforms (every rule of the selected set judged, none failed); 1: a rule failed; 2: the run could not judge (a rule not run counts, unless accepted with --allow-not-run). \`messaging-contract proxy --help\`: the proxy that checks the traffic of a real client instead; \`messaging-contract twin --help\`: a twin of a server for the mock (its account and its conventions).`,
      )
      .addOption(
        new Option('--base-url <url>', "the server's root (the paths start with /v1)").env(
          'CONTRACT_BASE_URL',
        ),
      )
      .addOption(new Option('--token <token>', 'the bearer token').env('CONTRACT_TOKEN'))
      .addOption(
        new Option('--token-2 <token>', 'a second user, for token isolation (mock rule set)').env(
          'CONTRACT_TOKEN_2',
        ),
      )
      .addOption(
        new Option('--timeout-ms <ms>', 'how long to wait for one answer')
          .default(DEFAULT_TIMEOUT_MS)
          .argParser(positive)
          .env('CONTRACT_TIMEOUT_MS'),
      )
      .option(
        '--rule <ids...>',
        'run only these rules (and no random sequences, unless --sequences is given); a rule of these that could not be judged is reported as not run, without exit 2',
      )
      .addOption(
        new Option(
          '--allow-not-run <ids...>',
          'accept these rules as not run (e.g. a feature this server leaves out on purpose): without it, any rule of the selected set that the run could not judge makes it exit 2, with the reason',
        )
          .argParser((value: string, previous: string[] | undefined) => [
            ...(previous ?? []),
            ...value.split(/[\s,]+/).filter(Boolean),
          ])
          .env('CONTRACT_ALLOW_NOT_RUN'),
      )
      .addOption(
        new Option(
          '--sequences <n>',
          `random operation sequences to run, each judged by the judge of every exchange after every step (0: none); the request budget is ${REQUESTS_PER_SEQUENCE} a sequence plus ${SHRINK_REQUESTS} for shrinking a failure`,
        )
          .default(DEFAULT_SEQUENCES)
          .argParser(whole)
          .env('CONTRACT_SEQUENCES'),
      )
      .addOption(
        new Option('--seed <n>', 'seed of the random sequences (default: a new one each run, printed)')
          .argParser(whole)
          .env('CONTRACT_SEED'),
      )
      .option('--junit <file>', 'write JUnit XML, one test case per rule')
      .option('--report <file>', 'write a Markdown conformance report, with the server profile')
      .option('--json <file>', 'write the verdicts as JSON')
      .addOption(
        new Option(
          '--profile-out <file>',
          'write the server\'s choices where the document says "not shown" as a server profile (JSON, common/server-profile.schema.json): each with the exchange that showed it, or unknown with the reason; adds a few requests at the end of the run (a list without token, limits 0, -1, abc, 100, 101, 1000, an unknown id, a create without its required parameters as a form and as JSON; and, where the server refused a reaction name, the kit\'s other names)',
        ).env('CONTRACT_PROFILE_OUT'),
      )
      .addOption(
        new Option(
          '--workers <n>',
          'parallel test files (default: 1 for a server on this machine that answers within 20 ms, or while every processor here is busy; 4 otherwise)',
        ).argParser(positive),
      )
      .option(
        '--sample <key=value...>',
        `a value the server accepts, tried first where the document leaves the format open (keys: ${SAMPLE_KEYS.join(', ')}; message.attachment is a JSON object); repeatable`,
        (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
      )
      .addOption(
        new Option(
          '--samples <file>',
          'a JSON file of such values: {"contact.phone_number": "+4915112345678", …}',
        ).env('CONTRACT_SAMPLES_FILE'),
      )
      .addOption(
        new Option(
          '--settle-ms <ms>',
          'lists are eventually consistent: a list that disagrees is read again, with backoff, for up to this long before it fails (retrieve by id is never waited for)',
        )
          .default(0)
          .argParser(whole)
          .env('CONTRACT_SETTLE_MS'),
      )
      .addOption(
        new Option(
          '--max-requests <n>',
          "the request budget of the run, stated up front; past it the run stops judging and exits 2 (default: 5000 for the documented rule set, 7000 for the mock rule set, plus the random sequences' budget)",
        )
          .argParser(positive)
          .env('CONTRACT_MAX_REQUESTS'),
      )
      .option(
        '--list',
        'print the rule catalogue (each rule, where it is stated, how it is judged) and exit; with --rule, only those rules',
      )
      .showHelpAfterError()
      // A usage mistake means the run could not judge (2), never that a rule failed (1).
      .exitOverride()
  );
}

interface CliOptions {
  baseUrl?: string;
  token?: string;
  token2?: string;
  ruleSet: RuleSet;
  timeoutMs: number;
  rule?: string[];
  allowNotRun?: string[];
  junit?: string;
  report?: string;
  json?: string;
  profileOut?: string;
  workers?: number;
  list?: boolean;
  sample?: string[];
  settleMs: number;
  maxRequests?: number;
  samples?: string;
  sequences: number;
  seed?: number;
}

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, text);
}

/** The run's last line when it wrote a server profile. */
const profileLine = ({ file, observed, choices }: NonNullable<KitResult['profileOut']>): string =>
  `Server profile written to ${file} (${observed} of ${choices} choices observed).`;

/** The catalogue as `--list` prints it: each rule's home, or only those of `ids` (`--list --rule <ids...>`). */
export function formatCatalogue(ids?: readonly string[]): string {
  return RULES.filter((r) => !ids?.length || ids.includes(r.id))
    .map((r) =>
      [
        `${r.id.padEnd(56)} ${r.ruleSet.padEnd(10)} §${r.section}`,
        `    ${r.sentence}`,
        ...(Object.entries(r.judged) as [Principle, string][]).map(
          ([principle, claim]) => `    - ${PRINCIPLES[principle].title}: ${claim}`,
        ),
      ].join('\n'),
    )
    .join('\n');
}

export function toJson(result: KitResult): unknown {
  return {
    ...result,
    reference: REFERENCE,
    verdicts: result.verdicts.map((v) => ({
      ...v,
      rule: v.rule.id,
      section: v.rule.section,
      reference: citation(v.rule.section),
      sentence: v.rule.sentence,
      judged: v.rule.judged,
    })),
  };
}

/** The user's samples: the environment's JSON, then the file, then each --sample (tried in that order, last first). */
function userSamples(options: CliOptions): UserSamples {
  const merged: UserSamples = {};
  const add = (more: UserSamples) => {
    for (const [key, values] of Object.entries(more) as [SampleKey, string[]][])
      merged[key] = [...values, ...(merged[key] ?? [])];
  };
  if (process.env.CONTRACT_SAMPLES) add(readUserSamples(process.env.CONTRACT_SAMPLES));
  if (options.samples) {
    let text: string;
    try {
      text = fs.readFileSync(options.samples, 'utf8');
    } catch (error) {
      throw new Error(`--samples: cannot read ${options.samples}: ${(error as Error).message}`);
    }
    add(readUserSamples(text));
  }
  for (const pair of options.sample ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0)
      throw new Error(`--sample ${pair}: expected key=value, e.g. contact.phone_number=+4915112345678`);
    add(readUserSamples(JSON.stringify({ [pair.slice(0, at)]: pair.slice(at + 1) })));
  }
  for (const value of merged['message.attachment'] ?? []) attachmentKeysOf(value);
  return merged;
}

function explicitSequences(argv: string[], options: CliOptions): number | undefined {
  const given =
    argv.some((arg) => arg === '--sequences' || arg.startsWith('--sequences=')) ||
    process.env.CONTRACT_SEQUENCES;
  return given ? options.sequences : undefined;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  if (argv[2] === 'proxy') return proxyMain([...argv.slice(0, 2), ...argv.slice(3)]);
  if (argv[2] === 'twin') return twinMain([...argv.slice(0, 2), ...argv.slice(3)], main);
  let options: CliOptions;
  try {
    const command = program();
    unsetEmptyEnv(command);
    command.parse(argv);
    options = { ...command.opts<CliOptions>(), ruleSet: readRuleSet(command, 'messaging-contract', OLD_ENV) };
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof RuleSetUsageError) {
      console.error(`messaging-contract: ${error.message}`);
      return 2;
    }
    throw error;
  }
  if (options.list) {
    const unknown = (options.rule ?? []).filter((id) => !findRule(id));
    if (unknown.length > 0) {
      console.error(`messaging-contract: --rule: unknown rule ids: ${unknown.join(', ')} (see --list)`);
      return 2;
    }
    console.log(
      `Each rule, the section (§) of ${REFERENCE.title} that states it (${REFERENCE.path}), and how the judge judges it:\n`,
    );
    console.log(formatCatalogue(options.rule));
    return 0;
  }
  let samples: UserSamples;
  try {
    samples = userSamples(options);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    return 2;
  }
  const stopHandlers = handleInterrupts((leftovers) => {
    if (leftovers.length > 0) {
      console.error(
        `Could not delete ${leftovers.length} item(s): ${leftovers.map((l) => `${l.resource} ${l.id}`).join(', ')}`,
      );
    }
  });
  try {
    const result = await runKit({
      baseUrl: options.baseUrl ?? '',
      token: options.token ?? '',
      token2: options.token2,
      ruleSet: options.ruleSet,
      timeoutMs: options.timeoutMs,
      rules: options.rule,
      allowNotRun: options.allowNotRun,
      workers: options.workers,
      // --rule alone runs no sequences; --sequences given with it does.
      sequences: options.rule?.length ? explicitSequences(argv, options) : options.sequences,
      seed: options.seed,
      samples,
      settleMs: options.settleMs,
      maxRequests: options.maxRequests,
      profileOut: options.profileOut,
      onStart: (plan) =>
        console.log(
          `Checking ${plan.baseUrl} against the ${plan.ruleSet} rule set, within a budget of ${plan.budget} requests.`,
        ),
    });
    console.log(formatConsole(result));
    if (options.junit) write(options.junit, buildJunit(result));
    if (options.report) write(options.report, buildMarkdown(result));
    if (options.json) write(options.json, `${JSON.stringify(toJson(result), null, 2)}\n`);
    if (result.profileOut) console.log(profileLine(result.profileOut));
    else if (options.profileOut)
      console.log(
        `No server profile written to ${options.profileOut}: the run could not observe the server.`,
      );
    return result.exitCode;
  } finally {
    stopHandlers();
  }
}
