/**
 * Soak of the recorder: `messaging-fixtures --from` on a large account, its memory measured
 * (`npm run soak -- --only recorder [--messages 1000000] [--contacts 10000] [--max-rss-mb 1024]
 * [--skip-distinct]`).
 *
 * Starts the mock as a process with a world of that size (the account to record), then runs the
 * built recorder as a process of its own: once on an empty account (its baseline), then on the
 * large one, plain and with --anonymize; then (unless --skip-distinct), anonymized, on the same
 * world with every message's text made distinct, the anonymizer's worst case (it keeps a fake
 * for each distinct original). For each it samples the recorder's peak resident set
 * size (VmHWM in /proc/<pid>/status, Linux) every 20 ms, and prints the messages, the seconds,
 * messages/s, the peak RSS and the bytes per message: (peak − baseline) / messages; and the
 * heap held, the largest heap a full collection left (V8's --trace-gc: what the process holds,
 * without the garbage RSS also counts, and without typed arrays), per message likewise. The plain
 * file must be the mock's own `GET /__mock/state`, byte for byte but for the indenting (both
 * hashed as they stream); the anonymized one must be a fixture the mock starts with and serves
 * back the same. The section fails
 * when a file is not what it must be, or a recording's peak passes --max-rss-mb.
 *
 * Only loopback traffic. Needs `npm run build` (it runs dist/cli/bin.js and dist/cli/fixtures-cli.js).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { SectionResult, SoakOptions } from './mock';

const ROOT = path.join(__dirname, '..', '..');
const MOCK = path.join(ROOT, 'dist', 'cli', 'bin.js');
const RECORDER = path.join(ROOT, 'dist', 'cli', 'fixtures-cli.js');

interface RecorderSoakOptions {
  contacts: number;
  messages: number;
  /** The bound a recording's peak RSS must stay within, in MB. */
  maxRssMb: number;
  /** Also record, anonymized, an account whose every message text differs from every other. */
  distinctTexts: boolean;
}

interface RecorderSoakRow {
  what: string;
  messages: number;
  seconds: number;
  peakRssMb: number;
  /** (peak − baseline) / messages; undefined for the baseline itself. */
  bytesPerMessage?: number;
  /** The largest heap a full collection left (V8's --trace-gc), typed arrays not included. */
  heldMb: number;
  /** (held − baseline's) / messages; undefined for the baseline itself. */
  heldPerMessage?: number;
  /** Whether the file is what it must be. */
  same: boolean;
}

interface Mock {
  url: string;
  stop(): Promise<void>;
}

