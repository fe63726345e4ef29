import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The CLI as a user runs it: the built entry (`npm test` builds before jest). */
const BIN = path.join(__dirname, '..', 'dist', 'cli', 'bin.js');

/**
 * V8's heap limit, in MB, with the old generation at 256 MB, as a 1 GB machine gives: the young
 * generation beside it differs with V8 (304 MB in all on Node 20, 352 MB on Node 26).
 */
const LIMIT_MB = Number(
  spawnSync(
    process.execPath,
    ['--max-old-space-size=256', '-p', 'Math.floor(v8.getHeapStatistics().heap_size_limit / 2 ** 20)'],
    { encoding: 'utf8' },
  ).stdout.trim(),
);
/** What the mock keeps free for requests in flight: a quarter of the heap, 64 MB at least. */
const HEADROOM_MB = Math.max(64, Math.floor(LIMIT_MB / 4));

function start(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
  let output = '';
  const banner = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/Try:.*\n/.test(output)) resolve(output);
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
  return { child, banner, output: () => output };
}

function stopped(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });
}

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error('dist/cli/bin.js is missing: run `npm run build` (npm test does it first).');
});

describe('messaging-mock (the CLI)', () => {
  it('prints the base URL, a sample token and a curl line that works', async () => {
    const { child, banner } = start(['--port', '0', '--quiet']);
    try {
      const text = await banner;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)![1]!;
      const token = /Sample token: (\S+)/.exec(text)![1]!;
      expect(text).toMatch(
        /curl -H "Authorization: Bearer \S+" "http:\/\/127\.0\.0\.1:\d+\/v1\/contacts\?limit=3"/,
      );
      const res = await fetch(`${url}/v1/contacts?limit=3`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(3);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await stopped(child)).toBe(0);
  });

  it('serves the world asked for, accepts only --token tokens, and takes PORT from the environment', async () => {
    const { child, banner } = start(
      ['--quiet', '--contacts', '3', '--messages', '5', '--token', 'alpha', '--token', 'beta'],
      {
        PORT: '0',
      },
    );
    try {
      const url = /listening on (\S+)/.exec(await banner)![1]!;
      const ok = await fetch(`${url}/v1/contacts?limit=100`, { headers: { Authorization: 'Bearer beta' } });
      expect(((await ok.json()) as { data: unknown[] }).data).toHaveLength(3);
      const refused = await fetch(`${url}/v1/contacts`, { headers: { Authorization: 'Bearer gamma' } });
      expect(refused.status).toBe(401);
    } finally {
      child.kill('SIGINT');
    }
    expect(await stopped(child)).toBe(0);
  });

  it('takes a variable set empty (HOST=, MOCK_CONVENTIONS=) as not set, not as the value ""', async () => {
    const { child, banner } = start(['--port', '0', '--quiet'], { HOST: '', MOCK_CONVENTIONS: '' });
    try {
      expect(await banner).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ /);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await stopped(child)).toBe(0);
  });

  it.each([[[]], [['--log-dashboard']]])(
    "logs one line per request unless --quiet, the dashboard's own only with --log-dashboard (%j)",
    async (options) => {
      const { child, banner, output } = start([
        '--port',
        '0',
        '--contacts',
        '2',
        '--messages',
        '0',
        ...options,
      ]);
      try {
        const url = /listening on (\S+)/.exec(await banner)![1]!;
        await fetch(`${url}/v1/contacts?limit=1`, { headers: { Authorization: 'Bearer x' } });
        await fetch(`${url}/nowhere`);
        await fetch(`${url}/__mock/switches`, {
          headers: { Authorization: 'Bearer x', 'X-Mock-Dashboard': '1' },
        });
        await new Promise((r) => setTimeout(r, 200));
      } finally {
        child.kill('SIGTERM');
      }
      await stopped(child);
      expect(output()).toMatch(/^GET \/v1\/contacts\?limit=1 200 \d+\.\d ms$/m);
      expect(output()).toMatch(/^GET \/nowhere 404 \d+\.\d ms$/m);
      expect(/^GET \/__mock\/switches 200 /m.test(output())).toBe(options.length > 0);
    },
  );

  it('lists every option with its default in --help', () => {
    const result = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    const lines = result.stdout.split('\n');
    const options = [
      '--port',
      '--host',
      '--seed',
      '--contacts',
      '--messages',
      '--fixtures',
      '--token',
      '--latency',
    ];
    for (const option of [...options, '--simulate', '--max-worlds', '--quiet', '--log-dashboard', '--help']) {
      const line = lines.find((l) => l.includes(option));
      expect(line).toBeDefined();
      if (!['--fixtures', '--help'].includes(option)) expect(`${option}: ${line}`).toMatch(/\(default: /);
    }
    expect(result.stdout).toMatch(/default: 4010/);
  });

  it.each([
    [['--port', 'abc'], /--port.*whole number/],
    [['--contacts', '-1'], /--contacts/],
    [['--frobnicate'], /unknown option/],
    [['--latency', 'slow'], /--latency.*milliseconds/],
    [
      ['--contacts', '0', '--messages', '5'],
      /^error: --messages 5 needs at least one contact, and --contacts is 0\./,
    ],
    [['--seed', '2147483648'], /--seed.*must be a whole number from 0 to 2147483647\./],
    [
      ['--fixtures', 'no/such/world.json'],
      /^error: --fixtures no\/such\/world\.json: there is no such file \(looked for \/\S+\/no\/such\/world\.json\)\./,
    ],
    [
      ['--fsync', 'always'],
      /^error: --fsync always needs --data-dir \(or MOCK_DATA_DIR\): without one, nothing is written to disk\./,
    ],
    [['--fsync', 'sometimes'], /--fsync.*'sometimes' is invalid\. Allowed choices are always, batch/],
    [
      ['--data-dir', __filename],
      /^error: --data-dir \S+cli\.test\.ts cannot be used: a file stands where a folder must be/,
    ],
  ])('refuses %j with a clear message and exit code 1', (args, message) => {
    // A mock that starts instead of refusing would run on: the timeout ends it, and the test fails.
    const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 15_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/not valid/);
  });

  it('says the seed range that it takes, and takes its upper end', () => {
    const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' }).stdout;
    expect(help).toMatch(/--seed <n> +seed of the generated world, 0 to 2147483647 \(default: 1\)/);
    const fixtures = spawnSync(
      process.execPath,
      [
        path.join(path.dirname(BIN), 'fixtures-cli.js'),
        '--seed',
        '2147483647',
        '--contacts',
        '1',
        '--messages',
        '0',
        '--out',
        '-',
      ],
      { encoding: 'utf8' },
    );
    expect(fixtures.status).toBe(0);
    expect((JSON.parse(fixtures.stdout) as { contacts: unknown[] }).contacts).toHaveLength(1);
  });

  it('starts an empty world with --contacts 0 alone, without a word about --messages', async () => {
    const { child, banner } = start(['--port', '0', '--quiet', '--contacts', '0']);
    try {
      const text = await banner;
      expect(text).toMatch(/\(seed 1, 0 contacts, 0 messages, ready in \d+ ms\)/);
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)![1]!;
      const res = await fetch(`${url}/v1/messages`, { headers: { Authorization: 'Bearer x' } });
      expect(await res.json()).toEqual({ has_more: false, data: [] });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await stopped(child)).toBe(0);
  });

  it('with --host 0.0.0.0, prints what it bound and the address to use from this machine', async () => {
    const { child, banner } = start(['--port', '0', '--quiet', '--host', '0.0.0.0']);
    try {
      const text = await banner;
      const port = /listening on http:\/\/0\.0\.0\.0:(\d+) \(every interface; seed 1,/.exec(text)?.[1];
      expect(port).toBeDefined();
      expect(text).toContain(
        `Base URL:     http://127.0.0.1:${port}/v1 on this machine; from another, this machine's address instead`,
      );
      expect(text).toContain(
        `curl -H "Authorization: Bearer demo-token" "http://127.0.0.1:${port}/v1/contacts?limit=3"`,
      );
      const res = await fetch(`http://127.0.0.1:${port}/v1/contacts?limit=1`, {
        headers: { Authorization: 'Bearer x' },
      });
      expect(res.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await stopped(child)).toBe(0);
  });
  it('starts within a heap such as a 1 GB machine gives, and says what tokens may hold', async () => {
    const child = spawn(process.execPath, ['--max-old-space-size=256', BIN, '--port', '0', '--quiet']);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', () => /Try:.*\n/.test(output) && resolve());
        child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
      });
      expect(output).toMatch(
        new RegExp(
          `Memory: +tokens may hold 128 MB together \\(--max-total-mb; least recently used shed beyond it\\); the heap is at \\d+ MB of V8's ${LIMIT_MB} MB limit`,
        ),
      );
    } finally {
      child.kill('SIGTERM');
    }
    expect(await stopped(child)).toBe(0);
  });

  it('refuses to start with a budget that does not fit in the heap, naming both numbers and the option', () => {
    const run = spawnSync(
      process.execPath,
      ['--max-old-space-size=256', BIN, '--port', '0', '--max-total-mb', '1024'],
      {
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      new RegExp(
        `^error: --max-total-mb 1024 does not fit in this process's heap: V8's heap limit is ${LIMIT_MB} MB, the world takes \\d+ MB and ${HEADROOM_MB} MB stay free for requests in flight, which leaves \\d+ MB\\. Lower --max-total-mb to at most \\d+, or give Node a larger heap: NODE_OPTIONS=--max-old-space-size=<MB>, at least 1\\d\\d\\d\\.\n`,
      ),
    );
    const fits = Number(/at most (\d+)/.exec(run.stderr)![1]);
    // The advice keeps below what is left: a start's heap differs by a few MB from the next one's.
    expect(fits).toBeLessThan(Number(/which leaves (\d+) MB/.exec(run.stderr)![1]));
    const next = spawn(process.execPath, [
      '--max-old-space-size=256',
      BIN,
      '--port',
      '0',
      '--quiet',
      '--max-total-mb',
      String(fits),
      '--max-world-mb',
      '16',
    ]);
    return new Promise<void>((resolve, reject) => {
      let text = '';
      next.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (/Try:/.test(text)) {
          next.kill('SIGTERM');
          resolve();
        }
      });
      next.on(
        'exit',
        (code) => code !== null && code !== 0 && reject(new Error(`exited with ${code}: ${text}`)),
      );
    });
    // Two starts of the mock, one after the other: more than jest's 5 s on a loaded machine.
  }, 30_000);

  it('refuses a world bound larger than the bound of all tokens', () => {
    const run = spawnSync(
      process.execPath,
      [BIN, '--port', '0', '--max-total-mb', '32', '--max-world-mb', '64'],
      {
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^error: --max-world-mb 64 is more than --max-total-mb 32/);
  });
});
