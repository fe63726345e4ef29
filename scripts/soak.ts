/**
 * Soak test (issue 6): mixed reads and writes at full speed against the mock started as a real
 * process on 127.0.0.1 (an ephemeral port), new tokens included. Every interval it samples the
 * server's resident memory and the p50/p99 latency of the requests answered in it, prints a
 * table, and ends with whether RSS levelled off and p99 stayed stable.
 *
 *   npx tsx scripts/soak.ts [--seconds 300] [--interval 15] [--connections 16] [--out file.md]
 *
 * Only loopback traffic; every request loop stops by itself at the deadline or after
 * --max-requests, whichever comes first. Needs `npm run build` (it runs dist/cli/bin.js).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '300' },
    interval: { type: 'string', default: '15' },
    connections: { type: 'string', default: '16' },
    'max-requests': { type: 'string', default: '100000000' },
    'max-worlds': { type: 'string', default: '1000' },
    'new-token-every': { type: 'string', default: '50' },
    out: { type: 'string' },
  },
});

const SECONDS = positive('seconds');
const INTERVAL = positive('interval');
const CONNECTIONS = positive('connections');
const MAX_REQUESTS = positive('max-requests');
const MAX_WORLDS = positive('max-worlds');
/** One request in this many goes out under a token never seen before (a new world). */
const NEW_TOKEN_EVERY = positive('new-token-every');
/** Tokens that come back again and again, so their worlds are written to and read from. */
const STEADY_TOKENS = 200;
/** Per token, the client keeps the world about this size: creates and deletes balance out. */
const CONTACTS_PER_TOKEN = 12;
const MESSAGES_PER_TOKEN = 60;

