/**
 * `npm run bench`: every figure of the performance issue in one run, on this machine.
 *
 *   1. throughput: the mock's GET /v1/contacts against a bare Express 5 app and bare node:http
 *      answering the same bytes, then the other hot endpoints (autocannon, 10 connections);
 *   2. flat cost: median latency of first, deep and conversation pages on the default world and
 *      on a 10,000-contact, 1,000,000-message world;
 *   3. start-up time, memory, and the cost of a new token's world, then what `--data-dir` costs
 *      beside it: reads, writes, a restart, loading a shed world back, disk (bench/durable.ts);
 *   4. the contract kit's wall time, both rule sets;
 *   5. what `messaging-contract proxy` adds to each request, in front of the mock;
 *   6. how long `messaging-fixtures --from` takes to record an account, and that it records it whole;
 *   7. what `messaging-api-mock/msw` adds to a browser bundle with MSW's setupWorker (bench/bundle.ts);
 *   8. what installing each package costs: packages and bytes in an empty project (bench/install.ts);
 *   9. the kit run again and again against honest servers, a new seed each run: every run must
 *      exit 0 (bench/honest-runs.ts);
 *  10. how far each staging server's twin is from its server: the steps of a client's session
 *      whose answers differ in form (bench/twin-compare.ts).
 *
 * Options: --seconds N (per throughput run, default 5), --rounds N (of the side-by-side
 * comparison, default 5), --skip-large, --skip-contract, --skip-proxy, --skip-record, --skip-honest,
 * --skip-twin, --only proxy|record|bundle|install|honest|twin|durable (that section alone), --proxy-requests N (default 2000),
 * --honest-runs N (runs against the mock, default 50), --honest-staging-runs N (against each
 * staging server, default 10),
 * --profile (CPU-profile the mock under the GET /v1/contacts load and print where time goes).
 * Only loopback addresses are used; every load is bounded in time.
 */
import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { generateWorld } from '../src/seed';
import { bundleCost, holding, total } from './bench/bundle';
import { durableSection } from './bench/durable';
import { honestRuns } from './bench/honest-runs';
import { twinDistances } from './bench/twin-compare';
import { installInto, mb, packBoth, scratch } from './bench/install';
import { World } from '../src/store/world';

const root = path.resolve(__dirname, '..');
const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '5' },
    'skip-large': { type: 'boolean', default: false },
    'skip-contract': { type: 'boolean', default: false },
    'skip-proxy': { type: 'boolean', default: false },
    'skip-record': { type: 'boolean', default: false },
    'skip-honest': { type: 'boolean', default: false },
    'skip-twin': { type: 'boolean', default: false },
    'honest-runs': { type: 'string', default: '50' },
    'honest-staging-runs': { type: 'string', default: '10' },
    'proxy-requests': { type: 'string', default: '2000' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
  },
});
const seconds = Math.max(1, Number(args.seconds) || 5);
const rounds = Math.max(1, Math.round(Number(args.rounds)) || 5);
const TOKEN = 'bench-token';
const lines: string[] = [];
const say = (line = '') => {
  console.log(line);
  lines.push(line);
};

interface Server {
  url: string;
  child: ChildProcess;
  startedMs: number;
}

/** Starts a server process and resolves when it prints its "listening on" line. */
function start(command: string[], nodeFlags: string[] = []): Promise<Server> {
  const began = process.hrtime.bigint();
  const child = spawn(process.execPath, [...nodeFlags, ...command], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      seen += chunk;
      const match = /listening on (http:\/\/[\d.:]+)/.exec(seen);
      if (match) resolve({ url: match[1]!, child, startedMs: Number(process.hrtime.bigint() - began) / 1e6 });
    });
    child.stderr!.on('data', () => {});
    child.once('exit', (code) => reject(new Error(`${command.join(' ')} exited (${code}): ${seen}`)));
  });
}

