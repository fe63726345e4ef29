import builder from 'junit-report-builder';
import { citation, REFERENCE } from '../rules/reference';
import type { KitResult } from '../run';
import { exchangeLine } from './console';

/**
 * One test case per rule (not per jest test): pass, failure with the exchange that showed it,
 * or skipped with the reason it was not run. Problems that kept the run from judging are errors.
 * `properties` go on the suite beside the reference.
 */
export function buildJunit(result: KitResult, properties: Record<string, string> = {}): string {
  const report = builder.newBuilder();
  const suite = report
    .testSuite()
    .name(`messaging-contract (${result.ruleSet}) ${result.baseUrl}`)
    .timestamp(new Date(result.startedAt))
    .time(result.durationMs / 1000)
    .property('reference', `${REFERENCE.title}: ${REFERENCE.path}`)
    .property('rules judged', `${result.judged.judged} of ${result.judged.rules}`);
  for (const [name, value] of Object.entries(properties)) suite.property(name, value);
  for (const verdict of result.verdicts) {
    const test = suite
      .testCase()
      .className(`messaging-contract.${result.ruleSet}`)
      .name(`${verdict.rule.id}: ${verdict.rule.sentence}`)
      .property('reference', citation(verdict.rule.section));
    if (verdict.verdict === 'fail') {
      const what = [verdict.check ? `check: ${verdict.check}` : '', verdict.reason ?? 'failed'];
      test.failure(what.filter(Boolean).join(': '), 'RuleFailure');
      const exchange = exchangeLine(verdict);
      if (exchange) test.stacktrace(exchange);
    } else if (verdict.verdict === 'not-run') {
      // Accepted by name (--allow-not-run) or outside a narrowed run: skipped. Otherwise the run
      // could not judge it, which is an error of the run, never a pass.
      if (result.exitCode === 2 && !result.judged.acceptedNotRun.includes(verdict.rule.id))
        test.error(`not run: ${verdict.reason ?? 'no exchange could judge it'}`, 'NotJudged');
      else test.skipped();
      if (verdict.reason) test.standardOutput(`not run: ${verdict.reason}`);
    }
  }
  for (const problem of result.problems) {
    suite
      .testCase()
      .className(`messaging-contract.${result.ruleSet}`)
      .name('could not judge')
      .error(problem, 'CouldNotJudge');
  }
  return report.build();
}
