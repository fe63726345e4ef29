import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RuleSet } from '../rules/rules';
import type { PendingWrite } from '../http/exchange';
import { createForwarder, type TargetProblem } from './forward';
import { KEPT, startJudging, type RuleTally } from '../judge/judging';
import type { Violation } from '../judge/verdicts';
import { DEFAULT_LIMITS, type Limits } from '../judge/memory';

/**
 * A proxy session: the forwarder in front of the target, the judge after every answer, and the
 * tally the reports are made from. Violations and target problems are printed as they happen.
 */
export interface ProxyOptions {
  target: string;
  port?: number;
  host?: string;
  ruleSet: RuleSet;
  timeoutMs?: number;
  keepBytes?: number;
  /** What it may remember of the tokens' worlds (judge/memory.ts); the defaults otherwise. */
  limits?: Partial<Limits>;
  /** Where the lines go (the console by default). */
  print?: (line: string) => void;
  /** How long a list may take to show a write (--settle-ms); 0: at once. */
  settleMs?: number;
}

export interface ProxyResult {
  target: string;
  ruleSet: RuleSet;
  startedAt: string;
  durationMs: number;
  /** Exchanges that got a whole answer from the target, all judged. */
  exchanges: number;
  /** What the target could not answer, never a rule violation. */
  targetProblems: TargetProblem[];
  /** Every rule this rule set lets the proxy judge, in the catalogue's order. */
  rules: RuleTally[];
  /** What it remembered, within which bounds, and what it forgot to stay within them. */
  memory: MemorySummary;
  exitCode: 0 | 1;
}

interface MemorySummary {
  limits: Limits;
  /** Tokens whose world it keeps now, and the bytes it counts for them: now, and at most. */
  tokens: number;
  bytes: number;
  peakBytes: number;
  /** Tokens forgotten whole (least recently used), and records forgotten from tokens kept. */
  forgottenTokens: number;
  forgottenRecords: number;
}

export interface RunningProxy {
  url: string;
  /** The tally so far. */
  result(): ProxyResult;
  /** Stops listening, lets the answers under way finish, and gives the tally. */
  close(): Promise<ProxyResult>;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_KEEP_BYTES = 8 * 1024 * 1024;
const PROBLEMS_KEPT = 100;

/** A target URL the proxy can forward to, or why not. */
export function parseTarget(target: string): URL {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new Error(`the target ${JSON.stringify(target)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`the target ${JSON.stringify(target)} is not an http(s) URL`);
  if (url.search || url.hash) throw new Error(`the target ${JSON.stringify(target)} has a query or fragment`);
  // The API's paths start with /v1: the target is the server's root, as for the kit.
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '') || '/';
  return url;
}

function violationLine(violation: Violation): string {
  const e = violation.exchange;
  return `VIOLATION ${violation.rule} (§${violation.section}): ${violation.message} — #${e.seq} ${e.method} ${e.url} → ${e.status} [${e.authorization}]`;
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const target = parseTarget(options.target);
  const print = options.print ?? ((line: string) => console.log(line));
  const started = Date.now();
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const judging = startJudging(options.ruleSet, { settleMs: options.settleMs, limits });
  const targetProblems: TargetProblem[] = [];
  const targetProblem = (problem: TargetProblem) => {
    if (targetProblems.length < PROBLEMS_KEPT) targetProblems.push(problem);
    print(
      `TARGET ${problem.kind}: ${problem.method} ${problem.url}${problem.status ? ` → ${problem.status}` : ''}: ${problem.message} (not a rule violation)`,
    );
  };
  const printed = new Map<string, number>();
  // Writes on their way: an exchange answered meanwhile is judged knowing they may have been applied.
  const pending = new Set<PendingWrite>();
  const server: Server = createForwarder({
    target,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    keepBytes: options.keepBytes ?? DEFAULT_KEEP_BYTES,
    onRequest(request) {
      if (['GET', 'HEAD', 'OPTIONS'].includes(request.method)) return () => {};
      pending.add(request);
      return () => pending.delete(request);
    },
    onExchange(seen) {
      const outcome = judging.judge(seen, [...pending]);
      if (outcome.kind === 'transient') {
        // A gateway's 502/503/504 is none of the server's verdicts: neither judged nor learnt from.
        targetProblem({
          kind: 'transient',
          method: seen.method,
          url: seen.url,
          message: 'a transient answer (a gateway could not get the server to answer), not judged',
          status: seen.status,
        });
        return;
      }
      if (outcome.kind === 'error') {
        print(`the proxy could not judge #${judging.judged} ${seen.method} ${seen.url}: ${outcome.message}`);
        return;
      }
      for (const violation of outcome.violations) {
        const count = (printed.get(violation.rule) ?? 0) + 1;
        printed.set(violation.rule, count);
        if (count > KEPT) continue;
        print(violationLine(violation));
        if (count === KEPT)
          print(`(further violations of ${violation.rule} are counted, and no longer printed)`);
      }
    },
    onTargetProblem: (problem) => targetProblem(problem),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const result = (): ProxyResult => {
    const rules = judging.tallies();
    const { state } = judging;
    return {
      target: target.href.replace(/\/$/, ''),
      ruleSet: options.ruleSet,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      exchanges: judging.judged,
      targetProblems: [...targetProblems],
      rules,
      memory: {
        limits,
        tokens: state.worlds.size,
        bytes: state.memory.bytes,
        peakBytes: state.memory.peakBytes,
        forgottenTokens: state.memory.forgotten.tokens,
        forgottenRecords: state.memory.forgotten.records,
      },
      exitCode: rules.some((t) => t.violations > 0) ? 1 : 0,
    };
  };
  return {
    url: `http://${host}:${address.port}`,
    result,
    close: () =>
      new Promise((resolve) => {
        server.close(() => setImmediate(() => resolve(result())));
        server.closeIdleConnections();
        // Answers under way get a moment to finish; then every connection goes.
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      }),
  };
}
