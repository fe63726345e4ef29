import http from 'node:http';

/**
 * The soak's traffic, as a busy CI runner or a small load test makes it: many tokens, one after
 * the other, each a short session (a test file) that reads pages of 100 contacts and messages
 * and writes a little (contacts, messages, edits, reactions, deletes), and now and then a request
 * of a token seen earlier, whose world may have been dropped since. Only loopback addresses.
 */
export interface TrafficOptions {
  url: URL;
  /** Requests to send in all. */
  requests: number;
  /** Distinct tokens: each gets about requests / tokens of them. */
  tokens: number;
  connections: number;
  /** Tokens are `<prefix>-<n>`. */
  prefix: string;
  /** Told of every request once it ends: its answer, or none (`status` undefined). */
  observe?: (exchange: Exchange) => void;
  /** Awaited before each request is sent: a client that waits while the server restarts. */
  ready?: (method: string) => Promise<void>;
}

/** One request and what came of it, for an observer. */
export interface Exchange {
  method: string;
  path: string;
  token: string;
  body?: string;
  /** Undefined when no answer came (the connection failed or was cut). */
  status?: number;
  answer?: any;
  /** Date.now() as it was sent and as it ended. */
  sentAt: number;
  endedAt: number;
}

export interface Interval {
  answered: number;
  latencies: number[];
  /** Answers of 5xx, and requests that got no answer. */
  failures: number;
  /** Answers whose status the client did not expect (4xx but the expected 404s). */
  unexpected: number;
  examples: string[];
}

export interface TrafficTotals {
  answered: number;
  failures: number;
  unexpected: number;
  byStatus: Record<string, number>;
  tokens: number;
}

const newInterval = (): Interval => ({
  answered: 0,
  latencies: [],
  failures: 0,
  unexpected: 0,
  examples: [],
});

interface Answer {
  status: number;
  body: any;
}

interface Known {
  contacts: { id: string; conversation_id: string }[];
  messages: string[];
}

