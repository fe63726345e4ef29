import type { RuleTally } from './judging';
import { JUDGE_TITLE } from './judge-run';
import type { ExchangeExcerpt, RecordLine, Verdict } from '../http/records';
import type { Rule } from '../rules/rules';

/**
 * The verdict on one rule of a run: from the outcomes of its tests (jest's) and the verdicts they
 * recorded, and from failures of the rule that other tests found on their way (the model's
 * checks, a random sequence).
 */
export interface RuleVerdict {
  rule: Rule;
  verdict: Verdict;
  /** Why it failed or was not run. */
  reason?: string;
  /** Which check of the rule failed. */
  check?: string;
  /** The test that found the failure, when it is not one of the rule's own (e.g. a random sequence). */
  foundBy?: string;
  /** The request and answer that showed the failure. */
  exchange?: ExchangeExcerpt;
  /** The tests of the rule, by title. */
  tests: string[];
  /**
   * What the judge of every exchange measured for this rule: the exchanges of the run it judged
   * against the rule, and how many of them broke it. Absent when the run was interrupted before
   * the judge's tally was read.
   */
  judge?: { exchanges: number; violations: number };
}

/** The rule id a test names: its title starts with `[id]`. */
export function ruleIdOfTitle(title: string): string | undefined {
  return /^\[([^\]\s]+)\]/.exec(title)?.[1];
}

/** How the verdict of a rule the judge decides starts, when only a script saw its fault. */
export const JUDGE_MISSED =
  'seen by a script of the kit, not by the judge of every exchange (a gap of the judge): ';

export type TestOutcome = { title: string; status: string; failure: string };

export function verdictOf(
  rule: Rule,
  outcomes: TestOutcome[],
  records: RecordLine[],
  problems: string[],
): RuleVerdict | undefined {
  const tests = outcomes.filter(
    (o) =>
      ruleIdOfTitle(o.title) === rule.id &&
      o.status !== 'pending' &&
      o.status !== 'skipped' &&
      o.status !== 'disabled',
  );
  const verdicts = records.filter(
    (r): r is Extract<RecordLine, { kind: 'verdict' }> => r.kind === 'verdict' && r.rule === rule.id,
  );
  const titles = tests.map((t) => t.title);
  // Failures of this rule found by other tests: on their way, by the model's checks, or by a
  // random sequence. The rule's own failure, when it has one, is shown first. Of a rule the judge
  // decides, the judge's is.
  const byJudge = rule.decidedByJudge
    ? verdicts.find((v) => v.verdict === 'fail' && v.test === JUDGE_TITLE)
    : undefined;
  const foreign = byJudge ?? verdicts.find((v) => v.verdict === 'fail' && ruleIdOfTitle(v.test) !== rule.id);
  if (tests.length === 0 && !foreign) return undefined;
  let failure: RuleVerdict | undefined;
  let notRun: RuleVerdict | undefined;
  let passed = false;
  for (const test of tests) {
    const record = verdicts.find((v) => v.test === test.title);
    if (test.status === 'failed') {
      if (record?.verdict === 'fail') {
        failure ??= {
          rule,
          verdict: 'fail',
          reason: record.reason,
          ...(record.check ? { check: record.check } : {}),
          exchange: record.exchange,
          tests: [],
        };
      } else if (record?.verdict === 'infra') {
        problems.push(`${rule.id}: could not judge: ${record.reason}`);
        notRun ??= { rule, verdict: 'not-run', reason: `could not judge: ${record.reason}`, tests: [] };
      } else {
        const why = record?.reason ?? test.failure.split('\n').slice(0, 3).join(' ');
        problems.push(`${rule.id}: the test broke instead of judging: ${why}`);
        notRun ??= { rule, verdict: 'not-run', reason: `the test broke: ${why.slice(0, 300)}`, tests: [] };
      }
    } else if (record?.verdict === 'not-run') {
      notRun ??= { rule, verdict: 'not-run', reason: record.reason, tests: [] };
    } else {
      passed = true;
    }
  }
  // The judge's failure of a rule it decides comes before the rule's own tests'.
  if (foreign && (!failure || byJudge)) {
    failure = {
      rule,
      verdict: 'fail',
      reason: foreign.reason,
      ...(foreign.check ? { check: foreign.check } : {}),
      foundBy: foreign.test,
      exchange: foreign.exchange,
      tests: [],
    };
  }
  // A fault of a rule the judge decides that only a script's model saw still fails the rule, never
  // passes it, and says so: the judge has a gap there (rogues.test.ts measures that none is known).
  if (failure && rule.decidedByJudge && failure.foundBy !== JUDGE_TITLE)
    failure = { ...failure, reason: `${JUDGE_MISSED}${failure.reason ?? 'a failure'}` };
  if (failure) return { ...failure, tests: titles };
  if (notRun && !passed) return { ...notRun, tests: titles };
  return {
    rule,
    verdict: 'pass',
    ...(notRun ? { reason: `partly not run: ${notRun.reason}` } : {}),
    tests: titles,
  };
}

