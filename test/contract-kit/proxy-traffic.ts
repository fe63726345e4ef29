import v8 from 'node:v8';
import vm from 'node:vm';
import { read, type ProxyExchange } from '../../contract-tests/http/exchange';
import { judge, type Violation } from '../../contract-tests/judge/documented';
import type { Limits } from '../../contract-tests/judge/memory';
import { learn, newSession, type SessionState } from '../../contract-tests/judge/session';
import { createCore, type Core } from '../../src/create-core';

/**
 * Honest traffic for the proxy's judge without sockets: the mock's own core answers, and each
 * request with its answer becomes the exchange the proxy would have seen, on a clock of its own.
 * Each token's session is what a client does (pages of 100 walked with their cursor, retrieves,
 * sends, edits, reactions, renames, deletes of messages and contacts), from a seeded generator:
 * the same seed, the same traffic.
 */
type Json = Record<string, any>;

class HonestTraffic {
  readonly core: Core;
  /** Milliseconds, as the proxy's exchanges count them; the core's clock follows it. */
  clock = 1_795_000_000_000;
  private seq = 0;

  constructor() {
    this.core = createCore({ now: () => Math.floor(this.clock / 1000) });
  }

  async exchange(token: string, method: string, url: string, form?: string): Promise<ProxyExchange> {
    const requestHeaders: Record<string, string> = { authorization: `Bearer ${token}` };
    if (form !== undefined) requestHeaders['content-type'] = 'application/x-www-form-urlencoded';
    const startedAt = (this.clock += 10);
    const answer = await this.core.handle({ method, url, headers: requestHeaders, body: form });
    const responseHeaders = Object.fromEntries(
      Object.entries(answer.headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    return {
      seq: ++this.seq,
      method,
      url,
      requestHeaders,
      requestBody: Buffer.from(form ?? ''),
      status: answer.status,
      responseHeaders,
      responseBody: Buffer.from(method === 'HEAD' ? '' : answer.body),
      startedAt,
      finishedAt: (this.clock += 5),
    };
  }
}

/** A small seeded generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Step {
  method: string;
  url: string;
  form?: string;
}

const q = encodeURIComponent;

/** One token's session, `steps` requests long; each step gets the answer to the one before. */
function* clientSession(steps: number, rand: () => number): Generator<Step, void, Json | undefined> {
  const contacts: Json[] = [];
  const messages: Json[] = [];
  const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)];
  const learn = (page: Json | undefined, into: Json[]) => {
    for (const item of page?.data ?? []) if (!into.some((known) => known.id === item.id)) into.push(item);
  };
  const forget = (into: Json[], gone: (item: Json) => boolean) => {
    for (let i = into.length - 1; i >= 0; i--) if (gone(into[i]!)) into.splice(i, 1);
  };
  let left = steps;
  function* walk(base: string, pages: number, into: Json[]): Generator<Step, void, Json | undefined> {
    let page = yield { method: 'GET', url: `${base}limit=100` };
    left--;
    learn(page, into);
    for (let n = 1; n < pages && left > 0 && page?.has_more; n++) {
      page = yield { method: 'GET', url: `${base}limit=100&starting_after=${q(page.data.at(-1).id)}` };
      left--;
      learn(page, into);
    }
  }
  yield* walk('/v1/contacts?', 1, contacts);
  yield* walk('/v1/messages?', 3, messages);
  while (left > 0) {
    const r = rand();
    const contact = pick(contacts);
    const message = pick(messages);
    if (r < 0.25 && contact) {
      yield* walk(`/v1/messages?conversation_id=${q(contact.conversation_id)}&`, 2, messages);
      continue;
    }
    left--;
    if (r < 0.32) learn(yield { method: 'GET', url: '/v1/contacts?limit=100' }, contacts);
    else if (r < 0.38) learn(yield { method: 'GET', url: '/v1/messages' }, messages);
    else if (r < 0.44 && contact) yield { method: 'GET', url: `/v1/contacts/${q(contact.id)}` };
    else if (r < 0.5 && message) yield { method: 'GET', url: `/v1/messages/${q(message.id)}` };
    else if (r < 0.62 && contact) {
      const made = yield {
        method: 'POST',
        url: '/v1/messages',
        form: `conversation_id=${q(contact.conversation_id)}&message=${q(`hello ${r}`)}`,
      };
      if (made?.id) messages.push(made);
    } else if (r < 0.72 && message) {
      const text = rand() < 0.5 ? `&message=${q(`edited ${r}`)}` : '';
      const attachment =
        rand() < 0.2
          ? '&attachments[0][filename]=a.txt&attachments[0][file_url]=https%3A%2F%2Ff.example%2Fa.txt'
          : '';
      yield {
        method: 'PUT',
        url: `/v1/messages/${q(message.id)}`,
        form: `reactions[heart][]=user${Math.floor(r * 100)}${text}${attachment}`,
      };
    } else if (r < 0.78 && contact) {
      yield {
        method: 'PUT',
        url: `/v1/contacts/${q(contact.id)}`,
        form: `display_name=${q(`Renamed ${r}`)}`,
      };
    } else if (r < 0.88 && message) {
      yield { method: 'DELETE', url: `/v1/messages/${q(message.id)}` };
      forget(messages, (m) => m.id === message.id);
    } else if (r < 0.94) {
      const n = Math.floor(r * 1e9);
      const made = yield {
        method: 'POST',
        url: '/v1/contacts',
        form: `username=u${n}&phone_number=%2B1%20555%20${n % 10000}`,
      };
      if (made?.id) contacts.push(made);
    } else if (contact) {
      yield { method: 'DELETE', url: `/v1/contacts/${q(contact.id)}` };
      forget(contacts, (c) => c.id === contact.id);
      forget(messages, (m) => m.conversation_id === contact.conversation_id);
    }
  }
}