const mockArgs = (...extra: string[]) => [
  path.join(root, 'dist', 'cli', 'bin.js'),
  '--port',
  '0',
  '--quiet',
  ...extra,
];
const tsx = (file: string, ...rest: string[]) => [
  require.resolve('tsx/cli'),
  path.join(__dirname, file),
  ...rest,
];

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null) return resolve();
    server.child.once('exit', () => resolve());
    server.child.kill('SIGINT');
  });
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One request on a kept-alive socket; resolves with the status, body and microseconds. */
function call(
  url: string,
  method = 'GET',
  body?: string,
  token = TOKEN,
): Promise<{ status: number; body: string; us: number }> {
  return new Promise((resolve, reject) => {
    const began = process.hrtime.bigint();
    const req = request(
      url,
      {
        method,
        agent,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, body: text, us: Number(process.hrtime.bigint() - began) / 1e3 }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function json<T>(url: string, token = TOKEN): Promise<T> {
  const res = await call(url, 'GET', undefined, token);
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.body.slice(0, 200)}`);
  return JSON.parse(res.body) as T;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Median latency of `count` sequential requests to each URL after a warm-up, the URLs taken in
 * turn: whatever the machine's neighbours do slows both sides alike, so their ratio holds still.
 */
async function latencies(urls: string[], count = 300): Promise<number[]> {
  for (let i = 0; i < 30; i++) for (const url of urls) await call(url);
  const times: number[][] = urls.map(() => []);
  for (let i = 0; i < count; i++) {
    for (const [at, url] of urls.entries()) {
      const res = await call(url);
      if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
      times[at]!.push(res.us);
    }
  }
  return times.map(median);
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time (user + system) the server process spent per request, in microseconds. */
  cpuUs: number;
}

const TICK_MS = 1000 / 100; // Linux reports process times in clock ticks of USER_HZ = 100.

/** CPU time a process has used so far, in milliseconds (utime + stime of /proc/PID/stat). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** Share of the machine's CPU time the hypervisor gave to other guests (the `steal` of /proc/stat). */
function stolen(): { steal: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { steal: fields[7] ?? 0, total: fields.reduce((a, b) => a + b, 0) };
}

async function load(
  url: string,
  server: Server,
  options: Partial<autocannon.Options> = {},
  duration = seconds,
): Promise<Load> {
  await autocannon({
    url,
    connections: 10,
    duration: 1,
    headers: { authorization: `Bearer ${TOKEN}` },
    ...options,
  });
  const cpuBefore = cpuMs(server.child.pid!);
  const result = await autocannon({
    url,
    connections: 10,
    duration,
    headers: { authorization: `Bearer ${TOKEN}` },
    ...options,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    cpuUs: ((cpuMs(server.child.pid!) - cpuBefore) * 1000) / result.requests.total,
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en');

type Page<T> = { has_more: boolean; data: T[] };
type Contact = { id: string; conversation_id: string; last_active_at: number | null };
type Message = { id: string };

async function throughput(): Promise<void> {
  say(`## Throughput (autocannon, 10 connections, ${seconds} s per run after 1 s of warm-up)`);
  say();
  const mock = await start(
    mockArgs(),
    args.profile ? ['--cpu-prof', `--cpu-prof-dir=${mkdtempSync(path.join(os.tmpdir(), 'mock-prof-'))}`] : [],
  );
  const page = (await call(`${mock.url}/v1/contacts`)).body;
  // In one process each (not through tsx's CLI, which runs a child), so its CPU time is theirs.
  const bare = (file: string, ...flags: string[]) =>
    start([path.join(__dirname, 'bench', file), page, ...flags], ['--import', 'tsx']);
  const bareExpress = await bare('bare-express.ts');
  const bareHttp = await bare('bare-http.ts');
  const bareHttpSwitching = await bare('bare-http.ts', '--switch-prototypes');
  const runs: Record<'http' | 'switching' | 'express' | 'mock', Load[]> = {
    http: [],
    switching: [],
    express: [],
    mock: [],
  };
  const stealBefore = stolen();
  for (let round = 0; round < rounds; round++) {
    runs.http.push(await load(`${bareHttp.url}/v1/contacts`, bareHttp));
    runs.switching.push(await load(`${bareHttpSwitching.url}/v1/contacts`, bareHttpSwitching));
    runs.express.push(await load(`${bareExpress.url}/v1/contacts`, bareExpress));
    runs.mock.push(await load(`${mock.url}/v1/contacts`, mock));
  }
  const stealAfter = stolen();
  await Promise.all([stop(bareExpress), stop(bareHttp), stop(bareHttpSwitching)]);
  // This machine is shared: a run can only be slowed by its neighbours, never sped up, so the
  // best of the alternating rounds is the figure, and the median is shown beside it.
  const best = (list: Load[]) => list.reduce((a, b) => (b.rps > a.rps ? b : a));
  const middle = (list: Load[]) => median(list.map((r) => r.rps));
  const leastCpu = (list: Load[]) => Math.min(...list.map((r) => r.cpuUs));
  const [express, contacts] = [best(runs.express), best(runs.mock)];
  say(
    `Same ${Buffer.byteLength(page)}-byte page of 10 contacts from each server; ${rounds} alternating rounds; the hypervisor took ${((100 * (stealAfter.steal - stealBefore.steal)) / (stealAfter.total - stealBefore.total)).toFixed(1)}% of the machine's CPU time meanwhile (steal):`,
  );
  say();
  say(
    '| server | requests/s, best round | p50 ms | p99 ms | vs bare Express | requests/s, median round | vs bare Express | server CPU per request, least |',
  );
  say('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, list] of [
    ['bare node:http (constant buffer)', runs.http],
    ['bare node:http, switching prototypes as Express does', runs.switching],
    ['bare Express 5 (`res.json` of a constant)', runs.express],
    ['the mock, `GET /v1/contacts`', runs.mock],
  ] as const) {
    const r = best(list);
    say(
      `| ${name} | ${fmt(r.rps)} | ${r.p50} | ${r.p99} | ${(r.rps / express.rps).toFixed(2)}× | ${fmt(middle(list))} | ${(middle(list) / middle(runs.express)).toFixed(2)}× | ${fmt(leastCpu(list))} µs |`,
    );
  }
  say();

  const contact = (await json<Page<Contact>>(`${mock.url}/v1/contacts?active=true&limit=1`)).data[0]!;
  const message = (
    await json<Page<Message>>(`${mock.url}/v1/messages?conversation_id=${contact.conversation_id}&limit=1`)
  ).data[0]!;
  const conversationPage = await load(
    `${mock.url}/v1/messages?conversation_id=${contact.conversation_id}`,
    mock,
  );
  const send = await load(`${mock.url}/v1/messages`, mock, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: `conversation_id=${contact.conversation_id}&message=Hello+from+the+benchmark`,
  });
  const react = await load(`${mock.url}/v1/messages/${message.id}`, mock, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'reactions[thumbs_up][]=bench',
  });
  say('| the mock | requests/s | p50 ms | p99 ms | server CPU per request |');
  say('|---|---:|---:|---:|---:|');
  for (const [name, r] of [
    ['`GET /v1/contacts` (default page)', contacts],
    ['`GET /v1/messages?conversation_id=…`', conversationPage],
    ['`POST /v1/messages`', send],
    ['`PUT /v1/messages/:id` (a reaction)', react],
  ] as const) {
    say(
      `| ${name} | ${fmt(r.rps)} | ${r.p50} | ${r.p99} | ${fmt(r.cpuUs)} µs |${r.errors ? ` ${r.errors} errors!` : ''}`,
    );
  }
  say();
  await stop(mock);
  if (args.profile) printProfile(mock);
}

