/**
 * Soak of the contract proxy: the built mock as a process, the built `messaging-contract proxy` in
 * front of it, and honest client traffic through the proxy from thousands of tokens, each a short
 * session of its own as a test file or a user would make it (pages of 100 walked with their
 * cursor, retrieves, sends, edits, reactions, renames, deletes). Every interval it samples the
 * proxy's resident memory from /proc, prints a table, and ends with whether RSS levelled off after
 * the first minute, how many tokens the proxy forgot, and whether it found any rule broken (it
 * must not: the traffic is honest).
 *
 *   npx tsx scripts/soak-proxy.ts [--requests 200000] [--tokens 5000] [--connections 16]
 *     [--interval 5] [--out file.md] [-- proxy options…]
 *
 * Options after `--` go to the proxy (e.g. `-- --max-tokens 100`). Loopback traffic only. Needs
 * `npm run build` (it runs dist/cli/bin.js and dist/contract-tests/bin/messaging-contract.js).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    requests: { type: 'string', default: '200000' },
    tokens: { type: 'string', default: '5000' },
    connections: { type: 'string', default: '16' },
    interval: { type: 'string', default: '5' },
    /** Tokens with a session under way at once; the others are finished or not begun. */
    active: { type: 'string', default: '64' },
    out: { type: 'string' },
  },
});

function positive(name: keyof typeof args): number {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number ≥ 1`);
  return n;
}

const REQUESTS = positive('requests');
const TOKENS = positive('tokens');
const CONNECTIONS = positive('connections');
const INTERVAL = positive('interval');
const ACTIVE = positive('active');
const PER_TOKEN = Math.max(8, Math.round(REQUESTS / TOKENS));
const root = path.join(__dirname, '..');
const MOCK_BIN = path.join(root, 'dist', 'cli', 'bin.js');
const PROXY_BIN = path.join(root, 'dist', 'contract-tests', 'bin', 'messaging-contract.js');

interface Child {
  child: ChildProcess;
  url: URL;
  /** Everything it printed on stdout and stderr after its banner. */
  output(): string;
}

/** Starts a node process and waits for its `listening on http://…` line. */
async function start(name: string, argv: string[]): Promise<Child> {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const url = await new Promise<URL>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening: ${text}`)));
    // Read both pipes for the whole run: a full pipe would stall the process.
    const take = (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening on (http:\/\/[^\s,)]+)/.exec(text);
      if (match) resolve(new URL(match[1]!));
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
  });
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing to load a non-loopback address: ${url}`);
  return { child, url, output: () => text };
}

function stop(process: Child, signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
  const { child } = process;
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

/** Resident set size of a process in MB, from /proc (Linux). */
function rssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN; // the process is gone
  }
}

