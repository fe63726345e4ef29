import { citation, REFERENCE } from '../rules/reference';
import { buildJunit } from '../report/junit';
import { cell, code } from '../report/markdown';
import type { RuleVerdict } from '../judge/rule-verdict';
import type { KitResult } from '../run';
import type { Violation } from '../judge/verdicts';
import type { RuleTally } from '../judge/judging';
import type { ProxyResult } from './proxy';

/** The proxy's reports: the summary printed on exit, and the --report, --junit and --json files. */

const checked = (result: ProxyResult) => result.rules.filter((t) => t.checks > 0);
const broken = (result: ProxyResult) => result.rules.filter((t) => t.violations > 0);

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/** What the proxy remembered, and what it forgot to stay within its bounds. */
function memoryLine(result: ProxyResult): string {
  const m = result.memory;
  const forgot =
    m.forgottenTokens + m.forgottenRecords === 0
      ? 'it forgot nothing'
      : `it forgot ${m.forgottenTokens} token(s) whole (least recently used) and ${m.forgottenRecords} record(s) of tokens it kept, each learnt again from later traffic`;
  return `Memory: ${m.tokens} token(s) remembered, ${mb(m.bytes)} (at most ${mb(m.peakBytes)}) of --max-total-mb ${m.limits.maxBytes / 2 ** 20}, --max-tokens ${m.limits.maxTokens}, --max-records ${m.limits.maxRecords}; ${forgot}`;
}

function verdictLine(result: ProxyResult): string {
  return result.exitCode === 1
    ? `${broken(result).length} rule(s) broken (exit 1)`
    : 'no rule broken (exit 0)';
}

export function formatSummary(result: ProxyResult): string {
  const lines = [
    '',
    `Proxy session for ${result.target} (rule set ${result.ruleSet}), ${(result.durationMs / 1000).toFixed(1)} s: ${result.exchanges} exchanges judged, ${result.targetProblems.length} the target could not answer (not rule violations)`,
    `Rules checked: ${checked(result).length} of the ${result.rules.length} the proxy can judge in this rule set (sections of ${REFERENCE.title}: ${REFERENCE.path})`,
  ];
  for (const tally of result.rules) {
    if (tally.checks === 0) continue;
    const mark = tally.violations > 0 ? 'BROKEN' : 'ok';
    lines.push(
      `  ${mark.padEnd(6)} ${tally.rule.id.padEnd(52)} §${tally.rule.section}: ${tally.checks} checked${tally.violations > 0 ? `, ${tally.violations} violation(s)` : ''}`,
    );
  }
  const unseen = result.rules.filter((t) => t.checks === 0).map((t) => t.rule.id);
  if (unseen.length > 0) lines.push(`Not exercised by this session: ${unseen.join(', ')}`);
  lines.push(memoryLine(result), verdictLine(result));
  return lines.join('\n');
}

function exchangeOf(violation: Violation): NonNullable<RuleVerdict['exchange']> {
  const e = violation.exchange;
  return { method: e.method, path: e.url, status: e.status, body: e.body };
}

/** The session as the kit's result, so that the kit's JUnit builder writes it: one case per rule checked. */
function asKitResult(result: ProxyResult): KitResult {
  return {
    exitCode: result.exitCode,
    baseUrl: result.target,
    ruleSet: result.ruleSet,
    runId: 'proxy',
    startedAt: result.startedAt,
    durationMs: result.durationMs,
    // The proxy judges the rules its traffic exercised: those are the set of this result.
    judged: { judged: checked(result).length, rules: checked(result).length, acceptedNotRun: [] },
    verdicts: checked(result).map((tally) => {
      const first = tally.first[0];
      return {
        rule: tally.rule,
        verdict: tally.violations > 0 ? 'fail' : 'pass',
        ...(first
          ? {
              reason: `${tally.violations} violation(s) in ${tally.checks} exchange(s) checked; the first: ${first.message}`,
              exchange: exchangeOf(first),
            }
          : {}),
        tests: [],
      };
    }),
    problems: [],
    serverProfile: {},
    requests: result.exchanges,
    created: { contacts: 0, messages: 0 },
    leftovers: [],
  };
}