async function startMock(args: string[]): Promise<Mock> {
  const child = spawn(process.execPath, [MOCK, '--host', '127.0.0.1', '--port', '0', '--quiet', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('exit', (code) => reject(new Error(`the mock exited (${code}) before listening: ${output}`)));
  });
  // Keep reading: a full pipe would stall the mock.
  child.stdout.resume();
  child.stderr.resume();
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A request to the mock, its answer's body streamed into a SHA-256 (or collected when small). */
function request(
  url: string,
  token: string,
  method = 'GET',
  body?: string,
): Promise<{ status: number; sha256: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
      },
      (res) => {
        const hash = createHash('sha256');
        let text = '';
        res.on('data', (chunk: Buffer) => {
          hash.update(chunk);
          if (text.length < 4096) text += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, sha256: hash.digest('hex'), text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The SHA-256 of a JSON file with the whitespace outside its strings taken out: of a file that
 * JSON.stringify indented, the bytes JSON.stringify gives without indenting, which is what
 * `GET /__mock/state` answers. Streamed: a file of a million messages is never one string here.
 */
function compactSha256(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    let inString = false;
    let escaped = false;
    createReadStream(file)
      .on('data', (data: string | Buffer) => {
        const chunk = Buffer.from(data);
        const kept = Buffer.allocUnsafe(chunk.length);
        let n = 0;
        for (const byte of chunk) {
          if (inString) {
            if (escaped) escaped = false;
            else if (byte === 0x5c) escaped = true;
            else if (byte === 0x22) inString = false;
          } else if (byte === 0x22) inString = true;
          else if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
          kept[n++] = byte;
        }
        hash.update(kept.subarray(0, n));
      })
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}

/** The peak resident set size so far of a running process, in kB (VmHWM); NaN once it is gone. */
function peakKb(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/** The built recorder as a process, its peak RSS sampled until it ends. */
function runRecorder(
  args: string[],
): Promise<{ code: number | null; seconds: number; peakMb: number; heldMb: number; stderr: string }> {
  return new Promise((resolve) => {
    const began = process.hrtime.bigint();
    // V8 says after each full collection how large the heap still is: what the process holds,
    // unlike RSS, which also counts the garbage V8 lets pile up before it collects.
    const child = spawn(process.execPath, ['--trace-gc', RECORDER, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let held = 0;
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const after = / Mark-Compact [\d.]+ \([\d.]+\) -> ([\d.]+) \(/.exec(line);
        if (after) held = Math.max(held, Number(after[1]));
      }
    });
    let peak = 0;
    const sample = () => {
      const kb = peakKb(child.pid!);
      if (kb > peak) peak = kb;
    };
    const timer = setInterval(sample, 20);
    child.once('close', (code) => {
      clearInterval(timer);
      const seconds = Number(process.hrtime.bigint() - began) / 1e9;
      resolve({ code, seconds, peakMb: peak / 1024, heldMb: held, stderr });
    });
  });
}

/**
 * A fixture of the mock's world in which every message's text differs from every other (the
 * generated world draws its texts from a pool of 5,000 lines, which a real account does not): the
 * built generator's file, each text given its message's number, a line at a time.
 */
async function distinctTextFixture(dir: string, options: RecorderSoakOptions): Promise<string> {
  const generated = path.join(dir, 'generated.json');
  const file = path.join(dir, 'distinct-texts.json');
  const args = [
    '--contacts',
    String(options.contacts),
    '--messages',
    String(options.messages),
    '--out',
    generated,
  ];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [RECORDER, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`messaging-fixtures: exit ${code}: ${stderr}`)),
    );
  });
  const out = createWriteStream(file);
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(generated), crlfDelay: Infinity })) {
    // A message's text, as fixtureJson indents it (attachments have message_id, no message).
    const text = /^( {6}"message": ")(.*)(",)$/.exec(line);
    const kept = text ? `${text[1]}${text[2]} (${++n})${text[3]}` : line;
    if (!out.write(`${kept}\n`)) await once(out, 'drain');
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  rmSync(generated);
  if (n !== options.messages)
    throw new Error(`found ${n} message texts in the generated fixture, not ${options.messages}`);
  return file;
}

