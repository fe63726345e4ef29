/**
 * What a rule is: its home in the catalogue holds its id, where the API document states it, the
 * sentence it checks, and how the judge judges it, in words, principle by principle. The rules'
 * homes are rules/api.ts, contacts.ts, lists.ts, messages.ts and conventions.ts; rules.ts puts them
 * together, and the catalogue's uses (the verdicts, the docs' table, `--list`) are derived from it.
 */

/** A set of rules to check (--rule-set): not a server profile (--profile-out), which is data. */
export type RuleSet = 'documented' | 'mock';

export const RULE_SETS: readonly RuleSet[] = ['documented', 'mock'];

/**
 * The judge's principles: the ways it looks at every exchange, each one module of judge/. A rule
 * is judged by one or more of them; its home says what each one holds against it
 * (test/contract-kit/catalogue.test.ts checks that every module that judges a rule is claimed in
 * its home, and that no home claims a module that does not).
 */
export const PRINCIPLES = {
  answers: { module: 'documented', title: 'Every answer' },
  writes: { module: 'writes', title: 'The answer to a write' },
  views: { module: 'records', title: 'Every view of a record' },
  lists: { module: 'lists', title: 'Every list page' },
  walks: { module: 'walks', title: 'A walk through the pages' },
  refusals: { module: 'refusals', title: 'What must be refused, what must be answered' },
  traces: { module: 'traces', title: 'What a refusal or a delete leaves' },
  ids: { module: 'identity', title: 'Ids over the session' },
  conventions: { module: 'conventions', title: "The mock's conventions" },
} as const;

export type Principle = keyof typeof PRINCIPLES;

export interface Rule {
  id: string;
  /** Where the rule is written, e.g. "4.1 rule 4" or "C8". */
  section: string;
  /** The sentence it checks, quoted or closely paraphrased from its source. */
  sentence: string;
  /** The smallest rule set that holds the rule. */
  ruleSet: RuleSet;
  /** How the judge judges it: per principle, which exchanges it looks at and what breaks the rule. */
  judged: Readonly<Partial<Record<Principle, string>>>;
  /**
   * The judge alone decides the rule: its test sends the requests that show it kept or broken and
   * checks nothing itself (model/harness.ts refuses a check there), and the verdict is the judge's
   * (judge/rule-verdict.ts). Every documented rule is here; the mock's conventions are judged by
   * both, the judge on every exchange and their tests on their own.
   */
  decidedByJudge?: true;
}

type Home = Pick<Rule, 'id' | 'section' | 'sentence' | 'judged'>;

/** A rule of the API document (docs/api.md, part 1): in both rule sets, decided by the judge alone. */
export const documented = (home: Home): Rule => ({ ...home, ruleSet: 'documented', decidedByJudge: true });

/** A convention of the mock (docs/api.md, part 2): in the `mock` rule set only. */
export const convention = (home: Home): Rule => ({ ...home, ruleSet: 'mock' });
