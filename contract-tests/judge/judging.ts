import { isTransientStatus } from '../../common/transient';
import { read, type PendingWrite, type ProxyExchange } from '../http/exchange';
import { copy, DEFAULT_LIMITS, type Limits } from './memory';
import { learn, newSession, type SessionState } from './session';
import { rulesOf, type Rule, type RuleSet } from '../rules/rules';
import { judge } from './documented';
import type { Violation } from './verdicts';

/**
 * The one judge of exchanges, as a session: each exchange is read, judged against what the session
 * learnt before it, then learnt from, and its verdicts are tallied per rule. The proxy feeds it the
 * traffic it forwards, as it passes; the kit feeds it every exchange of its run, in the order the
 * answers came, whichever test, sequence, sweep or walk made them. So the kit and the proxy cannot
 * disagree on the same exchanges.
 */
export interface RuleTally {
  rule: Rule;
  /** Exchanges judged against it. */
  checks: number;
  violations: number;
  /** The first violations, for the reports. */
  first: Violation[];
}

/** What became of one exchange. */
type Outcome =
  | { kind: 'judged'; violations: Violation[]; checked: string[] }
  /** A gateway's 502/503/504: none of the server's verdicts, neither judged nor learnt from. */
  | { kind: 'transient' }
  /** The judge itself broke on it (a bug of ours): nothing is held against the server. */
  | { kind: 'error'; message: string };

export interface Judging {
  /**
   * Judges the exchange, then learns from it. `seq` is its place in the session. `pending`: the
   * writes on their way as it was answered (sent before its answer, answered after it).
   */
  judge(exchange: Omit<ProxyExchange, 'seq'>, pending?: readonly PendingWrite[]): Outcome;
  /** Every rule of the set the judge can judge, in the catalogue's order. */
  tallies(): RuleTally[];
  /** Exchanges judged so far (transient answers aside). */
  readonly judged: number;
  readonly state: SessionState;
}

/** Violations kept per rule for the reports; the rest are counted. */
export const KEPT = 20;

/**
 * A violation as a tally keeps it for the whole session: its strings copied, for they are cut
 * from the answer, and V8 would keep the whole answer alive behind each cut.
 */
const keptViolation = (violation: Violation): Violation => ({
  ...violation,
  message: copy(violation.message),
  exchange: {
    ...violation.exchange,
    url: copy(violation.exchange.url),
    authorization: copy(violation.exchange.authorization),
    body: copy(violation.exchange.body),
  },
});

export function startJudging(
  ruleSet: RuleSet,
  options: {
    settleMs?: number;
    limits?: Partial<Limits>;
    soleWriter?: boolean;
    sawEveryCreate?: boolean;
  } = {},
): Judging {
  const state = newSession(
    { ...DEFAULT_LIMITS, ...options.limits },
    options.soleWriter,
    options.sawEveryCreate,
  );
  const tallies = new Map<string, RuleTally>(
    rulesOf(ruleSet).map((rule) => [rule.id, { rule, checks: 0, violations: 0, first: [] }]),
  );
  let seq = 0;
  return {
    state,
    get judged() {
      return seq;
    },
    tallies: () => [...tallies.values()].map((t) => ({ ...t, first: [...t.first] })),
    judge(seen, pending = []) {
      const exchange: ProxyExchange = { ...seen, seq: seq + 1 };
      const reading = read(exchange);
      // A gateway's 502/503/504 (the target's own, or of what stands in front of it) is none of
      // the server's verdicts. (One the client asked the mock for, `Prefer: code=503`, is judged
      // as forced answers are.)
      if (isTransientStatus(seen.status) && !reading.forced) return { kind: 'transient' };
      seq += 1;
      let judgement;
      try {
        judgement = judge(reading, state, ruleSet, options.settleMs, pending);
      } catch (error) {
        return { kind: 'error', message: String(error) };
      } finally {
        learn(state, reading, pending);
      }
      for (const id of judgement.checked) tallies.get(id)!.checks += 1;
      for (const violation of judgement.violations) {
        const tally = tallies.get(violation.rule)!;
        tally.violations += 1;
        if (tally.first.length < KEPT) tally.first.push(keptViolation(violation));
      }
      return { kind: 'judged', violations: judgement.violations, checked: judgement.checked };
    },
  };
}
