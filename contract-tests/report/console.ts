import { REFERENCE } from '../rules/reference';
import { SETTLED } from '../model/settle';
import { readConfig } from '../http/config';
import type { RuleVerdict } from '../judge/rule-verdict';
import type { KitResult } from '../run';

const MARK: Record<RuleVerdict['verdict'], string> = { pass: 'PASS', fail: 'FAIL', 'not-run': 'NOT RUN' };

export function exchangeLine(verdict: RuleVerdict): string | undefined {
  const e = verdict.exchange;
  if (!e) return undefined;
  return `${e.method} ${e.path}${e.sent ? ` (sent: ${e.sent})` : ''} → ${e.status} ${e.body || '(empty body)'}`;
}

/** `40 of 42 rules judged: 40 passed, 0 failed, 2 not run (2 accepted by --allow-not-run)`. */
export function summaryLine(result: KitResult): string {
  const count = (v: RuleVerdict['verdict']) => result.verdicts.filter((r) => r.verdict === v).length;
  const { judged, rules, acceptedNotRun } = result.judged;
  const accepted = acceptedNotRun.length > 0 ? ` (${acceptedNotRun.length} accepted by --allow-not-run)` : '';
  return `${judged} of ${rules} rules judged: ${count('pass')} passed, ${count('fail')} failed, ${count('not-run')} not run${accepted}`;
}

/** The per-rule verdicts as plain text, for a terminal or a CI log. */
export function formatConsole(result: KitResult): string {
  const lines: string[] = [];
  lines.push(
    `Messaging API contract kit: ${result.baseUrl} (rule set ${result.ruleSet}, run ${result.runId || '-'})`,
    `Sections (§) are those of ${REFERENCE.title}: ${REFERENCE.path}`,
  );
  lines.push('');
  let lastReason: string | undefined;
  for (const verdict of result.verdicts) {
    lines.push(`${MARK[verdict.verdict].padEnd(7)} ${verdict.rule.id}  (§${verdict.rule.section})`);
    if (verdict.verdict !== 'pass' || verdict.reason) {
      if (verdict.check) lines.push(`        check: ${verdict.check}`);
      // A reason many rules share (a server that refused every contact) is written out once.
      if (verdict.reason)
        lines.push(
          `        ${verdict.reason === lastReason ? '(the same reason as the rule above)' : verdict.reason}`,
        );
      lastReason = verdict.reason;
      if (verdict.foundBy) lines.push(`        found by: ${verdict.foundBy}`);
      const exchange = exchangeLine(verdict);
      if (exchange) lines.push(`        ${exchange}`);
    }
  }
  const sequences = result.sequences;
  if (sequences) {
    lines.push('');
    if (sequences.notRun) lines.push(`Random sequences: not run: ${sequences.notRun}`);
    else
      lines.push(
        `Random sequences: ${sequences.ran} of ${sequences.sequences} run (seed ${sequences.seed}), ${sequences.requests} requests of a budget of ${sequences.budget}; ${sequences.failure ? `a failure, shrunk to ${sequences.failure.steps.filter((s) => /^\d/.test(s)).length} step(s) in ${sequences.failure.shrinks} tries:` : 'no failure.'}`,
      );
    if (sequences.failure) {
      lines.push(
        `  ${sequences.failure.rule}${sequences.failure.check ? ` (check: ${sequences.failure.check})` : ''}: ${sequences.failure.reason}`,
      );
      for (const step of sequences.failure.steps) lines.push(`  ${step}`);
      lines.push('  To replay it with curl (BASE_URL=… TOKEN=… bash file):', '');
      lines.push(
        ...sequences.failure.curl
          .trimEnd()
          .split('\n')
          .map((line) => `    ${line}`),
      );
    }
  }
  if (result.runId) {
    const gone =
      result.leftovers.length === 0 ? 'deleted them all' : `${result.leftovers.length} could not be deleted`;
    lines.push(
      '',
      `Sent ${result.requests} requests${result.budget ? ` of a budget of ${result.budget}` : ''}${result.judgedExchanges !== undefined ? `; the judge read ${result.judgedExchanges} answers` : ''}. Created ${result.created.contacts} contacts and ${result.created.messages} messages (run id ${result.runId}); ${gone}.`,
    );
  }
  const samples = Object.entries(result.serverProfile).filter(([key]) => key.startsWith('accepted sample: '));
  if (samples.length > 0)
    lines.push(
      `Values it takes: ${samples.map(([key, values]) => `${key.slice(17)} ${values.join(' / ')}`).join('; ')}.`,
    );
  const settle = result.serverProfile[SETTLED];
  if (settle) lines.push(`Lists took up to ${settle.at(-1)} to show a write (--settle-ms).`);
  const transient = result.transient;
  if (transient && transient.count > 0)
    lines.push(
      `${transient.count} transient answer${transient.count === 1 ? '' : 's'}, retried (502/503/504, resets, timeouts; e.g. ${transient.examples[0]}).`,
    );
  if (result.leftovers.length > 0) {
    lines.push('');
    lines.push(`Could not delete ${result.leftovers.length} item(s) the kit created:`);
    for (const item of result.leftovers) lines.push(`  ${item.resource} ${item.id} (${item.label})`);
  }
  if (result.problems.length > 0) {
    lines.push('');
    lines.push('Could not judge:');
    for (const problem of result.problems) lines.push(`  ${problem}`);
  }
  // Lists that lacked a write may only show it late: a hint, never a verdict. (The run sets
  // CONTRACT_SETTLE_MS from --settle-ms: read now, not when this module was loaded.)
  const listFailed = result.verdicts.some(
    (v) => v.verdict === 'fail' && /^lists\.|\.list(\.|$)/.test(v.rule.id),
  );
  if (listFailed && readConfig().settleMs === 0)
    lines.push(
      '',
      "Lists failed. If the server's lists show a write some time after it is answered, --settle-ms <ms> gives them that long.",
    );
  lines.push('');
  const verdict =
    result.exitCode === 0
      ? 'the server conforms'
      : result.exitCode === 1
        ? 'at least one rule failed'
        : result.problems.length > 0
          ? 'the run could not judge, for the reasons above'
          : 'the run could not judge';
  lines.push(
    `${summaryLine(result)} in ${(result.durationMs / 1000).toFixed(1)} s: ${verdict} (exit ${result.exitCode})`,
  );
  return lines.join('\n');
}
