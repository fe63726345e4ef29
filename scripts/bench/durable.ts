/**
 * What `--data-dir` costs, beside the in-memory mock in the same run (docs/deploy.md): reads and
 * writes a second (autocannon, 10 connections), the time to the first answer after a restart on a
 * dir of 1,000 worlds of 100 writes each, the p99 of loading a world shed from memory back on its
 * token's next request, and the disk a write takes, before and after the compaction of a load.
 * Each mock is the built CLI (`npm run build` first), on this machine's disk.
 *
 * `npm run bench -- --only durable`, or alone: `npx tsx scripts/bench/durable.ts [--seconds 3]`
 * (`--big-world`: the million-message world alone).
 */
import autocannon from 'autocannon';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startMock as startProcess, type MockProcess } from '../mock-process';

const WORLDS = 1000;
const WRITES_EACH = 100;
const ROUNDS = 5;

/** The built CLI with these options, and how long it took to listen (ms). */
async function startMock(args: string[]): Promise<MockProcess & { ms: number }> {
  const started = performance.now();
  const mock = await startProcess({ args });
  return { ...mock, ms: performance.now() - started };
}

async function rate(url: string, seconds: number, write: boolean): Promise<number> {
  const options: autocannon.Options = {
    url: `${url}/v1/contacts${write ? '' : '?limit=10'}`,
    connections: 10,
    duration: seconds,
    headers: {
      authorization: 'Bearer bench',
      ...(write ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(write ? { method: 'POST' as const, body: 'username=bench_user&phone_number=%2B15550100' } : {}),
  };
  await autocannon({ ...options, duration: 1 });
  const result = await autocannon(options);
  if (result.non2xx + result.errors > 0)
    throw new Error(`${result.non2xx + result.errors} answers were not 2xx`);
  return result.requests.average;
}

const post = (url: string, token: string, body: Record<string, string>) =>
  fetch(`${url}/v1/contacts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body),
  });

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

const fmt = (n: number) => Math.round(n).toLocaleString('en');

/**
 * A token's log in a data dir of one token, watched write by write: the bytes each write appended,
 * and the writes after which it was smaller (compacted). Call `step` after each acknowledged write.
 */
function logGrowth(dir: string) {
  const sizeNow = () => {
    const name = fs.readdirSync(path.join(dir, 'worlds')).find((file) => file.endsWith('.log'));
    return name ? fs.statSync(path.join(dir, 'worlds', name)).size : 0;
  };
  let size = 0;
  let appended = 0;
  let steps = 0;
  let compactions = 0;
  return {
    step() {
      const now = sizeNow();
      if (now > size) appended += now - size;
      else compactions++;
      size = now;
      steps++;
    },
    /** Bytes as appended (a write that compacted appended as much as the others, on average), on disk now, and compactions. */
    figures: () => ({
      asWritten: (appended / Math.max(1, steps - compactions)) * steps,
      onDisk: size,
      compactions,
    }),
  };
}

/** A world edited over and over: 2,000 edits and reactions on ten messages of the seeded world. */
async function editedWorld(root: string, say: (line?: string) => void): Promise<void> {
  const dir = path.join(root, 'edited');
  const mock = await startMock(['--data-dir', dir]);
  try {
    const auth = { Authorization: 'Bearer edited' };
    const page = (await (await fetch(`${mock.url}/v1/messages?limit=10`, { headers: auth })).json()) as {
      data: { id: string }[];
    };
    const growth = logGrowth(dir);
    const EDITS = 2000;
    for (let n = 0; n < EDITS; n++) {
      const res = await fetch(`${mock.url}/v1/messages/${page.data[n % page.data.length]!.id}`, {
        method: 'PUT',
        headers: { ...auth, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ message: `edited ${n}`, 'reactions[heart][]': `u${n % 7}` }),
      });
      if (res.status !== 200) throw new Error(`an edit answered ${res.status}`);
      await res.arrayBuffer();
      growth.step();
    }
    const { asWritten, onDisk, compactions } = growth.figures();
    say(
      `A world edited over and over (${fmt(EDITS)} edits with reactions of ten seeded messages): ${fmt(asWritten / EDITS)} bytes a write as appended (${fmt(asWritten / 1024)} kB in all); compacted ${compactions} times, its log holds ${fmt(onDisk / 1024)} kB.`,
    );
  } finally {
    await mock.close();
  }
}

const BIG_MESSAGES = 1_000_000;
const BIG_WRITES = 10_000;

/**
 * The 1M-message world changed by 10,000 writes of one token (messages sent, seeded messages
 * edited, reacted to and deleted, contacts renamed), then a restart: the time to that token's
 * first answer, and its log on disk beside the world's export (never written whole).
 */
async function bigWorld(root: string, say: (line?: string) => void): Promise<void> {
  const dir = path.join(root, 'big');
  const args = [
    '--data-dir',
    dir,
    '--messages',
    String(BIG_MESSAGES),
    '--max-world-mb',
    '2048',
    '--max-total-mb',
    '2400',
  ];
  const auth = { Authorization: 'Bearer big' };
  const send = async (url: string, method: string, route: string, body?: Record<string, string>) => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: { ...auth, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body: new URLSearchParams(body) } : {}),
    });
    if (res.status >= 300) throw new Error(`${method} ${route} answered ${res.status}: ${await res.text()}`);
    return res.status === 204 ? undefined : ((await res.json()) as any);
  };
  const first = await startMock(args);
  const coldStart = performance.now();
  const contacts = (await send(first.url, 'GET', '/v1/contacts?limit=100')).data as {
    id: string;
    conversation_id: string;
  }[];
  const coldAnswer = performance.now() - coldStart;
  const seeded = (await send(first.url, 'GET', '/v1/messages?limit=100')).data.map(
    (m: { id: string }) => m.id,
  ) as string[];
  let sent = 0;
  const growth = logGrowth(dir);
  for (let n = 0; n < BIG_WRITES; n++) {
    const r = n % 10;
    const contact = contacts[n % contacts.length]!;
    if (r < 5) {
      await send(first.url, 'POST', '/v1/messages', {
        conversation_id: contact.conversation_id,
        message: `big ${n}`,
      });
      sent++;
    } else if (r < 8 && seeded.length > 1) {
      const id = seeded[n % seeded.length]!;
      await send(first.url, 'PUT', `/v1/messages/${id}`, {
        message: `edited ${n}`,
        'reactions[heart][]': `u${n % 7}`,
      });
    } else if (r === 8 && seeded.length > 1) {
      await send(first.url, 'DELETE', `/v1/messages/${seeded.pop()!}`);
    } else await send(first.url, 'PUT', `/v1/contacts/${contact.id}`, { display_name: `Renamed ${n}` });
    growth.step();
  }
  const { asWritten, compactions } = growth.figures();
  const exportBytes = (await (await fetch(`${first.url}/__mock/state`, { headers: auth })).arrayBuffer())
    .byteLength;
  await first.close();
  const logFile = fs.readdirSync(path.join(dir, 'worlds')).find((name) => name.endsWith('.log'))!;
  const logBytes = fs.statSync(path.join(dir, 'worlds', logFile)).size;
  const restarted = await startMock(args);
  try {
    const before = performance.now();
    await send(restarted.url, 'GET', '/v1/contacts?limit=1');
    const loaded = performance.now() - before;
    say(
      `The ${fmt(BIG_MESSAGES)}-message world changed by ${fmt(BIG_WRITES)} writes of one token (${fmt(sent)} messages sent, seeded messages edited, reacted to and deleted, contacts renamed): ` +
        `after a restart, that token's first answer ${fmt(restarted.ms + loaded)} ms after the process started: ${fmt(restarted.ms)} ms to listen (the seeded world generated), then ${fmt(loaded)} ms for its log read and applied (at the first start, before any write: ${fmt(first.ms)} ms, then ${fmt(coldAnswer)} ms). ` +
        `Disk: ${fmt(asWritten / BIG_WRITES)} bytes a write as its line was appended (${fmt(asWritten / 1024)} kB in all); compacted ${compactions} times as it grew (it is, once at least half of it was written over), the log holds ${fmt(logBytes / 1024)} kB (${fmt(logBytes / BIG_WRITES)} bytes a write), beside ${fmt(exportBytes / 2 ** 20)} MB for the world's export: the seeded world is not written.`,
    );
  } finally {
    await restarted.close();
  }
}

