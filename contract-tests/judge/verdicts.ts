import { redact, type Reading } from '../http/exchange';
import { findRule, RULES, rulesOf, type RuleSet } from '../rules/rules';

/**
 * What the judgment of one exchange gives, and how its modules (records, lists, documented,
 * conventions) note what they found: each problem against the rule it breaks, at most one
 * violation a rule, and only rules of the rule set.
 */

export interface Violation {
  rule: string;
  section: string;
  /** What was wrong, in words. */
  message: string;
  exchange: {
    seq: number;
    method: string;
    url: string;
    status: number;
    /** The Authorization header cut to its first characters (`Bearer abcd…`). */
    authorization: string;
    /** The start of the answer's body, as the reports quote it. */
    body: string;
  };
}

export interface Judgement {
  /** The rules this exchange was judged against. */
  checked: string[];
  /** At most one a rule: the first problem, and how many more this answer showed. */
  violations: Violation[];
}

export const show = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? 'undefined' : text.length > 60 ? `${text.slice(0, 60)}…` : text;
};
const BODY_EXCERPT = 300;
const excerpt = (text: string | undefined) =>
  text === undefined ? '(not kept)' : text.length > BODY_EXCERPT ? `${text.slice(0, BODY_EXCERPT)}…` : text;
export const where = (at: string, problem: string) => `${at}: ${problem}`;
export type Problem = string | false | undefined | null;

const RULE_IDS: ReadonlySet<string> = new Set(RULES.map((rule) => rule.id));
const RULE_SET_RULES: Record<RuleSet, ReadonlySet<string>> = {
  documented: new Set(rulesOf('documented').map((rule) => rule.id)),
  mock: new Set(rulesOf('mock').map((rule) => rule.id)),
};

export class Verdicts {
  private readonly checked = new Set<string>();
  private readonly found = new Map<string, string[]>();
  private readonly rules: ReadonlySet<string>;

  constructor(
    private readonly reading: Reading,
    ruleSet: RuleSet,
  ) {
    this.rules = RULE_SET_RULES[ruleSet];
  }

  /** The exchange was judged against `rule`; each problem given is a way it broke it. */
  check(rule: string, ...found: Problem[]): void {
    if (!RULE_IDS.has(rule)) throw new Error(`the judge names the rule "${rule}", which it does not list`);
    if (!this.rules.has(rule)) return;
    this.checked.add(rule);
    const problems = found.filter((p): p is string => typeof p === 'string' && p !== '');
    if (problems.length > 0) this.found.set(rule, [...(this.found.get(rule) ?? []), ...problems]);
  }

  has(rule: string): boolean {
    return this.rules.has(rule);
  }

  result(): Judgement {
    const { exchange, authorization } = this.reading;
    const violations = [...this.found].map(([rule, problems]) => ({
      rule,
      section: findRule(rule)!.section,
      message:
        problems.length > 1
          ? `${problems[0]} (and ${problems.length - 1} more in this answer)`
          : problems[0]!,
      exchange: {
        seq: exchange.seq,
        method: exchange.method,
        url: exchange.url,
        status: exchange.status,
        authorization: redact(authorization),
        body: excerpt(this.reading.text),
      },
    }));
    return { checked: [...this.checked], violations };
  }
}

/** The id in the path of a single record's route. */
export const routeId = (reading: Reading) => ('id' in reading.route ? reading.route.id : '');
