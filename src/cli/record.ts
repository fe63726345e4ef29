import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { FixtureError } from '../fixtures';
import { convertRecording, type Conversion } from '../recording/convert';
import { writeFixture } from '../recording/output';
import { isRecordFailure, spoolAccount, type AccountWalk, type RecordProgress } from '../recording/recorder';
import { Spool } from '../recording/spool';

/** `messaging-fixtures --from <url> --token T`: a real account, recorded as a fixture of the mock. */
export interface RecordCliOptions {
  from: string;
  token: string;
  /** A file, or '-' for standard output. */
  out: string;
  anonymize: boolean;
  seed: number;
  /** Show a progress line (by default: when standard error is a terminal). */
  progress: boolean;
}

interface Output {
  write(chunk: string | Uint8Array): unknown;
  once?(event: 'drain', listener: () => void): unknown;
}

/**
 * Exit codes: 0 written, 1 the recording failed, 2 the options are at fault.
 *
 * The account is walked into a spool (a temporary file, see spool.ts), converted from it, and
 * written beside its destination under a temporary name, renamed over it at the end: the file is
 * whole or absent, and an existing file stays as it was until the new one is complete. With
 * `--out -` the fixture goes to standard output only once all of it converted. The spool and the
 * temporary file are removed on success, on failure and on an interruption.
 */
export async function recordFixture(
  options: RecordCliOptions,
  io: { stdout: Output; stderr: Output } = process,
): Promise<number> {
  const say = (line: string) => io.stderr.write(`${line}\n`);
  const refused = outProblem(options.out);
  if (refused) {
    say(`error: --out ${options.out}: ${refused}`);
    return 2;
  }
  const started = Date.now();
  const progress = options.progress ? progressLine(io.stderr, started) : undefined;
  let spool: Spool;
  try {
    spool = new Spool();
  } catch (error) {
    say(`error: no temporary folder to record into: ${(error as Error).message}`);
    return 1;
  }
  const temporary =
    options.out === '-'
      ? spool.file('fixture.json')
      : path.join(
          path.dirname(path.resolve(options.out)),
          `.${path.basename(options.out)}.${process.pid}.tmp`,
        );
  const cleanUp = () => {
    rmSync(temporary, { force: true });
    spool.remove();
  };
  const stage = { copying: false };
  // Signals are handled between two steps of the event loop (the long passes leave a step now and
  // then): never between the last write and the rename.
  const interrupted = () => {
    progress?.clear();
    cleanUp();
    say(
      stage.copying
        ? 'interrupted: standard output holds only part of the fixture'
        : 'interrupted: nothing was written',
    );
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  try {
    return await record(options, io, say, started, progress, spool, temporary, stage);
  } finally {
    process.off('SIGINT', interrupted);
    cleanUp();
  }
}

async function record(
  options: RecordCliOptions,
  io: { stdout: Output; stderr: Output },
  say: (line: string) => void,
  started: number,
  progress: ReturnType<typeof progressLine> | undefined,
  spool: Spool,
  temporary: string,
  stage: { copying: boolean },
): Promise<number> {
  let walk: AccountWalk;
  try {
    walk = await spoolAccount(
      { baseUrl: options.from, token: options.token, onProgress: progress?.update },
      spool,
    );
  } catch (error) {
    progress?.clear();
    if (isRecordFailure(error) && error.option) {
      say(`error: ${error.message}`);
      return 2;
    }
    say(`error: the recording failed, and nothing was written: ${(error as Error).message}`);
    return 1;
  }
  progress?.clear();
  const seconds = (Date.now() - started) / 1000;

  const cannotWrite = (error: unknown) => {
    say(
      `error: --out ${options.out}: cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
    return 1;
  };
  let fd: number;
  try {
    mkdirSync(path.dirname(temporary), { recursive: true });
    fd = openSync(temporary, 'w');
  } catch (error) {
    return cannotWrite(error);
  }
  let conversion: Conversion;
  let writeError: unknown;
  try {
    conversion = await convertRecording(spool.source(walk.baseUrl, walk.ordered), options.seed);
    // In pieces of 64 kB: one write per record would be a system call each, and pieces of a
    // megabyte live long enough to be promoted to the old generation, where they pile up as garbage.
    let pending = '';
    const flush = () => {
      try {
        writeSync(fd, pending);
      } catch (error) {
        writeError = error;
        throw error;
      }
      pending = '';
    };
    await writeFixture(conversion, options, (text) => {
      pending += text;
      if (pending.length >= 1 << 16) flush();
    });
    flush();
  } catch (error) {
    if (writeError !== undefined) return cannotWrite(writeError);
    if (!(error instanceof FixtureError)) throw error;
    say(
      `error: the server's answers cannot be made into a fixture, and nothing was written: ${error.path}: ${error.message}`,
    );
    return 1;
  } finally {
    closeSync(fd);
  }
  for (const line of summary(walk, conversion, seconds, options)) say(line);
  if (options.out === '-') {
    stage.copying = true;
    await copyTo(temporary, io.stdout);
  } else {
    try {
      renameSync(temporary, options.out);
    } catch (error) {
      return cannotWrite(error);
    }
    say(`wrote ${options.out}`);
  }
  return 0;
}

/** A file to an output stream, a megabyte at a time, waiting when the stream asks to. */
async function copyTo(file: string, out: Output): Promise<void> {
  const fd = openSync(file, 'r');
  try {
    for (;;) {
      const chunk = Buffer.alloc(1 << 20);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return;
      if (out.write(chunk.subarray(0, n)) === false && out.once)
        await new Promise<void>((resolve) => out.once!('drain', resolve));
    }
  } finally {
    closeSync(fd);
  }
}

/** Why the output file cannot be written, said before a long recording rather than after it. */
function outProblem(out: string): string | undefined {
  if (out === '-') return undefined;
  const file = path.resolve(out);
  if (existsSync(file) && statSync(file).isDirectory()) return 'is a folder; give the path of a file';
  let dir = path.dirname(file);
  while (!existsSync(dir)) dir = path.dirname(dir);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return `cannot be written: the folder ${dir} is not writable`;
  }
  return undefined;
}

