import { config } from '../http/config';
import {
  describeExchange,
  InfraError,
  is2xx,
  is4xx,
  onExchange,
  requestsSinceLastCount,
  type Exchange,
} from '../http/http';
import { writeRecord, type ExchangeExcerpt } from '../http/records';
import { findRule, type Rule } from '../rules/rules';
import '../profile/choices';

/** Which check of a rule failed, and the rule when it is not the one of the test that found it. */
export interface FailureOf {
  /** The rule broken; by default the rule of the test that found it. */
  rule?: string;
  /** The check of the rule, e.g. "contacts list" or "has_more on an exactly full last page". */
  check?: string;
}

/** The server broke the rule: a verdict of fail, with the exchange that shows it. */
export class RuleFailure extends Error {
  override name = 'RuleFailure';
  constructor(
    message: string,
    readonly exchange?: Exchange,
    readonly of: FailureOf = {},
  ) {
    super(exchange ? `${message}\n  ${describeExchange(exchange)}` : message);
    if (of.rule !== undefined && !findRule(of.rule))
      throw new Error(`a check names the unknown rule "${of.rule}"`);
  }
}

/** The rule could not be judged on this server (e.g. no next-page mechanism): a verdict of not run. */
export class NotRun extends Error {
  override name = 'NotRun';
}

/** Data a rule needs could not be made; the rule that covers making it says why. */
export class SetupFailure extends NotRun {
  override name = 'SetupFailure';
}

export function excerpt(exchange: Exchange, max = 600): ExchangeExcerpt {
  return {
    method: exchange.method,
    path: exchange.path,
    ...(exchange.sent !== undefined ? { sent: exchange.sent.slice(0, 300) } : {}),
    status: exchange.status,
    body: exchange.text.length > max ? `${exchange.text.slice(0, max)}…` : exchange.text,
  };
}

/** What a rule's test works with: its checks, and every exchange it made. */
export class RuleContext {
  readonly exchanges: Exchange[] = [];
  constructor(readonly rule: Rule) {}

  get last(): Exchange | undefined {
    return this.exchanges[this.exchanges.length - 1];
  }

  fail(message: string, exchange?: Exchange, of?: FailureOf): never {
    throw new RuleFailure(message, exchange, of);
  }

  check(condition: unknown, message: string, exchange?: Exchange, of?: FailureOf): asserts condition {
    if (!condition) this.fail(message, exchange, of);
  }

  notRun(reason: string): never {
    throw new NotRun(reason);
  }

  /** The documented rule set takes any 2xx as success (status codes are not shown). */
  success(exchange: Exchange, what: string): void {
    this.check(is2xx(exchange), `${what}: expected a 2xx answer, got ${exchange.status}`, exchange);
  }

  /** ...and any 4xx as a refusal. */
  refusal(exchange: Exchange, what: string): void {
    this.check(is4xx(exchange), `${what}: expected a refusal (4xx), got ${exchange.status}`, exchange);
  }

  /** A successful answer whose body is a JSON object. */
  object(exchange: Exchange, what: string): Record<string, unknown> {
    this.success(exchange, what);
    const body = exchange.body;
    // A success without a JSON object breaks the document's answer format, whatever the rule.
    this.check(
      body !== null && typeof body === 'object' && !Array.isArray(body),
      `${what}: expected a JSON object in the body`,
      exchange,
      { rule: 'api.json-objects', check: 'a JSON object' },
    );
    return body as Record<string, unknown>;
  }

  /** An exact status, for the mock rule set's conventions. */
  status(exchange: Exchange, status: number, what: string): void {
    this.check(exchange.status === status, `${what}: expected ${status}, got ${exchange.status}`, exchange);
  }
}

/**
 * What the test of a rule the judge alone decides works with (rules.ts `decidedByJudge`): the
 * requests it sends, and `notRun` when it cannot send them. A check there is a bug of the kit's
 * (the verdict is the judge's), and ends the run as one.
 */
class TrafficContext extends RuleContext {
  override check(_condition: unknown, message: string): asserts _condition {
    throw new Error(
      `${this.rule.id} is decided by the judge alone (rules.ts): its test sends requests and checks nothing, but it checked "${message}"`,
    );
  }
}

/** The context a rule's test works with: one that refuses every check, for a rule the judge alone decides. */
export const contextOf = (rule: Rule): RuleContext =>
  rule.decidedByJudge ? new TrafficContext(rule) : new RuleContext(rule);

function inRuleSet(rule: Rule): boolean {
  return rule.ruleSet === 'documented' || config.ruleSet === 'mock';
}

/**
 * Declares the test of one rule. The title starts with the rule id in brackets; that is how
 * verdicts, `--rule` and the catalogue check find it. Rules outside the run's rule set are not declared.
 */
export function rule(
  id: string,
  title: string,
  fn: (t: RuleContext) => Promise<void>,
  timeoutMs?: number,
): void {
  const found = findRule(id);
  if (!found)
    throw new Error(
      `The test "${title}" names the rule "${id}", which is not in contract-tests/rules/rules.ts.`,
    );
  if (!inRuleSet(found)) return;
  const name = `[${id}] ${title}`;
  test(
    name,
    async () => {
      const t = contextOf(found);
      const stop = onExchange((exchange) => t.exchanges.push(exchange));
      try {
        await fn(t);
        writeRecord({ kind: 'verdict', rule: id, test: name, verdict: 'pass' });
      } catch (error) {
        if (error instanceof NotRun) {
          writeRecord({ kind: 'verdict', rule: id, test: name, verdict: 'not-run', reason: error.message });
          return;
        }
        if (error instanceof InfraError) {
          writeRecord({ kind: 'verdict', rule: id, test: name, verdict: 'infra', reason: error.message });
          throw error;
        }
        const failed = error instanceof RuleFailure ? (error.exchange ?? t.last) : t.last;
        const isAssertion =
          error instanceof RuleFailure || (error as { matcherResult?: unknown }).matcherResult !== undefined;
        const broken = error instanceof RuleFailure ? (error.of.rule ?? id) : id;
        writeRecord({
          kind: 'verdict',
          rule: broken,
          test: name,
          verdict: isAssertion ? 'fail' : 'error',
          ...(error instanceof RuleFailure && error.of.check ? { check: error.of.check } : {}),
          reason:
            error instanceof RuleFailure
              ? error.message.split('\n')[0]
              : String((error as Error).stack ?? error),
          ...(failed ? { exchange: excerpt(failed) } : {}),
        });
        if (broken !== id) {
          // The test of this rule found another rule broken on its way: that rule fails, and
          // this one could not be judged past that point.
          writeRecord({
            kind: 'verdict',
            rule: id,
            test: name,
            verdict: 'not-run',
            reason: `stopped: on the way, the server broke ${broken} (see there)`,
          });
          return;
        }
        throw error;
      } finally {
        stop();
        writeRecord({ kind: 'requests', count: requestsSinceLastCount() });
      }
    },
    timeoutMs ?? Math.max(120_000, config.timeoutMs * 12),
  );
}