export async function durableSection(say: (line?: string) => void, seconds = 3): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-durable-'));
  try {
    say('## Durable worlds (`--data-dir`), beside the in-memory mock');
    say();
    say(
      `| mock | reads/s (GET /v1/contacts), median of ${ROUNDS} | writes/s (POST, 10 clients), median of ${ROUNDS} | reads, writes: median of the rounds' ratios to in memory |`,
    );
    say('|---|---:|---:|---:|');
    // Rounds of the three mocks in turn: this machine is shared, and a neighbour's burst slows
    // whichever mock runs then. Each round compares its mocks with its own in-memory run, and the
    // median of those ratios is given: a slow stretch of the machine moves a round's three runs
    // together. (Reads take the same path with a data dir or without: only a write is kept.)
    const MOCKS = [
      ['in memory', []],
      ['--data-dir, --fsync batch', ['--data-dir', path.join(root, 'batch'), '--fsync', 'batch']],
      ['--data-dir, --fsync always', ['--data-dir', path.join(root, 'always'), '--fsync', 'always']],
    ] as const;
    const runs = new Map<string, { reads: number[]; writes: number[] }>(
      MOCKS.map(([label]) => [label, { reads: [], writes: [] }]),
    );
    for (let round = 0; round < ROUNDS; round++)
      // Each round starts with another mock: none always runs first.
      for (const [label, args] of [...MOCKS.slice(round % 3), ...MOCKS.slice(0, round % 3)]) {
        // A data dir of its own each run: the worlds of the round before would make this one's larger.
        const dir = args.map((arg) => (arg.startsWith(root) ? `${arg}-${round}` : arg));
        const mock = await startMock([...dir, '--max-world-mb', '1024', '--max-total-mb', '2048']);
        try {
          runs.get(label)!.reads.push(await rate(mock.url, seconds, false));
          runs.get(label)!.writes.push(await rate(mock.url, seconds, true));
        } finally {
          await mock.close();
        }
      }
    const memory = runs.get('in memory')!;
    const ratios = (label: string, kind: 'reads' | 'writes') =>
      runs.get(label)![kind].map((value, round) => value / memory[kind][round]!);
    const range = (values: number[]) =>
      `${percentile(values, 50).toFixed(2)}× (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
    for (const [label, { reads, writes }] of runs)
      say(
        `| ${label} | ${fmt(percentile(reads, 50))} | ${fmt(percentile(writes, 50))} | ${label === 'in memory' ? '1, 1' : `${range(ratios(label, 'reads'))}, ${range(ratios(label, 'writes'))}`} |`,
      );
    say();

    // 1,000 worlds of 100 writes each, then a restart.
    const dir = path.join(root, 'worlds');
    const first = await startMock(['--data-dir', dir, '--max-worlds', '100']);
    const tokens = Array.from({ length: WORLDS }, (_, i) => `world-${i}`);
    for (let at = 0; at < tokens.length; at += 20)
      await Promise.all(
        tokens.slice(at, at + 20).map(async (token) => {
          for (let n = 0; n < WRITES_EACH; n++)
            await post(first.url, token, { username: `u${n}`, phone_number: '+15550100' });
        }),
      );
    await first.close();
    const files = fs.readdirSync(path.join(dir, 'worlds'));
    const bytes = files.reduce((sum, name) => sum + fs.statSync(path.join(dir, 'worlds', name)).size, 0);
    const restarted = await startMock(['--data-dir', dir, '--max-worlds', '100']);
    try {
      const before = performance.now();
      const answer = await fetch(`${restarted.url}/v1/contacts?limit=1`, {
        headers: { Authorization: `Bearer ${tokens[0]}` },
      });
      const firstAnswer = restarted.ms + (performance.now() - before);
      if (answer.status !== 200) throw new Error(`the first answer after the restart was ${answer.status}`);
      // Every world but the first is on disk only: each request loads one back (100 stay in memory).
      const loads: number[] = [];
      for (const token of tokens.slice(1)) {
        const start = performance.now();
        const res = await fetch(`${restarted.url}/v1/contacts?limit=1`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        await res.arrayBuffer();
        loads.push(performance.now() - start);
      }
      say(
        `Restart on ${fmt(WORLDS)} worlds of ${WRITES_EACH} writes each (${fmt(bytes / 2 ** 20)} MB on disk): first answer ${fmt(firstAnswer)} ms after the process started (worlds load on their token's first request).`,
      );
      say(
        `Loading a world back from disk on its token's request (${fmt(loads.length)} worlds of ${WRITES_EACH} writes): p50 ${loads.length ? percentile(loads, 50).toFixed(1) : '-'} ms, p99 ${percentile(loads, 99).toFixed(1)} ms.`,
      );
    } finally {
      await restarted.close();
    }
    const perWrite = bytes / (WORLDS * WRITES_EACH);
    say(
      `Disk: ${fmt(perWrite)} bytes a write (a contact created), as its log line; these logs hold nothing written over, so they are not compacted.`,
    );
    await editedWorld(root, say);
    await bigWorld(root, say);
    say();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '3' }, 'big-world': { type: 'boolean', default: false } },
  });
  const say = (line = '') => console.log(line);
  if (values['big-world']) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-durable-'));
    void bigWorld(root, say).finally(() => fs.rmSync(root, { recursive: true, force: true }));
  } else void durableSection(say, Number(values.seconds));
}
