import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { FixtureError, fixtureJson, validateFixture } from '../fixtures';
import { anonymize } from '../recording/anonymize';
import { toFixture, type Converted } from '../recording/convert';
import {
  checkRecorded,
  isRecordFailure,
  loadRecorder,
  type RecordedAccount,
  type RecordProgress,
} from '../recording/recorder';
import { World } from '../store/world';

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
  write(text: string): unknown;
}

/** Exit codes: 0 written, 1 the recording failed, 2 the options are at fault. */
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
  // Signals are handled between two steps of the event loop: never between the write and the rename.
  const interrupted = () => {
    progress?.clear();
    say('interrupted: nothing was written');
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  try {
    return await record(options, io, say, started, progress);
  } finally {
    process.off('SIGINT', interrupted);
  }
}

async function record(
  options: RecordCliOptions,
  io: { stdout: Output; stderr: Output },
  say: (line: string) => void,
  started: number,
  progress: ReturnType<typeof progressLine> | undefined,
): Promise<number> {
  let account: RecordedAccount;
  try {
    account = checkRecorded(
      await loadRecorder().recordAccount({
        baseUrl: options.from,
        token: options.token,
        onProgress: progress?.update,
      }),
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

  let converted: Converted;
  let text: string;
  try {
    converted = toFixture(account, options.seed);
    const data = options.anonymize ? anonymize(converted.data, options.seed) : converted.data;
    // The checks of --fixtures, then in the order GET /__mock/state lists a world: oldest first.
    text = fixtureJson(World.fromData(validateFixture(data)).toData());
  } catch (error) {
    if (!(error instanceof FixtureError)) throw error;
    say(
      `error: the server's answers cannot be made into a fixture, and nothing was written: ${error.path}: ${error.message}`,
    );
    return 1;
  }
  for (const line of summary(account, converted, seconds, options)) say(line);
  if (options.out === '-') io.stdout.write(text);
  else {
    try {
      writeAtomically(options.out, text);
    } catch (error) {
      say(
        `error: --out ${options.out}: cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
      return 1;
    }
    say(`wrote ${options.out}`);
  }
  return 0;
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

/**
 * The whole file or nothing: written beside its destination under a temporary name, then renamed
 * over it, so that a failure (or an interruption) never leaves half a fixture, and an existing
 * file stays as it was until the new one is complete.
 */
function writeAtomically(file: string, text: string): void {
  const dir = path.dirname(path.resolve(file));
  mkdirSync(dir, { recursive: true });
  const temporary = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

const count = (n: number) => n.toLocaleString('en');

function summary(account: RecordedAccount, converted: Converted, seconds: number, options: RecordCliOptions) {
  const { contacts, messages } = converted.data;
  const rate = seconds > 0 ? `, ${count(Math.round(messages.length / seconds))} messages/s` : '';
  const lines = [
    `recorded ${account.baseUrl}: ${count(contacts.length)} contacts, ${count(messages.length)} messages in ${seconds.toFixed(1)} s (${count(account.requests)} requests${rate}${account.paging ? `; next pages by ${account.paging}` : ''})`,
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
  const notes = [...account.notes, ...converted.notes];
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