const count = (n: number) => n.toLocaleString('en');

function summary(walk: AccountWalk, converted: Conversion, seconds: number, options: RecordCliOptions) {
  const { contacts, messages } = converted;
  const rate = seconds > 0 ? `, ${count(Math.round(messages / seconds))} messages/s` : '';
  const lines = [
    `recorded ${walk.baseUrl}: ${count(contacts)} contacts, ${count(messages)} messages in ${seconds.toFixed(1)} s (${count(walk.requests)} requests${rate}${walk.paging ? `; next pages by ${walk.paging}` : ''})`,
  ];
  if (converted.conversions.length === 0)
    lines.push("nothing to convert: the answers follow the mock's conventions");
  else {
    lines.push("converted to the mock's conventions:");
    for (const { what, count: n } of converted.conversions) lines.push(`  ${what} (${count(n)})`);
  }
  if (converted.warnings.length > 0) {
    lines.push('warnings:');
    for (const { what, count: n, example } of converted.warnings)
      lines.push(`  ${what} (${count(n)}; first: ${example})`);
  }
  const notes = [...walk.notes, ...converted.notes];
  if (notes.length > 0) {
    lines.push('notes:');
    for (const note of notes) lines.push(`  ${note}`);
  }
  if (options.anonymize)
    lines.push(
      `anonymized (seed ${options.seed}): names, usernames, phone numbers, avatars, texts and file names are faker's`,
    );
  return lines;
}

/** A line on a terminal, redrawn at most ten times a second: contacts, conversations, messages, a rate. */
export function progressLine(stream: Output, started: number, now: () => number = Date.now) {
  let drawn = 0;
  let shown = false;
  return {
    update: (p: RecordProgress) => {
      const time = now();
      if (time - drawn < 100) return;
      drawn = time;
      const seconds = Math.max((time - started) / 1000, 0.001);
      const rate = `${count(Math.round(p.messages / seconds))} messages/s`;
      const line =
        p.phase === 'contacts'
          ? `listing contacts… (${count(p.requests)} requests)`
          : p.phase === 'conversations'
            ? `${count(p.conversationsWalked)} / ${count(p.contacts)} conversations, ${count(p.messages)} messages, ${rate}`
            : `${count(p.contacts)} conversations done; listing every message for its order: ${count(p.messages)}, ${rate}`;
      stream.write(`\r\x1b[K${line}`);
      shown = true;
    },
    clear: () => {
      if (shown) stream.write('\r\x1b[K');
      shown = false;
    },
  };
}