export function buildProxyJunit(result: ProxyResult): string {
  const m = result.memory;
  return buildJunit(asKitResult(result), {
    'forgotten-tokens': String(m.forgottenTokens),
    'forgotten-records': String(m.forgottenRecords),
    memory: memoryLine(result),
  });
}

function violationBlock(tally: RuleTally): string[] {
  const lines = [`### ${tally.rule.id}`, '', `> ${tally.rule.sentence} (§${tally.rule.section})`, ''];
  lines.push(
    `${tally.violations} violation(s) in ${tally.checks} exchange(s) checked${tally.violations > tally.first.length ? `; the first ${tally.first.length}:` : ':'}`,
    '',
  );
  for (const violation of tally.first) {
    const e = violation.exchange;
    lines.push(
      `- #${e.seq} ${code(`${e.method} ${e.url}`)} → ${e.status} (${cell(e.authorization)}): ${cell(violation.message)}`,
    );
  }
  const first = tally.first[0];
  if (first)
    lines.push(
      '',
      'The answer of the first:',
      '',
      '```http',
      `${first.exchange.method} ${first.exchange.url}`,
      '',
      `→ ${first.exchange.status}`,
      first.exchange.body || '(empty body)',
      '```',
    );
  lines.push('');
  return lines;
}

export function buildProxyMarkdown(result: ProxyResult): string {
  const lines = ['# Messaging API proxy report', ''];
  lines.push(
    `- Target: ${code(result.target)}`,
    `- Rule set: **${result.ruleSet}**`,
    `- Rules: as stated in ${REFERENCE.title} (${code(REFERENCE.path)}), by section`,
    `- Session: started ${result.startedAt}, ${(result.durationMs / 1000).toFixed(1)} s, ${result.exchanges} exchanges judged`,
    `- ${memoryLine(result)}`,
    `- Verdict: **${verdictLine(result)}**: ${checked(result).length} rules checked, ${broken(result).length} broken`,
    '',
    '## Rules checked',
    '',
    '| Rule | Section | Exchanges checked | Violations |',
    '|---|---|---|---|',
  );
  for (const t of checked(result))
    lines.push(
      `| ${code(t.rule.id)} | ${t.rule.section} | ${t.checks} | ${t.violations > 0 ? `❌ ${t.violations}` : '✅ 0'} |`,
    );
  lines.push('');
  if (broken(result).length > 0) {
    lines.push('## Violations', '');
    for (const tally of broken(result)) lines.push(...violationBlock(tally));
  }
  const unseen = result.rules.filter((t) => t.checks === 0);
  lines.push(
    '## Not judged',
    '',
    unseen.length > 0
      ? `No exchange of this session exercised: ${unseen.map((t) => code(t.rule.id)).join(', ')}.`
      : 'Every rule of the rule set was exercised by one exchange of this session at least.',
    '',
  );
  if (result.targetProblems.length > 0) {
    lines.push('## What the target could not answer', '', 'Never counted as rule violations.', '');
    for (const p of result.targetProblems)
      lines.push(
        `- ${p.kind}: ${code(`${p.method} ${p.url}`)}${p.status ? ` → ${p.status}` : ''}: ${cell(p.message)}`,
      );
    lines.push('');
  }
  return lines.join('\n');
}

export function proxyJson(result: ProxyResult): unknown {
  return {
    target: result.target,
    ruleSet: result.ruleSet,
    reference: REFERENCE,
    startedAt: result.startedAt,
    durationMs: result.durationMs,
    exchanges: result.exchanges,
    exitCode: result.exitCode,
    memory: result.memory,
    targetProblems: result.targetProblems,
    rules: result.rules.map((t) => ({
      rule: t.rule.id,
      section: t.rule.section,
      reference: citation(t.rule.section),
      sentence: t.rule.sentence,
      checks: t.checks,
      violations: t.violations,
      first: t.first,
    })),
  };
}
