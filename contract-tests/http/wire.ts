import fs from 'node:fs';
import path from 'node:path';
import type { ProxyExchange } from './exchange';
import { config } from './config';
import { readJsonLines } from './records';

/**
 * Every exchange the kit makes, as it went over the wire: what the one judge (judge/judging.ts,
 * the proxy's) needs to judge it after the run, whichever test, sequence, sweep or walk made it.
 * One JSON line each, in a file of the run's results folder per process, like the records.
 */
export interface WireRecord {
  method: string;
  /** Path and query, from /v1 (the base URL's own path left out). */
  url: string;
  /** Lower-case names: the Authorization and Content-Type sent, and any other header the kit set. */
  requestHeaders: Record<string, string>;
  /** The body sent, as text. */
  requestBody?: string;
  status: number;
  /** Lower-case names; the body below is already decoded, so no Content-Encoding. */
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** When the request was sent and its answer read (ms since the epoch, one clock for the run). */
  startedAt: number;
  finishedAt: number;
}

const fileOf = (dir: string) => path.join(dir, `exchanges-${process.pid}.jsonl`);

export function recordWire(record: WireRecord): void {
  if (!config.resultsDir || !fs.existsSync(config.resultsDir)) return;
  fs.appendFileSync(fileOf(config.resultsDir), `${JSON.stringify(record)}\n`);
}

/** The run's exchanges, from every process, in the order their answers came. */
export function readWire(dir: string): WireRecord[] {
  return readJsonLines<WireRecord>(dir, 'exchanges-').sort(
    (a, b) => a.finishedAt - b.finishedAt || a.startedAt - b.startedAt,
  );
}

/** The exchange as the proxy would have seen it pass. */
export function asProxyExchange(record: WireRecord, seq: number): ProxyExchange {
  const { 'content-encoding': _encoding, ...responseHeaders } = record.responseHeaders;
  return {
    seq,
    method: record.method,
    url: record.url,
    requestHeaders: record.requestHeaders,
    ...(record.requestBody !== undefined ? { requestBody: Buffer.from(record.requestBody) } : {}),
    status: record.status,
    responseHeaders,
    responseBody: Buffer.from(record.responseBody),
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
  };
}