function printProfile(mock: Server): void {
  const dir = (mock.child.spawnargs.find((a) => a.startsWith('--cpu-prof-dir=')) ?? '').split('=')[1]!;
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return say('(no CPU profile was written)');
  const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string; url: string } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const time = new Map<number, number>();
  profile.samples.forEach((id, i) => time.set(id, (time.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byPlace = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const t = time.get(node.id) ?? 0;
    const url = node.callFrame.url;
    const place = url.includes('node_modules/')
      ? `library ${/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)![1]}`
      : url.includes('/dist/')
        ? `mock ${url.slice(url.indexOf('/dist/') + 6)}`
        : url.startsWith('node:')
          ? 'node core (http, net, streams)'
          : `${node.callFrame.functionName || '(other)'}`;
    if (place === '(idle)') continue;
    total += t;
    byPlace.set(place, (byPlace.get(place) ?? 0) + t);
  }
  say('Where the mock spends its CPU under that load (self time, `--cpu-prof`, idle excluded):');
  say();
  say('| where | share |');
  say('|---|---:|');
  for (const [place, t] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, 16))
    say(`| ${place} | ${((100 * t) / total).toFixed(1)}% |`);
  say();
}

/** First, deep and conversation pages of a world, by name: the same requests on every world. */
async function pages(server: Server): Promise<Record<string, string>> {
  const base = server.url;
  // A deep contacts cursor: walk the whole list 100 at a time, and take the contact in its middle,
  // so that the page after it is a full page on either world.
  const ids: string[] = [];
  for (;;) {
    const page = await json<Page<Contact>>(
      `${base}/v1/contacts?limit=100${ids.length ? `&starting_after=${ids.at(-1)!}` : ''}`,
    );
    ids.push(...page.data.map((c) => c.id));
    if (!page.has_more) break;
  }
  const walked = Math.floor(ids.length / 2);
  const cursor = ids[walked - 1]!;
  // The longest-lived active contact's conversation, and a message from the middle of it.
  const contacts = (await json<Page<Contact>>(`${base}/v1/contacts?active=true&limit=100`)).data;
  let best = { conversation: '', size: 0, middle: '' };
  for (const c of contacts.slice(0, 20)) {
    const list = (
      await json<Page<Message>>(`${base}/v1/messages?conversation_id=${c.conversation_id}&limit=100`)
    ).data;
    if (list.length > best.size)
      best = {
        conversation: c.conversation_id,
        size: list.length,
        middle: list[Math.floor(list.length / 2)]!.id,
      };
  }
  return {
    'contacts, first page': `${base}/v1/contacts`,
    [`contacts, deep page (\`starting_after\` the ${fmt(walked)}th of ${fmt(ids.length)})`]: `${base}/v1/contacts?starting_after=${cursor}`,
    'messages, first page (all conversations)': `${base}/v1/messages`,
    'messages, deep page (`starting_after` a message in the middle of a conversation)': `${base}/v1/messages?starting_after=${best.middle}`,
    'messages, a conversation page': `${base}/v1/messages?conversation_id=${best.conversation}`,
    'messages, a conversation page deep in it': `${base}/v1/messages?conversation_id=${best.conversation}&starting_after=${best.middle}`,
  };
}

