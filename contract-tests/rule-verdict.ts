import type { ExchangeExcerpt, RecordLine, Verdict } from './lib/records';
import type { Rule } from './rules';

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
}

/** The rule id a test names: its title starts with `[id]`. */
export function ruleIdOfTitle(title: string): string | undefined {
  return /^\[([^\]\s]+)\]/.exec(title)?.[1];
}

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
  // random sequence. The rule's own failure, when it has one, is shown first.
  const foreign = verdicts.find((v) => v.verdict === 'fail' && ruleIdOfTitle(v.test) !== rule.id);
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
  if (!failure && foreign) {
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
  if (failure) return { ...failure, tests: titles };
  if (notRun && !passed) return { ...notRun, tests: titles };
  return {
    rule,
    verdict: 'pass',
    ...(notRun ? { reason: `partly not run: ${notRun.reason}` } : {}),
    tests: titles,
  };
}
