import fs from 'node:fs';
import path from 'node:path';
import type { ProfileRecord } from './observations';
import { config } from './config';

/** The random operation sequences of a run (probes/sequences.ts): how many ran, and a failure shrunk. */
export interface SequenceSummary {
  sequences: number;
  ran: number;
  seed: number;
  budget: number;
  requests: number;
  failure?: {
    rule: string;
    check?: string;
    reason: string;
    steps: string[];
    curl: string;
    shrinks: number;
  };
  /** Why no sequence could run, if none could. */
  notRun?: string;
}

/** A request and its answer, cut down for a report. */
export interface ExchangeExcerpt {
  method: string;
  path: string;
  sent?: string;
  status: number;
  body: string;
}

export type Verdict = 'pass' | 'fail' | 'not-run';

/**
 * What a test tells the bin beside jest's own result, one JSON line each, in files of the run's
 * results folder (one per process, so that parallel workers never interleave a line).
 */
export type RecordLine =
  | {
      kind: 'verdict';
      rule: string;
      test: string;
      verdict: Verdict | 'infra' | 'error';
      /** Which check of the rule failed. */
      check?: string;
      reason?: string;
      exchange?: ExchangeExcerpt;
    }
  | { kind: 'observe'; key: string; value: string }
  /** A server choice for --profile-out (profile/observe.ts). */
  | ProfileRecord
  | { kind: 'requests'; count: number }
  /** A transient answer put aside (common/transient.ts): its method, and the line that says method, URL, and status or error. */
  | { kind: 'transient'; method: string; what: string }
  | { kind: 'sequences'; summary: SequenceSummary }
  | {
      kind: 'created';
      resource: 'contact' | 'message';
      id: string;
      label: string;
      /** What tells this record from another that a server might later give the same id. */
      fingerprint?: string;
      /** A contact's conversation. */
      conversation?: string;
    }
  | {
      kind: 'deleted';
      resource: 'contact' | 'message';
      id: string;
      /**
       * 'delete': the server answered the kit's delete with success; 'gone': it was gone already;
       * 'cascade': a message the kit left to its contact's delete (model/data.ts `cleanup`).
       */
      by: 'delete' | 'gone' | 'cascade';
    };

/**
 * What tells a record the kit made from another one a server might later give the same id: when
 * it was made, and its username (a contact) or conversation (a message), none of which an update
 * changes.
 */
export function fingerprint(resource: 'contact' | 'message', item: Record<string, unknown>): string {
  return JSON.stringify([item.created_at, resource === 'contact' ? item.username : item.conversation_id]);
}

export function writeRecord(line: RecordLine): void {
  if (!config.resultsDir) return;
  fs.appendFileSync(
    path.join(config.resultsDir, `records-${process.pid}.jsonl`),
    `${JSON.stringify(line)}\n`,
  );
}

/**
 * The JSON lines of the run's results folder in its files whose name starts with `prefix` (one file
 * per process), file by file in the order of their names.
 */
export function readJsonLines<T>(dir: string, prefix: string): T[] {
  if (!fs.existsSync(dir)) return [];
  const lines: T[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    if (!name.startsWith(prefix)) continue;
    for (const text of fs.readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (text.trim() === '') continue;
      try {
        lines.push(JSON.parse(text) as T);
      } catch {
        // A line cut short by an interrupted worker: nothing in it can be trusted.
      }
    }
  }
  return lines;
}

export function readRecords(dir: string): RecordLine[] {
  return readJsonLines<RecordLine>(dir, 'records-');
}

/** Set by the bin when the run is interrupted: tests create nothing more after it. */
export function stopFile(dir: string): string {
  return path.join(dir, 'STOP');
}

export function stopRequested(): boolean {
  return config.resultsDir !== undefined && fs.existsSync(stopFile(config.resultsDir));
}

/**
 * Set when a request got no answer at all (after its retries): the run can no longer judge, so
 * the remaining tests stop at once instead of each waiting for its own timeouts.
 */
function unreachableFile(dir: string): string {
  return path.join(dir, 'UNREACHABLE');
}

export function markUnreachable(reason: string): void {
  if (config.resultsDir && fs.existsSync(config.resultsDir))
    fs.writeFileSync(unreachableFile(config.resultsDir), reason);
}

/**
 * The run's request budget is shared by every process (the bin and jest's workers): each request
 * adds its cost in bytes to a file of the run, and its size is what the run has spent. Returns
 * false, and spends nothing, when the cost does not fit in the budget (config.maxRequests; 0: none).
 */
export function spendRequests(cost: number): boolean {
  if (!config.resultsDir || config.maxRequests === 0) return true;
  const file = path.join(config.resultsDir, 'SPENT');
  const spent = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  if (spent + cost > config.maxRequests) return false;
  appendToRun(file, '.'.repeat(cost));
  return true;
}

/**
 * Appends to a file of the run's results folder, or does nothing once the folder is gone (the run
 * has ended under a request still on its way). Each request appends a few lines: no other check
 * of the folder is made first.
 */
export function appendToRun(file: string, text: string): void {
  try {
    fs.appendFileSync(file, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

export function unreachable(): string | undefined {
  if (!config.resultsDir) return undefined;
  const file = unreachableFile(config.resultsDir);
  // Asked before every request: a missing file is the rule, and no error is made for it.
  if (!fs.existsSync(file)) return undefined;
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