/** Sends the traffic; `interval()` hands over what was answered since its last call. */
export function traffic(options: TrafficOptions): {
  done: Promise<TrafficTotals>;
  interval(): Interval;
  sent(): number;
  /** Ends every session at its next request: the process under test is gone. */
  stop(): void;
} {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const perToken = Math.max(4, Math.round(options.requests / options.tokens));
  let current = newInterval();
  let sent = 0;
  let nextToken = 0;
  let stopped = false;
  const totals: TrafficTotals = { answered: 0, failures: 0, unexpected: 0, byStatus: {}, tokens: 0 };

  const send = (method: string, path: string, token: string, body?: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { Authorization: `Bearer ${token}` };
      if (body !== undefined) {
        headers['Content-Type'] = 'application/x-www-form-urlencoded';
        headers['Content-Length'] = Buffer.byteLength(body);
      }
      const req = http.request(
        { host: options.url.hostname, port: options.url.port, method, path, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            let parsed: unknown;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch {
              parsed = text;
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  /** One request, timed and counted; the answer when there was one. */
  const request = async (
    method: string,
    path: string,
    token: string,
    expected: number[],
    body?: string,
  ): Promise<Answer | undefined> => {
    await options.ready?.(method);
    sent++;
    const started = process.hrtime.bigint();
    const sentAt = Date.now();
    const interval = current;
    try {
      const answer = await send(method, path, token, body);
      options.observe?.({
        method,
        path,
        token,
        body,
        status: answer.status,
        answer: answer.body,
        sentAt,
        endedAt: Date.now(),
      });
      interval.answered++;
      totals.answered++;
      totals.byStatus[answer.status] = (totals.byStatus[answer.status] ?? 0) + 1;
      interval.latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      const failed = answer.status >= 500;
      if (failed || !expected.includes(answer.status)) {
        if (failed) (interval.failures++, totals.failures++);
        else (interval.unexpected++, totals.unexpected++);
        if (interval.examples.length < 3)
          interval.examples.push(
            `${method} ${path} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`,
          );
        return undefined;
      }
      return answer;
    } catch (error) {
      options.observe?.({ method, path, token, body, sentAt, endedAt: Date.now() });
      interval.failures++;
      totals.failures++;
      if (interval.examples.length < 3) interval.examples.push(`${method} ${path} → ${String(error)}`);
      return undefined;
    }
  };

  const pick = <T>(list: readonly T[]): T | undefined =>
    list.length === 0 ? undefined : list[Math.floor(Math.random() * list.length)];
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  // A token seen earlier may have lost its world since (shed, or dropped beyond --max-worlds):
  // its ids then answer 404, and so may a record another of its requests deleted.
  const READ = [200, 404];
  const WRITE = [200, 201, 204, 404];

  /** One session of one token: a first look at its world, then reads of pages of 100 and a few writes. */
  const session = async (token: string): Promise<void> => {
    const known: Known = { contacts: [], messages: [] };
    const learn = (answer: Answer | undefined) => {
      for (const item of answer?.body?.data ?? []) {
        if (typeof item.conversation_id === 'string' && 'username' in item) known.contacts.push(item);
        else if (typeof item.id === 'string') known.messages.push(item.id);
      }
      if (known.messages.length > 400) known.messages.splice(0, 200);
    };
    learn(await request('GET', '/v1/contacts?limit=100', token, [200]));
    learn(await request('GET', '/v1/messages?limit=100', token, [200]));
    for (let i = 2; i < perToken && sent < options.requests && !stopped; i++) {
      const r = Math.random();
      const contact = pick(known.contacts);
      const message = pick(known.messages);
      if (r < 0.05 && nextToken > 100) {
        // A token of an earlier session comes back.
        const earlier = `${options.prefix}-${Math.floor(Math.random() * (nextToken - 1))}`;
        await request('GET', '/v1/messages?limit=100', earlier, READ);
      } else if (r < 0.3 && contact) {
        learn(
          await request(
            'GET',
            `/v1/messages?limit=100&conversation_id=${contact.conversation_id}`,
            token,
            READ,
          ),
        );
      } else if (r < 0.5) {
        const after = message && Math.random() < 0.5 ? `&starting_after=${message}` : '';
        learn(await request('GET', `/v1/messages?limit=100${after}`, token, [200, 400]));
      } else if (r < 0.6) {
        learn(await request('GET', '/v1/contacts?limit=100', token, [200]));
      } else if (r < 0.66 && message) {
        await request('GET', `/v1/messages/${message}`, token, READ);
      } else if (r < 0.7) {
        await request('GET', `/__mock/requests?limit=20`, token, [200]);
      } else if (r < 0.78 && contact) {
        const sentMessage = await request(
          'POST',
          '/v1/messages',
          token,
          WRITE,
          form({
            conversation_id: contact.conversation_id,
            message: `soak ${'x'.repeat(Math.random() * 500)} ✓`,
          }),
        );
        if (sentMessage?.body?.id) known.messages.push(sentMessage.body.id);
      } else if (r < 0.84 && message) {
        const reaction = pick(['heart', 'thumbs_up', 'tada', 'eyes'])!;
        await request(
          'PUT',
          `/v1/messages/${message}`,
          token,
          WRITE,
          `message=edited+${i}&reactions[${reaction}][]=user${i % 20}`,
        );
      } else if (r < 0.88) {
        const n = Math.floor(Math.random() * 1e9);
        const created = await request(
          'POST',
          '/v1/contacts',
          token,
          WRITE,
          form({ username: `soak_${n}`, phone_number: `+1 555 ${n % 10000}`, display_name: `Soak ${n}` }),
        );
        if (created?.body?.id) known.contacts.push(created.body);
      } else if (r < 0.92 && message) {
        known.messages.splice(known.messages.indexOf(message), 1);
        await request('DELETE', `/v1/messages/${message}`, token, WRITE);
      } else if (r < 0.94 && contact) {
        known.contacts.splice(known.contacts.indexOf(contact), 1);
        await request('DELETE', `/v1/contacts/${contact.id}`, token, WRITE);
      } else if (contact) {
        await request(
          'PUT',
          `/v1/contacts/${contact.id}`,
          token,
          WRITE,
          form({ display_name: `Renamed ${i}` }),
        );
      } else {
        learn(await request('GET', '/v1/contacts?limit=100', token, [200]));
      }
    }
  };

  const connection = async () => {
    while (sent < options.requests && !stopped) {
      const token = `${options.prefix}-${nextToken++ % options.tokens}`;
      totals.tokens = Math.min(nextToken, options.tokens);
      await session(token);
    }
  };

  const done = Promise.all(Array.from({ length: options.connections }, connection)).then(() => {
    agent.destroy();
    return totals;
  });
  return {
    done,
    interval: () => {
      const finished = current;
      current = newInterval();
      return finished;
    },
    sent: () => sent,
    stop: () => {
      stopped = true;
    },
  };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
