import path from 'node:path';
import { readRecords, type RecordLine } from '../http/records';
import { rulesOf, type Rule, type RuleSet } from '../rules/rules';
import { judgeRun, type RunJudgement } from './judge-run';
import {
  besideTheTests,
  ruleIdOfTitle,
  verdictOf,
  withTheJudge,
  type RuleVerdict,
  type TestOutcome,
} from './rule-verdict';

/** What jest's run of the kit's test files gave (runCLI's results). */
type JestResults = Awaited<ReturnType<typeof import('jest').runCLI>>['results'];

/** A run of the kit's tests, over, as the verdicts are made from it. */
export interface RunToJudge {
  /** jest's results of the test files. */
  results: JestResults;
  /** The run's results folder: the records and every exchange, of every process. */
  resultsDir: string;
  /** The kit's folder, which the test files' paths are told from. */
  kitDir: string;
  ruleSet: RuleSet;
  settleMs: number;
  /** The rules the run was asked for. */
  selected: Rule[];
  /** Interrupted runs are not judged by the one judge. */
  interrupted: boolean;
  /** The title of the random sequences' test, whose failures are recorded against the rules they break. */
  sequenceTitle: string;
}

/**
 * Whether every create of the run had an answer the judge reads: none was put aside as transient
 * (a POST's outcome is then unknown, and the kit may have found its record made all the same).
 */
function everyCreateSeen(records: readonly RecordLine[]): boolean {
  return !records.some((r) => r.kind === 'transient' && r.method === 'POST');
}

/**
 * The verdict on each rule of a run: every exchange through the one judge (the proxy's), the tests'
 * outcomes, and the records they wrote. What kept the run from judging goes into `problems`.
 */
export function verdictsOfRun(
  run: RunToJudge,
  problems: string[],
): { verdicts: RuleVerdict[]; records: RecordLine[]; byJudge: RunJudgement | undefined } {
  // Every exchange of the run, whoever made it, through the one judge (the proxy's): a fault it
  // sees is a failure of the rule it breaks, beside the tests' own verdicts.
  const written = readRecords(run.resultsDir);
  const byJudge = run.interrupted
    ? undefined
    : judgeRun(run.resultsDir, run.ruleSet, run.settleMs, everyCreateSeen(written));
  for (const error of byJudge?.errors ?? []) problems.push(`the judge could not judge ${error}`);
  const records = [...written, ...(byJudge?.failures ?? [])];
  const outcomes: TestOutcome[] = [];
  for (const file of run.results.testResults) {
    if (file.testExecError) {
      problems.push(
        `${path.relative(run.kitDir, file.testFilePath)} could not run: ${file.testExecError.message.split('\n')[0]}`,
      );
    } else if (file.failureMessage && file.testResults.every((a) => a.status !== 'failed')) {
      // A hook (e.g. afterAll's cleanup) failed outside any test.
      problems.push(
        `${path.relative(run.kitDir, file.testFilePath)}: ${file.failureMessage.split('\n').find((l) => l.trim()) ?? 'failed'}`,
      );
    }
    for (const assertion of file.testResults) {
      outcomes.push({
        title: assertion.title,
        status: assertion.status,
        failure: assertion.failureMessages.join('\n'),
      });
    }
  }
  for (const outcome of outcomes) {
    if (outcome.title === run.sequenceTitle) {
      // Its failures are recorded against the rules they break; a failed test here broke instead.
      if (outcome.status === 'failed')
        problems.push(
          `the random sequences could not judge: ${outcome.failure.split('\n').slice(0, 3).join(' ')}`,
        );
    } else if (!ruleIdOfTitle(outcome.title)) problems.push(`the test "${outcome.title}" names no rule`);
  }
  // A rule outside --rule that a random sequence found broken is judged too.
  const foundBroken = rulesOf(run.ruleSet).filter(
    (r) =>
      !run.selected.includes(r) &&
      records.some((l) => l.kind === 'verdict' && l.verdict === 'fail' && l.rule === r.id),
  );
  const judgedOne: RuleVerdict[] = [];
  for (const rule of [...run.selected, ...foundBroken]) {
    const verdict = verdictOf(rule, outcomes, records, problems);
    if (verdict) judgedOne.push(verdict);
    else {
      judgedOne.push({ rule, verdict: 'not-run', reason: 'no test of this rule ran', tests: [] });
      problems.push(`${rule.id}: no test of this rule ran`);
    }
  }
  const verdicts = withTheJudge(besideTheTests(judgedOne), byJudge?.tallies);
  return { verdicts, records, byJudge };
}
