import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The CLI as a user runs it: the built entry (`npm test` builds before jest). */
const BIN = path.join(__dirname, '..', 'dist', 'bin.js');

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
    throw new Error('dist/bin.js is missing: run `npm run build` (npm test does it first).');
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

  it('logs one line per request unless --quiet', async () => {
    const { child, banner, output } = start(['--port', '0', '--contacts', '2', '--messages', '0']);
    try {
      const url = /listening on (\S+)/.exec(await banner)![1]!;
      await fetch(`${url}/v1/contacts?limit=1`, { headers: { Authorization: 'Bearer x' } });
      await fetch(`${url}/nowhere`);
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      child.kill('SIGTERM');
    }
    await stopped(child);
    expect(output()).toMatch(/^GET \/v1\/contacts\?limit=1 200 \d+\.\d ms$/m);
    expect(output()).toMatch(/^GET \/nowhere 404 \d+\.\d ms$/m);
  });

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
    for (const option of [...options, '--simulate', '--max-worlds', '--quiet', '--help']) {
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
    [['--contacts', '0', '--messages', '5'], /needs at least one contact/],
  ])('refuses %j with a clear message and exit code 1', (args, message) => {
    const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(message);
  });
});