function positive(name: keyof typeof args): number {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number ≥ 1`);
  return n;
}

const BIN = path.join(__dirname, '..', 'dist', 'cli', 'bin.js');

interface Server {
  url: URL;
  pid: number;
  stop(): Promise<number | null>;
  evictions(): number;
  /** Why the server ended before it was asked to, if it did. */
  died(): string | undefined;
}

async function startServer(): Promise<Server> {
  if (!existsSync(BIN)) throw new Error('dist/cli/bin.js is missing: run `npm run build` first.');
  const child = spawn(
    process.execPath,
    [BIN, '--host', '127.0.0.1', '--port', '0', '--quiet', '--max-worlds', String(MAX_WORLDS)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let banner = '';
  let listening = false;
  let evictions = 0;
  let stopping = false;
  let died: string | undefined;
  child.once('exit', (code, signal) => {
    if (!stopping) died = `the mock exited during the soak (code ${code}, signal ${signal})`;
  });
  const url = await new Promise<URL>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the mock exited with ${code} before listening`)));
    // Keep reading stdout for the whole run: a full pipe would stall the server.
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      evictions += text.match(/ dropped: /g)?.length ?? 0;
      if (!listening) {
        banner += text;
        const match = /listening on (http:\/\/\S+)/.exec(banner);
        if (match) {
          listening = true;
          resolve(new URL(match[1]!));
        }
      } else {
        // Anything but eviction lines (a signal, an internal error) is worth seeing.
        for (const line of text.split('\n')) {
          const banner = /^(Base URL|Sample token|Try):/.test(line);
          if (line.trim() !== '' && !banner && !line.includes(' dropped: '))
            console.error(`  server: ${line}`);
        }
      }
    });
  });
  // Traffic goes to this machine only.
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing to load a non-loopback address: ${url}`);
  return {
    url,
    pid: child.pid!,
    evictions: () => evictions,
    died: () => died,
    stop: () =>
      new Promise((resolve) => {
        stopping = true;
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

/** Resident set size of a process in MB, from /proc (Linux). */
function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN; // the process is gone
  }
}

interface Answer {
  status: number;
  body: unknown;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

function send(url: URL, method: string, pathname: string, token: string, form?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { Authorization: `Bearer ${token}` };
    if (form !== undefined) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      headers['Content-Length'] = Buffer.byteLength(form);
    }
    const req = http.request(
      { host: url.hostname, port: url.port, method, path: pathname, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let body: unknown;
          try {
            body = text === '' ? undefined : JSON.parse(text);
          } catch {
            body = text;
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

/** What the client knows of one token's world: enough to address its records by id. */
interface Known {
  contacts: { id: string; conversation_id: string }[];
  messages: string[];
}

const known = new Map<string, Known>();
const steady = Array.from({ length: STEADY_TOKENS }, (_, i) => `soak-steady-${i}`);
let freshTokens = 0;

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** One operation: [method, path, form body, expected status, what to learn from the answer]. */
type Operation = [string, string, string | undefined, number[], (body: unknown) => void];

function nextOperation(token: string): Operation {
  const k = known.get(token) ?? { contacts: [], messages: [] };
  known.set(token, k);
  const r = Math.random();
  const contact = k.contacts.length > 0 ? pick(k.contacts) : undefined;
  const message = k.messages.length > 0 ? pick(k.messages) : undefined;
  // Once the seeded lists have been read, ids of seeded records are known too.
  if (r < 0.02) {
    // The journal of the token's recent requests: a bounded cache that must stay bounded.
    return ['GET', '/__mock/requests?limit=20', undefined, [200], () => {}];
  }
  if (r < 0.18) {
    return [
      'GET',
      `/v1/contacts?limit=${1 + Math.floor(Math.random() * 20)}`,
      undefined,
      [200],
      (body) => {
        for (const c of (body as { data: { id: string; conversation_id: string }[] }).data) {
          if (!k.contacts.some((x) => x.id === c.id)) k.contacts.push(c);
        }
      },
    ];
  }
  if (r < 0.34) {
    const filter = contact && Math.random() < 0.5 ? `&conversation_id=${contact.conversation_id}` : '';
    return [
      'GET',
      `/v1/messages?limit=${1 + Math.floor(Math.random() * 20)}${filter}`,
      undefined,
      [200, 404], // 404: the contact was deleted by another connection meanwhile
      (body) => {
        const data = (body as { data?: { id: string }[] }).data ?? [];
        for (const m of data) if (!k.messages.includes(m.id)) k.messages.push(m.id);
      },
    ];
  }
  if (r < 0.42 && contact) return ['GET', `/v1/contacts/${contact.id}`, undefined, [200, 404], () => {}];
  if (r < 0.5 && message) return ['GET', `/v1/messages/${message}`, undefined, [200, 404], () => {}];
  if (r < 0.6) {
    if (k.contacts.length >= CONTACTS_PER_TOKEN && contact) {
      k.contacts.splice(k.contacts.indexOf(contact), 1);
      return ['DELETE', `/v1/contacts/${contact.id}`, undefined, [204, 404], () => {}];
    }
    const n = Math.floor(Math.random() * 1e9);
    return [
      'POST',
      '/v1/contacts',
      form({ username: `soak_${n}`, phone_number: `+1 555 ${n % 10000}`, display_name: `Soak ${n}` }),
      [201],
      (body) => k.contacts.push(body as { id: string; conversation_id: string }),
    ];
  }
  if (r < 0.78 && contact) {
    if (k.messages.length >= MESSAGES_PER_TOKEN && message) {
      k.messages.splice(k.messages.indexOf(message), 1);
      return ['DELETE', `/v1/messages/${message}`, undefined, [204, 404], () => {}];
    }
    return [
      'POST',
      '/v1/messages',
      form({ conversation_id: contact.conversation_id, message: `soak ${'x'.repeat(Math.random() * 200)}` }),
      [201, 404],
      (body) => {
        const id = (body as { id?: string }).id;
        if (id) k.messages.push(id);
      },
    ];
  }
  if (r < 0.9 && message) {
    const reaction = pick(['heart', 'thumbs_up', 'tada', 'eyes']);
    return [
      'PUT',
      `/v1/messages/${message}`,
      `message=edited+${Date.now()}&reactions[${reaction}][]=user${Math.floor(Math.random() * 20)}`,
      [200, 404],
      () => {},
    ];
  }
  if (contact) {
    return [
      'PUT',
      `/v1/contacts/${contact.id}`,
      form({ display_name: `Renamed ${Math.floor(Math.random() * 1e6)}` }),
      [200, 404],
      () => {},
    ];
  }
  return ['GET', '/v1/contacts', undefined, [200], () => {}];
}

interface Interval {
  latencies: number[];
  errors: number;
  unexpected: string[];
}

const newInterval = (): Interval => ({ latencies: [], errors: 0, unexpected: [] });

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const server = await startServer();
  const started = Date.now();
  const deadline = started + SECONDS * 1000;
  let sent = 0;
  let current = newInterval();
  const total = { requests: 0, errors: 0 };

  const loop = async () => {
    while (Date.now() < deadline && sent < MAX_REQUESTS && server.died() === undefined) {
      sent++;
      const token = sent % NEW_TOKEN_EVERY === 0 ? `soak-fresh-${++freshTokens}` : pick(steady);
      const [method, pathname, body, expected, learn] = nextOperation(token);
      const t0 = process.hrtime.bigint();
      try {
        const answer = await send(server.url, method, pathname, token, body);
        current.latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (!expected.includes(answer.status)) {
          current.errors++;
          if (current.unexpected.length < 3) {
            current.unexpected.push(
              `${method} ${pathname} → ${answer.status} ${JSON.stringify(answer.body)}`,
            );
          }
        } else if (answer.status < 300) learn(answer.body);
      } catch (error) {
        current.errors++;
        if (current.unexpected.length < 3)
          current.unexpected.push(`${method} ${pathname} → ${String(error)}`);
      }
      if (token.startsWith('soak-fresh-')) known.delete(token);
    }
  };

  const rows: string[] = [];
  const samples: { t: number; rss: number; p50: number; p99: number; rps: number }[] = [];
  const header =
    '| t (s) | requests | req/s | errors | p50 (ms) | p99 (ms) | max (ms) | RSS (MB) | worlds dropped | load (1 min) |';
  const rule = '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
  console.log(
    `Soak: ${SECONDS} s against ${server.url.origin} (pid ${server.pid}), ${CONNECTIONS} connections`,
  );
  console.log(`Machine: ${os.cpus().length} cores, Node ${process.version}, ${new Date().toISOString()}`);
  console.log(`RSS before load: ${rssMb(server.pid).toFixed(1)} MB`);
  console.log(header);
  console.log(rule);
  const sampler = setInterval(() => {
    const done = current;
    current = newInterval();
    const sorted = done.latencies.sort((a, b) => a - b);
    const t = Math.round((Date.now() - started) / 1000);
    const sample = {
      t,
      rss: rssMb(server.pid),
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      rps: sorted.length / INTERVAL,
    };
    samples.push(sample);
    total.requests += sorted.length;
    total.errors += done.errors;
    const row =
      `| ${t} | ${sorted.length} | ${sample.rps.toFixed(0)} | ${done.errors} | ${sample.p50.toFixed(2)} | ` +
      `${sample.p99.toFixed(2)} | ${(sorted.at(-1) ?? NaN).toFixed(1)} | ${sample.rss.toFixed(1)} | ${server.evictions()} | ` +
      `${os.loadavg()[0]!.toFixed(2)} |`;
    rows.push(row);
    console.log(row);
    for (const line of done.unexpected) console.log(`  unexpected: ${line}`);
  }, INTERVAL * 1000);

  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  clearInterval(sampler);
  agent.destroy();
  const exitCode = await server.stop();

  // Levelling off: compare the second half of the run with the first half's end.
  const half = samples.slice(Math.floor(samples.length / 2));
  const firstHalf = samples.slice(0, Math.floor(samples.length / 2));
  const rssGrowth = half.length > 1 ? half.at(-1)!.rss - half[0]!.rss : NaN;
  const p99s = (list: typeof samples) => list.map((s) => s.p99).sort((a, b) => a - b);
  const summary = [
    `Requests: ${total.requests} answered (${(total.requests / SECONDS).toFixed(0)}/s), ${total.errors} unexpected answers or failures; ${freshTokens} new tokens, ${server.evictions()} worlds dropped by the LRU (max ${MAX_WORLDS}).`,
    `RSS: ${samples[0]?.rss.toFixed(1)} MB after the first interval, peak ${Math.max(...samples.map((s) => s.rss)).toFixed(1)} MB, ` +
      (Number.isNaN(rssGrowth)
        ? 'too short a run to compare its halves.'
        : `${rssGrowth >= 0 ? '+' : ''}${rssGrowth.toFixed(1)} MB over the second half of the run.`),
    `p99: median ${percentile(p99s(firstHalf), 50).toFixed(2)} ms in the first half, ${percentile(p99s(half), 50).toFixed(2)} ms in the second half.`,
    `Server exit code after SIGTERM: ${exitCode}.`,
  ];
  const death = server.died();
  if (death) summary.unshift(`FAILED: ${death}.`);
  console.log('');
  for (const line of summary) console.log(line);
  if (args.out) {
    writeFileSync(
      args.out,
      [
        `Soak of ${SECONDS} s, ${CONNECTIONS} connections, started ${new Date(started).toISOString()}, ${os.cpus().length} cores, Node ${process.version}`,
        '',
        header,
        rule,
        ...rows,
        '',
        ...summary,
        '',
      ].join('\n'),
    );
  }
  if (total.errors > 0 || exitCode !== 0 || death) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
