import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { failures, failedRules, inBatches, runBin, startWrapped, type KitRun } from './harness';
import { MODEL_ROGUES } from './servers';
import { startStaging, STAGING_VARIANTS } from './staging';
import { busyShare, defaultWorkers } from '../../contract-tests/run';

/**
 * The kit with four workers, as it runs against a server that is not on this machine: every
 * test's writes reach the lists that other tests walk. On a server that pages by position, or
 * orders its contacts by activity, a list walked while another worker writes moves under the
 * walk; that is no fault of the server's, and the kit must not call it one.
 */
const variant = (name: string) => STAGING_VARIANTS.find((v) => v.name === name)!.options;

describe('the contract kit with four workers at once', () => {
  const runs = new Map<string, KitRun>();
  const honest = {
    'pages by page=N, contacts ordered by their last activity': {
      ...variant('hex ids of varying length, hash order, page=N'),
      order: 'recent' as const,
    },
    'pages by offset=N': variant('uuids, alphabetical, offset=N'),
  };
  const repeats = MODEL_ROGUES.find(
    (r) => r.how === "repeats the previous page's last item at the top of a last page with room for it",
  )!;

  beforeAll(async () => {
    await inBatches(
      [
        ...Object.entries(honest).map(([name, options]) => async () => {
          const server = await startStaging(options);
          try {
            runs.set(name, await runBin(['--base-url', server.url, '--token', 'four', '--workers', '4']));
          } finally {
            await server.close();
          }
        }),
        async () => {
          const server = await startWrapped(repeats.make());
          try {
            runs.set('rogue', await runBin(['--base-url', server.url, '--token', 'four', '--workers', '4']));
          } finally {
            await server.close();
          }
        },
      ],
      2,
    );
  }, 600_000);

  it.each(Object.keys(honest))(
    'passes an honest server that %s, whose lists move under the walks',
    (name) => {
      const run = runs.get(name)!;
      expect({ code: run.code, failed: failures(run), problems: run.json?.problems }).toEqual({
        code: 0,
        failed: [],
        problems: [],
      });
    },
  );

  it('says, in its JSON report, the workers it chose and that its files ran in more than one', () => {
    for (const run of runs.values()) {
      expect(run.json?.workers?.chosen).toBe(4);
      expect(run.json?.workers?.ran).toBeGreaterThan(1);
    }
  });

  it('runs its files in the workers it chose after a run narrowed by --rule, which left jest thinking every file is quick', async () => {
    // Jest keeps the durations of the files it ran under the temporary folder: a fresh one, then
    // a narrowed run, whose few files took well under a second.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-jest-cache-'));
    const server = await startWrapped();
    try {
      const narrowed = await runBin(
        ['--base-url', server.url, '--token', 'narrowed', '--rule', 'api.v1-prefix'],
        { TMPDIR: tmp },
      );
      expect(narrowed.code).toBe(0);
      const whole = await runBin(['--base-url', server.url, '--token', 'whole', '--workers', '2'], {
        TMPDIR: tmp,
      });
      expect({ code: whole.code, workers: whole.json?.workers }).toEqual({
        code: 0,
        workers: { chosen: 2, ran: 2 },
      });
    } finally {
      await server.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);

  it('still fails a server whose pages repeat an item, with lists.pages alone', () => {
    const run = runs.get('rogue')!;
    expect({ code: run.code, failed: failedRules(run) }).toEqual({ code: 1, failed: ['lists.pages'] });
  });
});

describe('the kit’s own writes and its walks (http/stillness.ts)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stillness-'));
  // The writes of "another process" are noted under a live process's pid: jest's own.
  const live = process.ppid;
  let stillness: typeof import('../../contract-tests/http/stillness');
  beforeAll(async () => {
    process.env.CONTRACT_RESULTS_DIR = dir;
    jest.resetModules();
    stillness = await import('../../contract-tests/http/stillness');
  });
  afterAll(() => {
    delete process.env.CONTRACT_RESULTS_DIR;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('tells a list that held still from one that another process wrote to during the walk', async () => {
    const before = Date.now();
    expect(stillness.heldStill(before, Date.now())).toBe(true);
    // Another process's write on its way (its start noted, no end).
    const other = path.join(dir, 'writes-1.jsonl');
    fs.writeFileSync(other, `${JSON.stringify({ id: `${live}:1`, s: Date.now() })}\n`);
    expect(stillness.heldStill(before, Date.now())).toBe(false);
    // Ended before the walk began: the list held still since.
    fs.appendFileSync(other, `${JSON.stringify({ id: `${live}:1`, f: Date.now() })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const after = Date.now();
    expect(stillness.heldStill(after, Date.now())).toBe(true);
    // This process's own write, while it lasts.
    const id = await stillness.writeStarting();
    expect(stillness.heldStill(after, Date.now())).toBe(false);
    stillness.writeEnded(id);
  });

  it('reads a line another process is still appending once it is whole, and reads every line once', () => {
    // A millisecond after the write the test before ended: one that ended in the same millisecond
    // as the walk began is rightly taken for a write during it.
    const ended = Date.now();
    let before = ended;
    while (before === ended) before = Date.now();
    const other = path.join(dir, 'writes-3.jsonl');
    const line = JSON.stringify({ id: `${live}:3`, s: Date.now() });
    fs.writeFileSync(other, line.slice(0, 9));
    expect(stillness.heldStill(before, Date.now())).toBe(true);
    fs.appendFileSync(other, `${line.slice(9)}\n`);
    expect(stillness.heldStill(before, Date.now())).toBe(false);
    expect(stillness.heldStill(before, Date.now())).toBe(false);
    fs.appendFileSync(other, `${JSON.stringify({ id: `${live}:3`, f: before - 1_000 })}\n`);
    expect(stillness.heldStill(before, Date.now())).toBe(true);
  });

  it('takes a write of a process that is gone for ended: it will never note its end', () => {
    const before = Date.now();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const pid = Number(gone.stdout.toString());
    fs.writeFileSync(path.join(dir, 'writes-4.jsonl'), `${JSON.stringify({ id: `${pid}:1`, s: before })}\n`);
    expect(stillness.heldStill(before, Date.now())).toBe(false);
    expect(stillness.heldStill(Date.now() + 1, Date.now() + 2)).toBe(true);
  });

  it('holds a write back while another live process walks in a quiet window', async () => {
    // The parent process (jest's) is alive: its quiet window counts.
    const quiet = path.join(dir, `quiet-${process.ppid}-1`);
    fs.writeFileSync(quiet, '');
    let started = false;
    const write = stillness.writeStarting().then((id) => {
      started = true;
      return id;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(started).toBe(false);
    fs.rmSync(quiet);
    stillness.writeEnded(await write);
    expect(started).toBe(true);
  });

  it('opens a quiet window only once the writes on their way have ended', async () => {
    const other = path.join(dir, 'writes-2.jsonl');
    fs.writeFileSync(other, `${JSON.stringify({ id: `${live}:2`, s: Date.now() })}\n`);
    let walked = false;
    const walk = stillness.inQuiet(async () => {
      walked = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(walked).toBe(false);
    fs.appendFileSync(other, `${JSON.stringify({ id: `${live}:2`, f: Date.now() })}\n`);
    await walk;
    expect(walked).toBe(true);
    expect(fs.readdirSync(dir).filter((name) => name.startsWith('quiet-'))).toEqual([]);
  });
});

describe('how many workers the kit takes when not told (defaultWorkers)', () => {
  const quiet = { busy: 0.3 };
  const busy = { busy: 0.97 };

  it('takes four for a server elsewhere, however quick and however busy this machine', () => {
    expect(defaultWorkers({ loopback: false, quickestMs: 1, ...quiet })).toBe(4);
    expect(defaultWorkers({ loopback: false, quickestMs: 1, ...busy })).toBe(4);
  });

  it('takes one for a server on this machine that answers at once, or before any answer', () => {
    expect(defaultWorkers({ loopback: true, quickestMs: 3, ...quiet })).toBe(1);
    expect(defaultWorkers({ loopback: true, quickestMs: undefined, ...quiet })).toBe(1);
  });

  it('takes four for a server on this machine whose quickest answer takes 20 ms, while the processors were not all busy', () => {
    expect(defaultWorkers({ loopback: true, quickestMs: 20, ...quiet })).toBe(4);
    expect(defaultWorkers({ loopback: true, quickestMs: 19, ...quiet })).toBe(1);
    expect(defaultWorkers({ loopback: true, quickestMs: 55, busy: 0.89 })).toBe(4);
  });

  it('takes one for a slow server on this machine while every processor here was busy: the wait is for a processor', () => {
    expect(defaultWorkers({ loopback: true, quickestMs: 55, ...busy })).toBe(1);
    expect(defaultWorkers({ loopback: true, quickestMs: 55, busy: 0.9 })).toBe(1);
  });

  it('measures how busy the processors were from two readings of their times, over every processor', () => {
    const cpu = (busy: number, idle: number) => ({
      model: 'x',
      speed: 1,
      times: { user: busy, nice: 0, sys: 0, idle, irq: 0 },
    });
    // One processor busy three quarters of the interval, the other idle all of it.
    expect(busyShare([cpu(100, 100), cpu(100, 100)], [cpu(175, 125), cpu(100, 200)])).toBeCloseTo(0.375);
    expect(busyShare([cpu(0, 0)], [cpu(0, 100)])).toBe(0);
    expect(busyShare([cpu(0, 0)], [cpu(100, 0)])).toBe(1);
    // No time passed (or no processor read): nothing was busy.
    expect(busyShare([cpu(5, 5)], [cpu(5, 5)])).toBe(0);
    expect(busyShare([], [cpu(5, 5)])).toBe(0);
  });
});