export interface Driven {
  violations: Violation[];
  /** The rules the exchanges were judged against. */
  checked: Set<string>;
  exchanges: number;
}

/**
 * Runs `tokens` sessions through the judge, `concurrent` of them at a time taking turns, judging
 * each exchange and learning from it as the proxy does. `after` runs after each exchange learnt.
 */
export async function drive(
  state: SessionState,
  options: {
    tokens: number;
    steps: number;
    concurrent: number;
    seed: number;
    ruleSet?: 'documented' | 'mock';
  },
  after: (state: SessionState) => void = () => {},
): Promise<Driven> {
  const traffic = new HonestTraffic();
  const rand = random(options.seed);
  const violations: Violation[] = [];
  const checked = new Set<string>();
  let exchanges = 0;
  let begun = 0;
  const sessions: { token: string; steps: ReturnType<typeof clientSession>; last?: Json }[] = [];
  const begin = () => {
    begun++;
    sessions.push({ token: `traffic-${options.seed}-${begun}`, steps: clientSession(options.steps, rand) });
  };
  while (begun < Math.min(options.concurrent, options.tokens)) begin();
  while (sessions.length > 0) {
    const session = sessions.shift()!;
    const next = session.steps.next(session.last);
    if (next.done) {
      if (begun < options.tokens) begin();
      continue;
    }
    const { method, url, form } = next.value;
    const exchange = await traffic.exchange(session.token, method, url, form);
    const reading = read(exchange);
    const judgement = judge(reading, state, options.ruleSet ?? 'mock');
    violations.push(...judgement.violations);
    for (const rule of judgement.checked) checked.add(rule);
    learn(state, reading);
    after(state);
    exchanges++;
    session.last = reading.body as Json | undefined;
    sessions.push(session);
  }
  return { violations, checked, exchanges };
}

/**
 * The heap that what the session learnt holds, against the bytes it counts: honest traffic of
 * many tokens learnt into a session (no bound met), the heap measured after a full collection
 * before and after. Run it in a process of its own: the heap of a test runner moves too much.
 * @public (the memory test calls it in a child process, by name)
 */
export async function heldAgainstCounted(
  limits: Limits,
  tokens: number,
): Promise<{ held: number; counted: number }> {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const traffic = new HonestTraffic();
  const rand = random(7);
  // The core's worlds and the traffic's own objects are made first, and kept, outside the count.
  const exchanges: ProxyExchange[] = [];
  for (let t = 0; t < tokens; t++) {
    const steps = clientSession(60, rand);
    let last: Json | undefined;
    for (let next = steps.next(); !next.done; next = steps.next(last)) {
      const exchange = await traffic.exchange(
        `held-${t}`,
        next.value.method,
        next.value.url,
        next.value.form,
      );
      exchanges.push(exchange);
      last = read(exchange).body as Json | undefined;
    }
  }
  // Once to warm up (code, caches), then let go before the first reading: a session still held
  // then, but collected before the second, would make what is held look negative.
  let warm: ReturnType<typeof newSession> | undefined = newSession(limits);
  for (const exchange of exchanges) learn(warm, read(exchange));
  warm = undefined;
  // Three readings, each of a session of its own, and the middle one: a collection that runs late
  // (once seen under load in CI) makes one reading far off, never two.
  const readings: { held: number; counted: number }[] = [];
  for (let i = 0; i < 3; i++) {
    let state: ReturnType<typeof newSession> | undefined = newSession(limits);
    const before = heap();
    // Each answer is read and learnt, then let go, as in the proxy: only what the session keeps stays.
    for (const exchange of exchanges) learn(state, read(exchange));
    readings.push({ held: heap() - before, counted: state.memory.bytes });
    if (exchanges.length === 0 || state.worlds.size < 0) throw new Error('unreachable');
    state = undefined;
  }
  readings.sort((a, b) => a.held - b.held);
  return readings[1]!;
}