/**
 * Beside the failures `first` picks, each failure `then` picks is not run (`why`, given the rules
 * of the first): it may be the same fault, seen in another answer or charged to another rule.
 */
function notApart(
  verdicts: RuleVerdict[],
  first: (v: RuleVerdict) => boolean,
  then: (v: RuleVerdict) => boolean,
  why: (v: RuleVerdict, named: string) => string,
): RuleVerdict[] {
  const named = verdicts
    .filter((v) => v.verdict === 'fail' && first(v))
    .map((v) => v.rule.id)
    .join(', ');
  if (named === '') return verdicts;
  return verdicts.map((v) =>
    v.verdict === 'fail' && then(v) ? { ...v, verdict: 'not-run', reason: why(v, named) } : v,
  );
}

const byTheJudge = (v: RuleVerdict) => v.foundBy === JUDGE_TITLE;

/**
 * The judge of every exchange sees a fault in every answer that shows it, and names the rule each
 * answer breaks; the rules' tests name the rule of the fault they were made to find. Where the
 * tests found a rule broken, a rule that only the judge saw broken may be the same fault seen in
 * another answer: it is not run (with what the judge saw), to be judged once the fault the tests
 * named is mended, rather than failed twice. With no failure from the tests, what the judge saw
 * fails its rule: a fault in an answer no test reads twice. A rule the judge alone decides
 * (rules.ts `decidedByJudge`) fails on what the judge saw, whatever the tests found; and what only
 * a script saw of such a rule (JUDGE_MISSED) fails it only when the judge found no rule broken:
 * beside the judge's failures it may be one of them, which the script charged to the rule of its
 * own step (a list that shows a message's created_at wrong, read by the script after an update, is
 * the list's fault, not the update's), and it is not run.
 */
export function besideTheTests(verdicts: RuleVerdict[]): RuleVerdict[] {
  const besideTheJudge = notApart(
    verdicts,
    byTheJudge,
    (v) => !byTheJudge(v) && v.rule.decidedByJudge === true,
    (v, named) =>
      `not judged apart from ${named}, which the judge of every exchange found broken: ${v.reason ?? 'a failure'}; it may be the same fault`,
  );
  return notApart(
    besideTheJudge,
    (v) => !byTheJudge(v),
    (v) => byTheJudge(v) && !v.rule.decidedByJudge,
    (v, named) =>
      `not judged apart from ${named}, which the tests found broken: the judge of every exchange saw ${v.reason ?? 'a violation'}; it may be the same fault`,
  );
}

/**
 * Each verdict with what the judge measured for its rule (see `RuleVerdict.judge`). Coverage is
 * measured, not declared: a rule the judge judges, whose tests passed, but that no exchange of the
 * run could have broken, is not run.
 */
export function withTheJudge(verdicts: RuleVerdict[], tallies: RuleTally[] | undefined): RuleVerdict[] {
  const byRule = new Map((tallies ?? []).map((t) => [t.rule.id, t]));
  return verdicts.map((v) => {
    const tally = byRule.get(v.rule.id);
    if (!tally) return v;
    const judge = { exchanges: tally.checks, violations: tally.violations };
    if (v.verdict === 'pass' && tally.checks === 0)
      return {
        ...v,
        verdict: 'not-run',
        reason: `no exchange of the run could have broken it, so its passing tests prove nothing: the judge of every exchange held none against it${v.reason ? ` (${v.reason})` : ''}`,
        judge,
      };
    return { ...v, judge };
  });
}
