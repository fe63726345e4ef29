import { pathToFileURL } from 'node:url';
import { REFERENCE } from '../rules/reference';
import type { KitResult } from '../run';
import { summaryLine } from './console';

export const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
export const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

const LABEL = { pass: '✅ pass', fail: '❌ fail', 'not-run': '⚪ not run' } as const;

/** The conformance report: verdicts, failures with their exchange, and the server profile. */
export function buildMarkdown(result: KitResult): string {
  const lines: string[] = [];
  const outcome =
    result.exitCode === 0 ? 'conforms' : result.exitCode === 1 ? 'does not conform' : 'could not be judged';
  lines.push('# Messaging API conformance report', '');
  lines.push(`- Server: ${code(result.baseUrl)}`);
  lines.push(`- Rule set: **${result.ruleSet}**`);
  lines.push(`- Rules: as stated in [${REFERENCE.title}](${pathToFileURL(REFERENCE.path).href}), by section`);
  lines.push(
    `- Run: ${code(result.runId || '-')}, started ${result.startedAt}, ${(result.durationMs / 1000).toFixed(1)} s, ${result.requests} requests${result.budget ? ` of a budget of ${result.budget}` : ''}`,
  );
  if (result.transient && result.transient.count > 0)
    lines.push(
      `- Transient answers: ${result.transient.count}, put aside and the requests sent again (502/503/504, resets, timeouts); the first: ${result.transient.examples.map(code).join(', ')}`,
    );
  lines.push(`- Verdict: **${outcome}** (exit ${result.exitCode}): ${summaryLine(result)}`);
  lines.push('');
  if (result.problems.length > 0) {
    lines.push('## Could not judge', '');
    for (const problem of result.problems) lines.push(`- ${cell(problem)}`);
    lines.push('');
  }
  lines.push(
    '## Rules',
    '',
    'Exchanges judged: how many of the run’s exchanges the judge of every exchange held against the rule (— where the run ended before the judge’s tally was read).',
    '',
    '| Rule | Section | Verdict | Exchanges judged | Detail |',
    '|---|---|---|---|---|',
  );
  for (const v of result.verdicts) {
    const detail = [v.check ? `check: ${v.check}` : '', v.reason ?? ''].filter(Boolean).join(': ');
    const judged = v.judge
      ? `${v.judge.exchanges}${v.judge.violations > 0 ? ` (${v.judge.violations} broke it)` : ''}`
      : '—';
    lines.push(
      `| ${code(v.rule.id)} | ${v.rule.section} | ${LABEL[v.verdict]} | ${judged} | ${cell(detail)} |`,
    );
  }
  lines.push('');
  const failures = result.verdicts.filter((v) => v.verdict === 'fail');
  if (failures.length > 0) {
    lines.push('## Failures', '');
    for (const v of failures) {
      lines.push(`### ${v.rule.id}`, '', `> ${v.rule.sentence} (§${v.rule.section})`, '');
      if (v.check) lines.push(`Check: **${v.check}**`, '');
      lines.push(v.reason ?? '', '');
      if (v.foundBy) lines.push(`Found by: ${cell(v.foundBy)}`, '');
      if (v.exchange) {
        lines.push('```http', `${v.exchange.method} ${v.exchange.path}`);
        if (v.exchange.sent) lines.push('', v.exchange.sent);
        lines.push('', `→ ${v.exchange.status}`, v.exchange.body || '(empty body)', '```', '');
      }
    }
  }
  const sequences = result.sequences;
  if (sequences) {
    lines.push('## Random sequences', '');
    if (sequences.notRun) lines.push(`Not run: ${sequences.notRun}`, '');
    else
      lines.push(
        `${sequences.ran} of ${sequences.sequences} sequences run with seed ${sequences.seed}: ${sequences.requests} requests of a budget of ${sequences.budget}.`,
        '',
      );
    if (sequences.failure) {
      lines.push(
        `Failure of ${code(sequences.failure.rule)}${sequences.failure.check ? ` (check: ${sequences.failure.check})` : ''}: ${sequences.failure.reason}`,
        '',
        ...sequences.failure.steps.map((step) => (/^\d/.test(step) ? step : `- ${step}`)),
        '',
        'To replay it:',
        '',
        '```bash',
        sequences.failure.curl.trimEnd(),
        '```',
        '',
      );
    }
  }
  lines.push('## Server profile', '');
  lines.push(
    'What this server chose where the API document says "not shown". Observations, never failures.',
    '',
  );
  if (result.profileOut)
    lines.push(
      `Written as a server profile to ${code(result.profileOut.file)} (--profile-out): ${result.profileOut.observed} of ${result.profileOut.choices} choices observed.`,
      '',
    );
  const keys = Object.keys(result.serverProfile).sort();
  if (keys.length === 0) lines.push('Nothing observed.');
  else {
    lines.push('| Choice | Observed |', '|---|---|');
    for (const key of keys) lines.push(`| ${cell(key)} | ${cell(result.serverProfile[key]!.join('; '))} |`);
  }
  lines.push('');
  lines.push('## Clean-up', '');
  const made = `${result.created.contacts} contacts and ${result.created.messages} messages, named with the run id ${code(result.runId || '-')}`;
  if (result.leftovers.length === 0) lines.push(`The kit created ${made}, and deleted them all.`);
  else {
    lines.push(`The kit created ${made}. It could not delete ${result.leftovers.length} of them:`, '');
    for (const item of result.leftovers)
      lines.push(`- ${item.resource} ${code(item.id)} (${cell(item.label)})`);
  }
  lines.push('');
  return lines.join('\n');
}