type Json = Record<string, any>;
interface Answer {
  status: number;
  body: Json | undefined;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

function send(base: URL, method: string, pathname: string, token: string, form?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { Authorization: `Bearer ${token}` };
    if (form !== undefined) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      headers['Content-Length'] = Buffer.byteLength(form);
    }
    const req = http.request(
      { host: base.hostname, port: base.port, method, path: pathname, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let body: Json | undefined;
          try {
            body = text === '' ? undefined : (JSON.parse(text) as Json);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(form);
  });
}

/** One request of a session: what to send, and the statuses an honest server may answer. */
interface Step {
  method: string;
  path: string;
  form?: string;
  expected: number[];
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const q = encodeURIComponent;

/**
 * One token's session: it reads its lists in pages of 100 (walking on with `starting_after` while
 * `has_more`), opens records, and writes now and then, each request sent after the answer to the
 * one before, as one client does. About a third of its requests are writes.
 */
function* session(steps: number): Generator<Step, void, Answer> {
  const contacts: Json[] = [];
  const messages: Json[] = [];
  const learn = (answer: Answer, into: Json[]) => {
    for (const item of answer.body?.data ?? [])
      if (!into.some((known) => known.id === item.id)) into.push(item);
  };
  const forget = (into: Json[], id: unknown) => {
    const at = into.findIndex((item) => item.id === id);
    if (at >= 0) into.splice(at, 1);
  };
  let left = steps;
  const get = (path: string): Step => ({ method: 'GET', path, expected: [200] });
  learn(yield get('/v1/contacts?limit=100'), contacts);
  left--;
  /** A list walked page by page, as far as `pages` or its end. */
  function* walk(base: string, pages: number, into: Json[]): Generator<Step, void, Answer> {
    let answer = yield get(`${base}limit=100`);
    left--;
    learn(answer, into);
    for (let page = 1; page < pages && left > 0 && answer.body?.has_more; page++) {
      const last = answer.body.data.at(-1);
      answer = yield get(`${base}limit=100&starting_after=${q(last.id)}`);
      left--;
      learn(answer, into);
    }
  }
  yield* walk('/v1/messages?', 3, messages);
  while (left > 0) {
    left--;
    const r = Math.random();
    const contact = contacts.length > 0 ? pick(contacts) : undefined;
    const message = messages.length > 0 ? pick(messages) : undefined;
    if (r < 0.3 && contact) {
      left++;
      yield* walk(`/v1/messages?conversation_id=${q(contact.conversation_id)}&`, 2, messages);
    } else if (r < 0.38) learn(yield get('/v1/contacts?limit=100'), contacts);
    else if (r < 0.45 && contact) yield get(`/v1/contacts/${q(contact.id)}`);
    else if (r < 0.52 && message) yield get(`/v1/messages/${q(message.id)}`);
    else if (r < 0.7 && contact) {
      const made = yield {
        method: 'POST',
        path: '/v1/messages',
        form: form({
          conversation_id: contact.conversation_id,
          message: `soak ${'x'.repeat(Math.random() * 200)}`,
        }),
        expected: [201],
      };
      if (made.body) messages.push(made.body);
    } else if (r < 0.8 && message) {
      const reaction = pick(['heart', 'thumbs_up', 'tada', 'eyes']);
      const text = Math.random() < 0.5 ? `&message=edited+${Math.floor(Math.random() * 1e6)}` : '';
      yield {
        method: 'PUT',
        path: `/v1/messages/${q(message.id)}`,
        form: `reactions[${reaction}][]=user${Math.floor(Math.random() * 20)}${text}`,
        expected: [200],
      };
    } else if (r < 0.86 && contact) {
      yield {
        method: 'PUT',
        path: `/v1/contacts/${q(contact.id)}`,
        form: form({ display_name: `Renamed ${Math.floor(Math.random() * 1e6)}` }),
        expected: [200],
      };
    } else if (r < 0.93 && message) {
      yield { method: 'DELETE', path: `/v1/messages/${q(message.id)}`, expected: [204] };
      forget(messages, message.id);
    } else if (r < 0.97) {
      const n = Math.floor(Math.random() * 1e9);
      const made = yield {
        method: 'POST',
        path: '/v1/contacts',
        form: form({ username: `soak_${n}`, phone_number: `+1 555 ${n % 10000}` }),
        expected: [201],
      };
      if (made.body) contacts.push(made.body);
    } else if (contact) {
      yield { method: 'DELETE', path: `/v1/contacts/${q(contact.id)}`, expected: [204] };
      forget(contacts, contact.id);
      for (const m of messages.filter((m) => m.conversation_id === contact.conversation_id))
        forget(messages, m.id);
    }
  }
}

interface Sample {
  t: number;
  requests: number;
  tokens: number;
  rss: number;
  mockRss: number;
}

async function main(): Promise<void> {
  for (const bin of [MOCK_BIN, PROXY_BIN])
    if (!existsSync(bin))
      throw new Error(`${path.relative(root, bin)} is missing: run \`npm run build\` first.`);
  // The mock keeps the worlds of the sessions under way (and some finished ones): a world it
  // dropped under a session would look to the proxy like records changed behind its back.
  const mock = await start('the mock', [
    MOCK_BIN,
    '--port',
    '0',
    '--quiet',
    '--max-worlds',
    String(ACTIVE * 2),
  ]);
  const proxy = await start('the proxy', [
    PROXY_BIN,
    'proxy',
    '--target',
    mock.url.origin,
    '--port',
    '0',
    '--profile',
    'mock',
    ...positionals,
  ]);
  const started = Date.now();
  let sent = 0;
  let answered = 0;
  let tokens = 0;
  const unexpected: string[] = [];
  let failures = 0;
  const queue: { token: string; steps: Generator<Step, void, Answer>; last?: Answer }[] = [];
  const newSession = () => {
    tokens++;
    const token = `soak-proxy-${process.pid}-${tokens}`;
    queue.push({ token, steps: session(PER_TOKEN) });
  };
  for (let i = 0; i < Math.min(ACTIVE, TOKENS); i++) newSession();

  const loop = async () => {
    while (sent < REQUESTS && proxy.child.exitCode === null) {
      const current = queue.shift();
      if (!current) return;
      const next = current.steps.next(current.last!);
      if (next.done) {
        if (tokens < TOKENS) newSession();
        continue;
      }
      const step = next.value;
      sent++;
      try {
        current.last = await send(proxy.url, step.method, step.path, current.token, step.form);
        answered++;
        if (!step.expected.includes(current.last.status)) {
          failures++;
          if (unexpected.length < 5)
            unexpected.push(
              `${step.method} ${step.path} → ${current.last.status} ${JSON.stringify(current.last.body)}`,
            );
        }
      } catch (error) {
        failures++;
        current.last = { status: 0, body: undefined };
        if (unexpected.length < 5) unexpected.push(`${step.method} ${step.path} → ${String(error)}`);
      }
      queue.push(current);
    }
  };

  const samples: Sample[] = [];
  const rows: string[] = [];
  const header = '| t (s) | requests | req/s | tokens begun | proxy RSS (MB) | mock RSS (MB) |';
  const rule = '|---:|---:|---:|---:|---:|---:|';
  const intro = [
    `Proxy soak: ${REQUESTS} requests from ${TOKENS} tokens (${PER_TOKEN} each, ${ACTIVE} sessions under way at once), ${CONNECTIONS} connections, pages of 100 and writes`,
    `Proxy: ${proxy.url.origin} (pid ${proxy.child.pid}) in front of the mock ${mock.url.origin}; proxy options: ${positionals.join(' ') || '(defaults)'}`,
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date(started).toISOString()}`,
    `Proxy RSS before load: ${rssMb(proxy.child.pid).toFixed(1)} MB`,
  ];
  for (const line of intro) console.log(line);
  console.log(header);
  console.log(rule);
  let lastCount = 0;
  const sampler = setInterval(() => {
    const t = (Date.now() - started) / 1000;
    const sample = {
      t,
      requests: answered,
      tokens,
      rss: rssMb(proxy.child.pid),
      mockRss: rssMb(mock.child.pid),
    };
    samples.push(sample);
    const row = `| ${t.toFixed(0)} | ${answered} | ${((answered - lastCount) / INTERVAL).toFixed(0)} | ${tokens} | ${sample.rss.toFixed(1)} | ${sample.mockRss.toFixed(1)} |`;
    lastCount = answered;
    rows.push(row);
    console.log(row);
  }, INTERVAL * 1000);

  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  clearInterval(sampler);
  agent.destroy();
  const seconds = (Date.now() - started) / 1000;
  const finalRss = rssMb(proxy.child.pid);
  const proxyExit = await stop(proxy);
  await stop(mock, 'SIGTERM');

  // Flat after the first minute: RSS moves with each garbage collection, so the highest sample
  // of the last half of the run after it is compared with the highest of the first half.
  const settled = samples.filter((s) => s.t >= 60);
  const peak = Math.max(...samples.map((s) => s.rss));
  const highest = (list: Sample[]) => Math.max(...list.map((s) => s.rss));
  const firstHalf = settled.slice(0, Math.floor(settled.length / 2));
  const lastHalf = settled.slice(Math.floor(settled.length / 2));
  const enough = firstHalf.length > 0 && lastHalf.length > 0;
  const growth = enough ? highest(lastHalf) - highest(firstHalf) : NaN;
  const flat = enough && growth <= Math.max(10, highest(firstHalf) * 0.1);
  const summary = proxy
    .output()
    .split('\n')
    .filter((line) => /exchanges judged|forgot|rule broken|rule\(s\) broken/.test(line))
    .map((line) => line.trim());
  const violations = proxy
    .output()
    .split('\n')
    .filter((line) => line.startsWith('VIOLATION'));
  const lines = [
    `Requests: ${answered} answered in ${seconds.toFixed(0)} s (${(answered / seconds).toFixed(0)}/s), ${failures} unexpected answers or failures; ${tokens} tokens.`,
    `Proxy RSS: ${samples[0]?.rss.toFixed(1)} MB after ${INTERVAL} s, peak ${peak.toFixed(1)} MB, ${finalRss.toFixed(1)} MB at the end; after the first minute, ` +
      (enough
        ? `at most ${highest(firstHalf).toFixed(1)} MB in the first half and ${highest(lastHalf).toFixed(1)} MB in the last (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB): ${flat ? 'levelled off' : 'still growing'}.`
        : 'too short a run to say.'),
    `Proxy exit code after SIGINT: ${proxyExit} (0: no rule broken); ${violations.length} violation line(s) printed.`,
    ...summary.map((line) => `Proxy: ${line}`),
  ];
  console.log('');
  for (const line of [...lines, ...unexpected.map((u) => `unexpected: ${u}`), ...violations.slice(0, 5)])
    console.log(line);
  if (args.out) writeFileSync(args.out, [...intro, '', header, rule, ...rows, '', ...lines, ''].join('\n'));
  if (failures > 0 || proxyExit !== 0 || !flat) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
