import fs from 'node:fs';
import path from 'node:path';
import type { ProxyExchange } from './exchange';
import { config } from './config';
import { appendToRun, readJsonLines } from './records';

/**
 * Every exchange the kit makes, as it went over the wire: what the one judge (judge/judging.ts,
 * the proxy's) needs to judge it after the run, whichever test, sequence, sweep or walk made it.
 * One JSON line each, in a file of the run's results folder per process, like the records.
 *
 * It is the exchange the proxy sees pass (ProxyExchange), but for its place in a session, with both
 * bodies as text, since a JSON line holds no bytes. `url` is the path and query from /v1 (the base
 * URL's own path left out); the request's headers are the Authorization and Content-Type sent and any
 * other the kit set; the answer's body is already decoded, so its headers hold no Content-Encoding;
 * `startedAt` and `finishedAt` are when the request was sent and its answer read (one clock for the run).
 */
export interface WireRecord extends Omit<ProxyExchange, 'seq' | 'requestBody' | 'responseBody'> {
  /** The body sent, as text. */
  requestBody?: string;
  responseBody: string;
}

const PREFIX = 'exchanges-';
const fileOf = (dir: string) => path.join(dir, `${PREFIX}${process.pid}.jsonl`);

/** The processes that recorded exchanges in a run's results folder, by pid. */
export function wireProcesses(dir: string): number[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.startsWith(PREFIX) && name.endsWith('.jsonl'))
    .map((name) => Number(name.slice(PREFIX.length, -'.jsonl'.length)));
}

export function recordWire(record: WireRecord): void {
  if (config.resultsDir) appendToRun(fileOf(config.resultsDir), `${JSON.stringify(record)}\n`);
}

/** The run's exchanges, from every process, in the order their answers came. */
export function readWire(dir: string): WireRecord[] {
  return readJsonLines<WireRecord>(dir, PREFIX).sort(
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