async function recorderSoak(
  options: RecorderSoakOptions,
  say: (line: string) => void = console.log,
): Promise<RecorderSoakRow[]> {
  for (const file of [MOCK, RECORDER])
    if (!existsSync(file))
      throw new Error(`${path.relative(ROOT, file)} is missing: run \`npm run build\` first.`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'soak-recorder-'));
  const rows: RecorderSoakRow[] = [];
  say(
    `starting the mock with ${options.contacts.toLocaleString('en')} contacts and ${options.messages.toLocaleString('en')} messages…`,
  );
  const mock = await startMock([
    '--contacts',
    String(options.contacts),
    '--messages',
    String(options.messages),
  ]);
  try {
    // The baseline: the same process recording an account with nothing in it.
    const empty = await request(
      `${mock.url}/__mock/state`,
      'soak-empty',
      'PUT',
      '{"contacts":[],"messages":[]}',
    );
    if (empty.status !== 200) throw new Error(`PUT /__mock/state: ${empty.status} ${empty.text}`);
    let baseline = 0;
    let baselineHeld = 0;
    const record = async (what: string, url: string, token: string, extra: string[]) => {
      const out = path.join(dir, 'recorded.json');
      rmSync(out, { force: true });
      say(`recording ${what}…`);
      const run = await runRecorder([
        '--from',
        url,
        '--token',
        token,
        '--out',
        out,
        '--no-progress',
        ...extra,
      ]);
      if (run.code !== 0)
        throw new Error(`messaging-fixtures --from (${what}): exit ${run.code}: ${run.stderr}`);
      const messages = Number(/, ([\d,]+) messages in /.exec(run.stderr)?.[1]?.replace(/,/g, '') ?? NaN);
      let same: boolean;
      if (extra.length === 0) {
        const [state, file] = await Promise.all([request(`${url}/__mock/state`, token), compactSha256(out)]);
        same = state.status === 200 && state.sha256 === file;
      } else {
        // An anonymized file is no state of the mock's: it must be one the mock starts with and serves back.
        const served = await startMock(['--fixtures', out]);
        try {
          const [state, file] = await Promise.all([
            request(`${served.url}/__mock/state`, 'soak'),
            compactSha256(out),
          ]);
          same = state.status === 200 && state.sha256 === file;
        } finally {
          await served.stop();
        }
      }
      const row: RecorderSoakRow = {
        what,
        messages,
        seconds: run.seconds,
        peakRssMb: run.peakMb,
        heldMb: run.heldMb,
        same,
      };
      if (messages === 0) [baseline, baselineHeld] = [run.peakMb, run.heldMb];
      else {
        row.bytesPerMessage = ((run.peakMb - baseline) * 2 ** 20) / messages;
        row.heldPerMessage = ((run.heldMb - baselineHeld) * 2 ** 20) / messages;
      }
      say(
        `  ${messages.toLocaleString('en')} messages in ${run.seconds.toFixed(1)} s, peak RSS ${run.peakMb.toFixed(0)} MB, file ${(statSync(out).size / 2 ** 20).toFixed(0)} MB`,
      );
      rows.push(row);
    };
    const size = options.messages.toLocaleString('en');
    await record('an empty account (the baseline)', mock.url, 'soak-empty', []);
    await record(`${size} messages`, mock.url, 'soak-account', []);
    await record(`${size} messages, --anonymize`, mock.url, 'soak-account', ['--anonymize']);
    if (options.distinctTexts) {
      await mock.stop();
      say(`writing a fixture of ${size} messages whose texts all differ…`);
      const fixture = await distinctTextFixture(dir, options);
      const distinct = await startMock(['--fixtures', fixture]);
      try {
        await record(`${size} messages, every text distinct, --anonymize`, distinct.url, 'soak-account', [
          '--anonymize',
        ]);
      } finally {
        await distinct.stop();
      }
    }
  } finally {
    await mock.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** The rows as a Markdown table, with the verdict. */
function recorderSoakTable(rows: RecorderSoakRow[], maxRssMb: number): string[] {
  const fmt = (n: number) => Math.round(n).toLocaleString('en');
  const lines = [
    '| recording | messages | seconds | messages/s | peak RSS | RSS per message | heap held | held per message | the file |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of rows)
    lines.push(
      `| ${row.what} | ${fmt(row.messages)} | ${row.seconds.toFixed(1)} | ${row.messages > 0 ? fmt(row.messages / row.seconds) : '–'} | ${fmt(row.peakRssMb)} MB | ${row.bytesPerMessage === undefined ? '(baseline)' : `${fmt(row.bytesPerMessage)} B`} | ${fmt(row.heldMb)} MB | ${row.heldPerMessage === undefined ? '(baseline)' : `${fmt(row.heldPerMessage)} B`} | ${row.same ? 'as the mock serves it' : '**differs**'} |`,
    );
  const over = rows.filter((row) => row.peakRssMb > maxRssMb);
  lines.push(
    '',
    over.length === 0
      ? `Every recording stayed within ${fmt(maxRssMb)} MB of RSS.`
      : `**Over ${fmt(maxRssMb)} MB of RSS:** ${over.map((row) => row.what).join(', ')}.`,
  );
  return lines;
}

/** The section of `npm run soak`: `--messages`, `--contacts`, `--max-rss-mb`, `--skip-distinct`. */
export async function soakRecorder(options: SoakOptions): Promise<SectionResult> {
  const recorder = {
    messages: options.messages,
    contacts: options.contacts,
    maxRssMb: options.recorderMaxRssMb,
    distinctTexts: options.distinctTexts,
  };
  const rows = await recorderSoak(recorder, (line) => console.error(line));
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    `recorder: ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    '',
    ...recorderSoakTable(rows, recorder.maxRssMb),
  ];
  for (const line of lines) console.log(line);
  return { ok: rows.every((row) => row.same && row.peakRssMb <= recorder.maxRssMb), lines };
}
