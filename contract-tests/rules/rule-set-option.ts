import { Option, type Command } from 'commander';
import { RULE_SETS, type RuleSet } from './rules';

/**
 * `--rule-set` (env CONTRACT_RULE_SET): the set of rules a run checks. Its old name, `--profile`,
 * still works with a warning: "profile" now means only the server profile (--profile-out), the
 * server's observed choices, which is data and not a set of rules.
 */
const NEW_ENV = 'CONTRACT_RULE_SET';

/** Adds `--rule-set` and its old name `--profile` (hidden; with `oldEnv`, that variable too). */
export function addRuleSetOptions(command: Command, oldEnv?: string): Command {
  const old = new Option('--profile <set>', 'the old name of --rule-set').choices(RULE_SETS).hideHelp();
  return command
    .addOption(
      new Option(
        '--rule-set <set>',
        "the set of rules to check: documented: only the document's rules; mock: also the mock's conventions C1–C20",
      )
        .choices(RULE_SETS)
        .default('documented')
        .env(NEW_ENV),
    )
    .addOption(oldEnv ? old.env(oldEnv) : old);
}

/**
 * A variable set to the empty string (`CONTRACT_SETTLE_MS=`) means "not set", for every option the
 * command reads from the environment: the parser would read it as the value "" and refuse it, or
 * take it. Call before parsing.
 */
export function unsetEmptyEnv(command: Command): void {
  for (const option of command.options)
    if (option.envVar !== undefined && process.env[option.envVar] === '') delete process.env[option.envVar];
}

/** A usage mistake in the rule set options: the run exits 2. */
export class RuleSetUsageError extends Error {}

/**
 * The rule set of a parsed command: `--rule-set`, or its old name with one warning line on stderr
 * (`who:` first). Both given with different sets: a RuleSetUsageError naming both.
 */
export function readRuleSet(command: Command, who: string, oldEnv?: string): RuleSet {
  const { ruleSet, profile } = command.opts<{ ruleSet: RuleSet; profile?: RuleSet }>();
  if (profile === undefined) return ruleSet;
  const fromEnv = (key: string) => command.getOptionValueSource(key) === 'env';
  const oldName = fromEnv('profile') && oldEnv ? oldEnv : '--profile';
  const newName = fromEnv('ruleSet') ? NEW_ENV : '--rule-set';
  const given = (name: string, value: string) =>
    name.startsWith('--') ? `${name} ${value}` : `${name}=${value}`;
  const newGiven = command.getOptionValueSource('ruleSet') !== 'default';
  if (newGiven && ruleSet !== profile)
    throw new RuleSetUsageError(
      `${given(newName, ruleSet)} and ${given(oldName, profile)} name different rule sets; give only ${newName} (${oldName} is its old name)`,
    );
  console.error(
    `${who}: ${oldName} is now ${oldName === '--profile' ? '--rule-set' : NEW_ENV} (a set of rules; --profile-out is the server profile); read as --rule-set ${profile}`,
  );
  return profile;
}
