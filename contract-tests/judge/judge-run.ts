import { startJudging, type RuleTally } from './judging';
import type { RuleSet } from '../rules/rules';
import type { RecordLine } from '../http/records';
import type { PendingWrite } from '../http/exchange';
import { asProxyExchange, readWire, type WireRecord } from '../http/wire';

/** The title the judge's findings carry in the verdicts, as a test's would. */
export const JUDGE_TITLE = 'the judge of every exchange of the run (the proxy’s)';

export interface RunJudgement {
  /** A failure record for each rule the judge found broken: its first violation. */
  failures: Extract<RecordLine, { kind: 'verdict' }>[];
  /** Exchanges judged, and the judge's tally per rule. */
  exchanges: number;
  tallies: RuleTally[];
  /** Exchanges the judge itself could not judge (a bug of ours, never the server's fault). */
  errors: string[];
}

/**
 * The writes on their way when each answer came, asked in the order the answers came (`at` never
 * goes back): sent before it, answered after it. One sweep over the writes in the order they were
 * sent, rather than all of them for every answer.
 */
function pendingWrites(records: WireRecord[]): (at: number) => PendingWrite[] {
  const writes = records
    .filter((r) => !['GET', 'HEAD', 'OPTIONS'].includes(r.method))
    .sort((a, b) => a.startedAt - b.startedAt);
  let next = 0;
  let onTheirWay: WireRecord[] = [];
  return (at) => {
    while (next < writes.length && writes[next]!.startedAt < at) onTheirWay.push(writes[next++]!);
    // A write answered by now stays answered for every later answer.
    onTheirWay = onTheirWay.filter((w) => w.finishedAt > at);
    return onTheirWay.map((w) => ({
      method: w.method,
      url: w.url,
      ...(w.requestHeaders.authorization !== undefined
        ? { authorization: w.requestHeaders.authorization }
        : {}),
    }));
  };
}

/**
 * Every exchange the run made (http/wire.ts), from every process, through the one judge the proxy
 * uses, in the order the answers came: a fault in an answer no test looked at twice is still
 * judged by the rule it breaks, whichever script made the request.
 */
export function judgeRun(
  resultsDir: string,
  ruleSet: RuleSet,
  settleMs: number,
  sawEveryCreate: boolean,
): RunJudgement {
  // The kit's requests are the only ones that change the records it made (they carry its run id).
  const judging = startJudging(ruleSet, {
    settleMs,
    limits: { maxBytes: 256 * 2 ** 20 },
    soleWriter: true,
    sawEveryCreate,
  });
  const failures: RunJudgement['failures'] = [];
  const errors: string[] = [];
  const failed = new Set<string>();
  const records = readWire(resultsDir);
  const pendingAt = pendingWrites(records);
  for (const record of records) {
    const outcome = judging.judge(asProxyExchange(record, 0), pendingAt(record.finishedAt));
    if (outcome.kind === 'error') {
      if (errors.length < 5) errors.push(`${record.method} ${record.url}: ${outcome.message}`);
      continue;
    }
    if (outcome.kind !== 'judged') continue;
    for (const violation of outcome.violations) {
      if (failed.has(violation.rule)) continue;
      failed.add(violation.rule);
      failures.push({
        kind: 'verdict',
        rule: violation.rule,
        test: JUDGE_TITLE,
        verdict: 'fail',
        check: 'judged from the exchange',
        reason: violation.message,
        exchange: {
          method: record.method,
          path: record.url,
          ...(record.requestBody !== undefined ? { sent: record.requestBody.slice(0, 300) } : {}),
          status: record.status,
          body: violation.exchange.body,
        },
      });
    }
  }
  return { failures, exchanges: judging.judged, tallies: judging.tallies(), errors };
}