/** Time to the first answer, counted from spawning `node`. */
async function firstAnswer(extra: string[]): Promise<{ server: Server; ms: number }> {
  const began = process.hrtime.bigint();
  const server = await start(mockArgs(...extra));
  const res = await call(`${server.url}/v1/contacts`);
  if (res.status !== 200) throw new Error(`first answer: ${res.status}`);
  return { server, ms: Number(process.hrtime.bigint() - began) / 1e6 };
}

/** What a new token's world costs in time: its first request (which makes the copy) and its next. */
async function tokenCost(server: Server): Promise<{ firstUs: number; laterUs: number }> {
  const firsts: number[] = [];
  const laters: number[] = [];
  for (let i = 0; i < 200; i++) {
    const token = `new-token-${i}-${Date.now()}`;
    firsts.push((await call(`${server.url}/v1/contacts`, 'GET', undefined, token)).us);
    laters.push((await call(`${server.url}/v1/contacts`, 'GET', undefined, token)).us);
  }
  return { firstUs: median(firsts), laterUs: median(laters) };
}

/**
 * What a new token's world costs in memory, before and after it writes one message: measured
 * here, in this process's heap after a full garbage collection, on 1,000 copies of a world built
 * as the mock builds it. (The mock's RSS moves by more than a token's world on its own.)
 */
