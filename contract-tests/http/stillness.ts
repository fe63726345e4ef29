import fs from 'node:fs';
import path from 'node:path';
import { config } from './config';

/**
 * The kit's own writes, from every process of the run, and the walks that must not move under
 * them. A list walked while one of the kit's writes was on its way may move under the walk: on a
 * server that pages by position (`page=N`, `offset=N`), a record created ahead of the cursor
 * shows again on the next page, one deleted behind it lets another slip past; on one that orders
 * by activity, a contact with a new message jumps to the top. Neither is a fault of the server.
 * With several workers, every test's writes reach the lists that other tests walk (the contacts
 * list, the messages of all conversations): so a walk of such a list asks for a quiet window,
 * and writes wait for it to end; a conversation's own list is written by its test alone.
 *
 * Each process notes its writes in `writes-<pid>.jsonl` of the run's results folder: a line when
 * one starts, a line when it ends. A walk notes itself in a `quiet-<pid>-<n>` file: a write that
 * finds one waits (announcing itself first, so that one of the two always sees the other).
 */

/** A write started (s), ended (f), or held back before it was sent (held): then it never was. */
type WriteLine = { id: string; s?: number; f?: number; held?: true };

const POLL_MS = 10;
/** How long a write waits for quiet windows to end, and a walk for writes on their way. */
const MAX_WAIT_MS = 30_000;

let counter = 0;
const dir = () => (config.resultsDir && fs.existsSync(config.resultsDir) ? config.resultsDir : undefined);
const note = (folder: string, line: WriteLine) =>
  fs.appendFileSync(path.join(folder, `writes-${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A quiet window of another process that is still alive. */
function othersQuiet(folder: string): boolean {
  for (const name of fs.readdirSync(folder)) {
    const pid = /^quiet-(\d+)-/.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid) continue;
    // A window whose process is gone closed with it.
    if (alive(Number(pid))) return true;
  }
  return false;
}

/**
 * Called before one of the kit's writes with the run's token is sent: waits while another
 * process walks a list in a quiet window. Returns the write's id, for `writeEnded`.
 */
export async function writeStarting(): Promise<string | undefined> {
  const folder = dir();
  if (!folder) return undefined;
  const id = `${process.pid}:${++counter}`;
  const until = Date.now() + MAX_WAIT_MS;
  for (;;) {
    note(folder, { id, s: Date.now() });
    if (!othersQuiet(folder) || Date.now() > until) return id;
    note(folder, { id, held: true });
    while (othersQuiet(folder) && Date.now() <= until) await sleep(POLL_MS);
  }
}

export function writeEnded(id: string | undefined): void {
  const folder = dir();
  if (id !== undefined && folder) note(folder, { id, f: Date.now() });
}

type Write = { s: number; f: number | undefined; settled: number };

/**
 * What this process has read of one results folder's write ledgers (every process's), read on
 * from where it stopped at each call: a walk asks many times a second while it waits.
 */
interface Ledger {
  /** Bytes read so far of each ledger file, up to its last whole line. */
  read: Map<string, number>;
  byId: Map<string, Write>;
  /** Other processes' writes still on their way (no end read yet), for the look at their pids. */
  open: Set<string>;
}
const ledgers = new Map<string, Ledger>();

/**
 * The kit's writes (every process), each with when it started and ended (undefined: on its way),
 * and when it may have stopped moving the lists: the settle window (--settle-ms) after it ended for
 * another process's write. This process's own writes its tests wait out themselves (model/settle.ts).
 */
function writes(folder: string): Iterable<Write> {
  let ledger = ledgers.get(folder);
  if (!ledger) ledgers.set(folder, (ledger = { read: new Map(), byId: new Map(), open: new Set() }));
  const own = `${process.pid}:`;
  for (const name of fs.readdirSync(folder)) {
    if (!name.startsWith('writes-')) continue;
    for (const line of linesAfter(path.join(folder, name), ledger.read)) {
      if (line.s !== undefined) {
        ledger.byId.set(line.id, { s: line.s, f: undefined, settled: Infinity });
        if (!line.id.startsWith(own)) ledger.open.add(line.id);
      } else if (line.held) {
        ledger.byId.delete(line.id);
        ledger.open.delete(line.id);
      } else if (line.f !== undefined && ledger.byId.has(line.id)) {
        Object.assign(ledger.byId.get(line.id)!, {
          f: line.f,
          settled: line.f + (line.id.startsWith(own) ? 0 : config.settleMs),
        });
        ledger.open.delete(line.id);
      }
    }
  }
  // A write whose process is gone (a worker that ended with a request in flight) never notes its
  // end: it ended when it was found gone, as a quiet window closes with its process.
  const now = Date.now();
  for (const id of ledger.open)
    if (!alive(Number(id.split(':')[0]))) {
      Object.assign(ledger.byId.get(id)!, { f: now, settled: now + config.settleMs });
      ledger.open.delete(id);
    }
  return ledger.byId.values();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The whole lines a ledger file gained since the last call (a write's lines are all in its own
 * process's file, in order). A line still being appended waits for the next call.
 */
function linesAfter(file: string, read: Map<string, number>): WriteLine[] {
  const from = read.get(file) ?? 0;
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return [];
  }
  if (size <= from) return [];
  const bytes = Buffer.alloc(size - from);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, bytes, 0, bytes.length, from);
  } finally {
    fs.closeSync(fd);
  }
  const whole = bytes.lastIndexOf(0x0a) + 1;
  read.set(file, from + whole);
  const lines: WriteLine[] = [];
  for (const text of bytes.subarray(0, whole).toString('utf8').split('\n')) {
    if (text.trim() === '') continue;
    try {
      lines.push(JSON.parse(text) as WriteLine);
    } catch {
      // A line cut short by an interrupted worker: nothing in it can be trusted.
    }
  }
  return lines;
}

/**
 * Whether the lists held still from `from` to `to` as far as the kit's own writes go: none was on
 * its way then, nor (another process's) ended within the settle window (--settle-ms) before. Without a results
 * folder (the kit's files run by a team's own jest config), nothing is known against it.
 */
export function heldStill(from: number, to: number): boolean {
  const folder = dir();
  if (!folder) return true;
  for (const w of writes(folder)) if (w.s <= to && w.settled >= from) return false;
  return true;
}

/**
 * Runs `walk` in a quiet window: the other processes' writes wait until it ends, and it starts
 * once the writes on their way have ended, and the settle window (--settle-ms) after the other
 * processes' last write has passed. Its own process makes no write while walking.
 */
export async function inQuiet<T>(walk: () => Promise<T>): Promise<T> {
  const folder = dir();
  if (!folder) return walk();
  const file = path.join(folder, `quiet-${process.pid}-${++counter}`);
  fs.writeFileSync(file, '');
  try {
    const until = Date.now() + MAX_WAIT_MS;
    // Writes on their way, and others' that ended within the settle window: lists may still move.
    const busy = () => {
      const now = Date.now();
      for (const w of writes(folder)) if (w.settled >= now) return true;
      return false;
    };
    while (busy() && Date.now() <= until) await sleep(POLL_MS);
    return await walk();
  } finally {
    fs.rmSync(file, { force: true });
  }
}