function tokenMemory(contacts: number, messages: number): { copyKb: number; writtenKb: number } {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const seeded = World.fromData(generateWorld({ seed: 1, contacts, messages }));
  const contact = seeded.listContacts({ limit: 1 }).data[0]!;
  const copies: World[] = [];
  const heap = () => {
    gc();
    return process.memoryUsage().heapUsed;
  };
  const start = heap();
  for (let i = 0; i < 1000; i++) copies.push(seeded.clone());
  const copied = heap();
  for (const world of copies) {
    world.sendMessage({ conversation_id: contact.conversation_id, message: 'hi' });
  }
  const written = heap();
  return { copyKb: (copied - start) / 1000 / 1024, writtenKb: (written - start) / 1000 / 1024 };
}

async function scale(): Promise<void> {
  say('## Start-up, memory and flat cost as the world grows');
  say();
  const starts: number[] = [];
  let small: Server | undefined;
  for (let i = 0; i < 3; i++) {
    const { server, ms } = await firstAnswer([]);
    starts.push(ms);
    if (i < 2) await stop(server);
    else small = server;
  }
  const smallRss = rssMb(small!.child.pid!);
  const smallToken = await tokenCost(small!);
  const smallMemory = tokenMemory(25, 300);

  let large: { server: Server; ms: number } | undefined;
  let largeRss = 0;
  let largeToken: Awaited<ReturnType<typeof tokenCost>> | undefined;
  let largeMemory: ReturnType<typeof tokenMemory> | undefined;
  const rows: { name: string; small: number; large?: number }[] = [];
  const smallPages = await pages(small!);
  if (args['skip-large']) {
    for (const [name, url] of Object.entries(smallPages))
      rows.push({ name, small: (await latencies([url]))[0]! });
  } else {
    large = await firstAnswer(['--contacts', '10000', '--messages', '1000000']);
    largeRss = rssMb(large.server.child.pid!);
    const largePages = Object.entries(await pages(large.server));
    // Both worlds are up at once, and each request is measured in turn on one and the other.
    for (const [name, url] of Object.entries(smallPages)) {
      const [largeName, largeUrl] = largePages.find(([n]) => n.split(' (')[0] === name.split(' (')[0])!;
      const [smallUs, largeUs] = await latencies([url, largeUrl]);
      rows.push({
        name:
          name === largeName ? name : `${name.slice(0, -1)}; ${largeName.slice(largeName.indexOf('(') + 1)}`,
        small: smallUs!,
        large: largeUs!,
      });
    }
    largeToken = await tokenCost(large.server);
    await stop(large.server);
    largeMemory = tokenMemory(10_000, 1_000_000);
  }
  await stop(small!);

  say(
    "| world | first answer after `node` starts | RSS after it | new token: first request (makes its world) | new token: next request | new token's memory | after it sends a message |",
  );
  say('|---|---:|---:|---:|---:|---:|---:|');
  say(
    `| default (25 contacts, 300 messages) | ${fmt(median(starts))} ms (median of 3) | ${fmt(smallRss)} MB | ${fmt(smallToken.firstUs)} µs | ${fmt(smallToken.laterUs)} µs | ${smallMemory.copyKb.toFixed(1)} kB | ${smallMemory.writtenKb.toFixed(1)} kB |`,
  );
  if (large && largeToken && largeMemory) {
    say(
      `| 10,000 contacts, 1,000,000 messages | ${fmt(large.ms)} ms | ${fmt(largeRss)} MB | ${fmt(largeToken.firstUs)} µs | ${fmt(largeToken.laterUs)} µs | ${largeMemory.copyKb.toFixed(1)} kB | ${largeMemory.writtenKb.toFixed(1)} kB |`,
    );
  }
  say();
  say(
    'Median latency of one request at a time on a kept-alive connection (300 requests after 30 of warm-up; with both worlds up, each request is sent to one world and then the other):',
  );
  say();
  say('| request | default world | 1,000,000 messages | ratio |');
  say('|---|---:|---:|---:|');
  for (const row of rows) {
    say(
      `| ${row.name} | ${fmt(row.small)} µs | ${row.large === undefined ? '–' : `${fmt(row.large)} µs`} | ${row.large === undefined ? '–' : `${(row.large / row.small).toFixed(2)}×`} |`,
    );
  }
  say();
}

function contractKit(): void {
  say('## The contract kit against the local mock');
  say();
  const result = spawnSync(
    process.execPath,
    tsx('contract-against-mock.ts', '--runs', '3', '--quiet', '--no-build'),
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  const times = result.stdout.split('\n').filter((l) => /median/.test(l));
  for (const line of times) say(`- ${line.trim()}`);
  if (result.status !== 0) say(`(the kit did not pass: exit ${result.status})`);
  // A server 50 ms away: every answer of the mock delayed. The kit's default workers: it measures
  // the round trip and runs its files four at a time, as it would against a remote server.
  const far = spawnSync(
    process.execPath,
    tsx(
      'contract-against-mock.ts',
      ...['--runs', '3', '--quiet', '--no-build', '--rule-set', 'documented', '--latency', '50'],
    ),
    { cwd: root, encoding: 'utf8' },
  );
  for (const line of far.stdout.split('\n').filter((l) => /median/.test(l)))
    say(`- 50 ms away, default workers: ${line.trim()}`);
  if (far.status !== 0) say(`(the kit did not pass 50 ms away: exit ${far.status})`);
  say();
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
};

/**
 * What the contract proxy adds to one request: the same mixed sequence (lists, a retrieve, sends)
 * one request at a time on a kept-alive connection, each request sent direct and through the
 * proxy in turn (which goes first alternates), both processes up at once. The difference of each
 * pair is what the proxy added to that request; its judging runs after the answer, off the clock.
 */
async function proxyCost(): Promise<void> {
  const count = Math.max(100, Math.round(Number(args['proxy-requests'])) || 2000);
  say(`## What the contract proxy adds (${count} requests, one at a time, direct and proxied in turn)`);
  say();
  const mock = await start(mockArgs());
  const proxy = await start([
    path.join(root, 'dist', 'contract-tests', 'bin', 'messaging-contract.js'),
    'proxy',
    '--target',
    mock.url,
    '--port',
    '0',
  ]);
  const token = 'bench-proxy';
  const contacts = await json<Page<Contact>>(`${mock.url}/v1/contacts?limit=5`, token);
  const [first, second] = contacts.data;
  const body = `conversation_id=${second!.conversation_id}&message=bench`;
  const sequence: [string, string, string?][] = [
    ['GET', '/v1/contacts?limit=10'],
    ['GET', `/v1/messages?conversation_id=${first!.conversation_id}&limit=10`],
    ['GET', `/v1/contacts/${first!.id}`],
    ['POST', '/v1/messages', body],
    ['GET', '/v1/messages?limit=20'],
  ];
  const direct: number[] = [];
  const proxied: number[] = [];
  const added: number[] = [];
  for (let i = -100; i < count; i++) {
    const [method, p, sent] = sequence[((i % sequence.length) + sequence.length) % sequence.length]!;
    const order = i % 2 === 0 ? [mock.url, proxy.url] : [proxy.url, mock.url];
    const us: Record<string, number> = {};
    for (const base of order) {
      const res = await call(`${base}${p}`, method, sent, token);
      if (res.status >= 300)
        throw new Error(`${method} ${base}${p}: ${res.status} ${res.body.slice(0, 200)}`);
      us[base] = res.us;
    }
    if (i < 0) continue; // warm-up
    direct.push(us[mock.url]!);
    proxied.push(us[proxy.url]!);
    added.push(us[proxy.url]! - us[mock.url]!);
  }
  await stop(proxy);
  const verdict = proxy.child.exitCode === 0 ? 'no rule broken' : `exit ${proxy.child.exitCode}`;
  await stop(mock);
  say('| per request | p50 | p99 |');
  say('|---|---|---|');
  say(`| direct to the mock | ${fmt(percentile(direct, 50))} µs | ${fmt(percentile(direct, 99))} µs |`);
  say(`| through the proxy | ${fmt(percentile(proxied, 50))} µs | ${fmt(percentile(proxied, 99))} µs |`);
  say(
    `| **added by the proxy** | **${fmt(percentile(added, 50))} µs** | **${fmt(percentile(added, 99))} µs** |`,
  );
  say();
  say(`(The proxy judged every exchange, documented rule set: ${verdict}.)`);
  say();
}

/**
 * `messaging-fixtures --from` against the mock as a process, on the default world and on a world
 * of 1,000 contacts and 100,000 messages: the recorder's wall time (the bin's whole run, as a user
 * starts it), its rate, and whether the file is the mock's own `GET /__mock/state`, byte for byte.
 */
async function recordCost(): Promise<void> {
  say('## Recording an account (`messaging-fixtures --from`, the whole process)');
  say();
  say('| world | wall time | messages/s | the same as `GET /__mock/state` |');
  say('|---|---:|---:|---|');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-record-'));
  for (const [label, extra, messages] of [
    ['default (25 contacts, 300 messages)', [], 300],
    ['1,000 contacts, 100,000 messages', ['--contacts', '1000', '--messages', '100000'], 100_000],
  ] as const) {
    const mock = await start(mockArgs(...extra));
    const out = path.join(dir, 'recorded.json');
    const began = process.hrtime.bigint();
    const run = spawnSync(
      process.execPath,
      [
        path.join(root, 'dist', 'cli', 'fixtures-cli.js'),
        '--from',
        mock.url,
        '--token',
        'bench-record',
        '--out',
        out,
      ],
      { cwd: root, encoding: 'utf8' },
    );
    const ms = Number(process.hrtime.bigint() - began) / 1e6;
    if (run.status !== 0) throw new Error(`messaging-fixtures --from: exit ${run.status}: ${run.stderr}`);
    const state = await call(`${mock.url}/__mock/state`, 'GET', undefined, 'bench-record');
    const same =
      JSON.stringify(JSON.parse(state.body)) === JSON.stringify(JSON.parse(readFileSync(out, 'utf8')));
    await stop(mock);
    say(`| ${label} | ${fmt(ms)} ms | ${fmt((messages / ms) * 1000)} | ${same ? 'yes' : '**no**'} |`);
  }
  say();
}

const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

async function bundleSection(): Promise<void> {
  const cost = await bundleCost();
  say('## The browser bundle (`messaging-api-mock/msw` with `setupWorker`, esbuild, split, minified)');
  say();
  say('| app | first chunk, gzipped | minified | loaded later, gzipped |');
  say('|---|---:|---:|---|');
  // What each later chunk holds, by a source in it: the first that matches names it.
  const NAMES: [string, string][] = [
    ['@faker-js', 'the generator with faker'],
    ['default-world-', 'the default world'],
    ['chunks/seed-', "the generator's entry"],
    ['chunks/simulate-', 'the simulator'],
    ['chunks/openapi-', 'the OpenAPI document'],
    ['graphql', 'graphql (MSW)'],
    ['chunks/layer-', "a twin's conventions"],
    ['chunks/document-', "a twin's OpenAPI document"],
    ['chunks/chunk-', 'a part those share'],
  ];
  const later = (chunks: typeof cost.mswAlone.later) =>
    chunks
      .map(
        (c) => `${NAMES.find(([part]) => holding([c], part).length > 0)?.[1] ?? c.file} ${kB(c.gzipBytes)}`,
      )
      .join(', ') || 'none';
  for (const [label, bundle] of [
    ['MSW alone', cost.mswAlone],
    ['MSW and the mock (ES modules)', cost.withMock],
    ['MSW and the mock through `require` (CommonJS)', cost.withMockCommonJs],
  ] as const)
    say(
      `| ${label} | ${kB(total(bundle.first))} | ${kB(total(bundle.first, 'bytes'))} | ${later(bundle.later)} |`,
    );
  say();
  say(
    `The mock adds ${kB(total(cost.withMock.first) - total(cost.mswAlone.first))} gzipped to the first chunk (budget 60 kB).`,
  );
  say();
}

async function installSection(): Promise<void> {
  const dir = scratch();
  try {
    const [mock, kit] = packBoth(dir);
    const tarball = (p: { filename: string }) => path.join(dir, p.filename);
    say('## Installing the packages (`npm install <tarball>` into an empty project)');
    say();
    say('| installed | packages | node_modules on disk | its files | install time |');
    say('|---|---:|---:|---:|---:|');
    for (const [label, name, tarballs] of [
      [
        '`messaging-api-mock` (the mock, MSW adapter, fixtures, dashboard, recorder)',
        'mock',
        [tarball(mock!)],
      ],
      ['`messaging-contract-kit` (the kit and its proxy)', 'kit', [tarball(kit!)]],
      ['both', 'both', [tarball(mock!), tarball(kit!)]],
    ] as const) {
      const installed = await installInto(dir, name, [...tarballs]);
      say(
        `| ${label} | ${installed.packages} | ${mb(installed.disk)} | ${mb(installed.bytes)} | ${(installed.ms / 1000).toFixed(1)} s |`,
      );
    }
    say();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The kit against honest servers, run after run, each with a new seed: no run may fail. */
async function honestSection(): Promise<void> {
  const runs = Math.max(1, Math.round(Number(args['honest-runs'])) || 50);
  const stagingRuns = Math.max(0, Math.round(Number(args['honest-staging-runs'])) || 0);
  say(`## The contract kit run after run against honest servers (a new seed each run; exit 0 expected)`);
  say();
  await honestRuns({ runs, stagingRuns }, say);
  say();
}

/** Each staging server against its twin, a client's session on both: the steps that differ. */
async function twinSection(): Promise<void> {
  say(`## Each staging server's twin beside its server (messaging-contract twin compare)`);
  say();
  await twinDistances(undefined, say);
  say();
}

async function main(): Promise<void> {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  say(
    `# Benchmark, ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  say();
  if (
    args.only !== undefined &&
    !['proxy', 'record', 'bundle', 'install', 'honest', 'twin', 'durable'].includes(args.only)
  )
    throw new Error('--only takes one section: proxy, record, bundle, install, honest, twin or durable');
  if (args.only === 'durable') {
    await durableSection(say, seconds);
    agent.destroy();
    return;
  }
  if (args.only === 'honest' || args.only === 'twin') {
    await (args.only === 'honest' ? honestSection() : twinSection());
    agent.destroy();
    return;
  }
  if (args.only === 'bundle' || args.only === 'install') {
    await (args.only === 'bundle' ? bundleSection() : installSection());
    agent.destroy();
    return;
  }
  if (args.only === undefined) {
    await throughput();
    await scale();
    await durableSection(say, seconds);
    if (!args['skip-contract']) contractKit();
  }
  if (!args['skip-proxy'] && args.only !== 'record') await proxyCost();
  if (!args['skip-record'] && args.only !== 'proxy') await recordCost();
  if (args.only === undefined) {
    await bundleSection();
    await installSection();
    if (!args['skip-honest']) await honestSection();
    if (!args['skip-twin']) await twinSection();
  }
  agent.destroy();
}

main().catch((error: Error) => {
  console.error(error.stack);
  process.exit(1);
});
