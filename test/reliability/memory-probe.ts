/**
 * Measures what the mock's tokens really hold against what its budget counts for them. Run in a
 * child process of its own, with a collector to call (test/reliability/memory.test.ts):
 *
 *   node --expose-gc --import tsx test/reliability/memory-probe.ts <scenario>
 *
 * It builds a core, warms it up (every seeded record rendered, every code path compiled), takes
 * the heap after a full collection, runs the scenario, collects again, and prints one JSON line:
 * `{"scenario", "counted", "held"}`, held being the growth of the heap and of memory outside it.
 */
import { createCore, type Core } from '../../src/create-core';
import { generateWorld } from '../../src/seed';

declare const gc: () => void;

const SEEDED = { seed: 3, contacts: 25, messages: 300 };

function held(): number {
  for (let i = 0; i < 4; i++) gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

async function send(
  core: Core,
  token: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; json: () => any }> {
  const answer = await core.handle({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (answer.status >= 500) throw new Error(`${method} ${url}: ${answer.status} ${answer.body}`);
  return { status: answer.status, json: () => JSON.parse(answer.body) };
}

/** Every page of both lists and a retrieve of each record: the views and their JSON made and cached. */
async function readAll(core: Core, token: string): Promise<void> {
  for (const list of ['/v1/contacts', '/v1/messages']) {
    let after = '';
    for (;;) {
      const page = (await send(core, token, 'GET', `${list}?limit=100${after}`)).json();
      for (const item of page.data) await send(core, token, 'GET', `${list}/${item.id}`);
      if (!page.has_more) break;
      after = `&starting_after=${page.data.at(-1).id}`;
    }
  }
}

const TEXTS = [
  (i: number) => `Short note ${i}`,
  (i: number) => `Plain ASCII ${i} `.repeat(120),
  (i: number) => `Ünïcödé ✓ 日本語 ${i} 😀 `.repeat(80),
  (i: number) => `"quoted" \\ line\nbreak\ttab \u0001 ${i} `.repeat(100),
  (i: number) => '😀'.repeat(1990) + String(i % 10),
];

/** What one token does in the worlds scenario: creates, sends, edits, reacts, attaches, renames, deletes, reads. */
async function busyToken(core: Core, token: string, n: number): Promise<void> {
  const page = (await send(core, token, 'GET', '/v1/contacts?limit=100')).json();
  const seeded = page.data as { id: string; conversation_id: string }[];
  const created = [];
  for (let c = 0; c < 2; c++) {
    created.push(
      (
        await send(core, token, 'POST', '/v1/contacts', {
          username: `user_${n}_${c}_${'u'.repeat(40)}`,
          phone_number: '+1 (555) 010-0000',
          avatar_url: `https://avatars.example.com/${'a'.repeat(1800)}/${n}.png`,
          display_name: `Ünï 😀 ${n}`.repeat(5),
        })
      ).json(),
    );
  }
  const conversations = [created[0].conversation_id, created[1].conversation_id, seeded[3]!.conversation_id];
  const sent = [];
  for (let m = 0; m < TEXTS.length * 2; m++) {
    const message = TEXTS[m % TEXTS.length]!(n * 100 + m);
    const attachments =
      m % 3 === 0
        ? [
            {
              filename: `file-${m}.pdf`,
              file_url: `https://files.example.com/${'f'.repeat(200)}.pdf`,
              file_size: 12,
            },
          ]
        : undefined;
    const answer = await send(core, token, 'POST', '/v1/messages', {
      conversation_id: conversations[m % conversations.length],
      message,
      attachments,
    });
    if (answer.status === 201) sent.push(answer.json());
  }
  for (const message of sent.slice(0, 4)) {
    await send(core, token, 'PUT', `/v1/messages/${message.id}`, {
      message: `${message.message} (edited)`,
      reactions: { thumbs_up: ['ann', 'bob', `user_${n}`], heart: ['cy'] },
      attachments: [
        { filename: 'b.png', file_url: 'https://files.example.com/b.png', file_type: 'image/png' },
      ],
    });
  }
  const seededMessages = (await send(core, token, 'GET', '/v1/messages?limit=40')).json().data;
  await send(core, token, 'PUT', `/v1/messages/${seededMessages[5].id}`, { reactions: { wave: ['zed'] } });
  await send(core, token, 'DELETE', `/v1/messages/${seededMessages[10].id}`);
  await send(core, token, 'DELETE', `/v1/messages/${seededMessages[30].id}`);
  await send(core, token, 'PUT', `/v1/contacts/${seeded[1]!.id}`, { display_name: `Renamed ${n}` });
  await send(core, token, 'DELETE', `/v1/contacts/${seeded[2]!.id}`);
  await send(core, token, 'DELETE', `/v1/messages/${sent[1].id}`);
  await readAll(core, token);
}

const scenarios: Record<string, () => Promise<{ counted: number; held: number; note: string }>> = {
  /** Twenty tokens whose journals are full of excerpts of pages of 100 messages (about 90 kB each). */
  async journal() {
    const core = createCore({ ...SEEDED, journalSize: 200, maxTotalBytes: 2 ** 40 });
    await readAll(core, 'warm');
    for (let i = 0; i < 250; i++) await send(core, 'warm', 'GET', `/v1/messages?limit=100&x${i % 2}=`);
    const before = held();
    for (let t = 0; t < 20; t++)
      for (let i = 0; i < 200; i++) await send(core, `journal-${t}`, 'GET', '/v1/messages?limit=100');
    return {
      counted: core.worlds.bytes - core.worlds.bytesOf('warm'),
      held: held() - before,
      note: '20 tokens × 200 pages of 100',
    };
  },

  /** Two hundred tokens that each write (contacts, messages of every script, edits, deletes, a rename, a cascade) and read everything. */
  async worlds() {
    const core = createCore({ ...SEEDED, maxTotalBytes: 2 ** 40 });
    await busyToken(core, 'warm', 0);
    const before = held();
    for (let t = 1; t <= 200; t++) await busyToken(core, `world-${t}`, t);
    return {
      counted: core.worlds.bytes - core.worlds.bytesOf('warm'),
      held: held() - before,
      note: '200 busy tokens',
    };
  },

  /** Three thousand tokens that each made one small request: their copies of the seeded world. */
  async sessions() {
    const core = createCore({ ...SEEDED, maxTotalBytes: 2 ** 40, maxWorlds: 10_000 });
    await send(core, 'warm', 'GET', '/v1/contacts?limit=1');
    const before = held();
    for (let t = 0; t < 3000; t++) await send(core, `session-${t}`, 'GET', '/v1/contacts?limit=1');
    return {
      counted: core.worlds.bytes - core.worlds.bytesOf('warm'),
      held: held() - before,
      note: '3,000 tokens, one request each',
    };
  },

  /** Thirty tokens that each replaced their world with a fixture of 2,000 messages (PUT /__mock/state). */
  async fixtures() {
    const core = createCore({ ...SEEDED, maxTotalBytes: 2 ** 40 });
    const fixture = generateWorld({ seed: 9, contacts: 40, messages: 2000 });
    await send(core, 'warm', 'PUT', '/__mock/state', fixture);
    await readAll(core, 'warm');
    const before = held();
    for (let t = 0; t < 30; t++) {
      await send(core, `fixture-${t}`, 'PUT', '/__mock/state', fixture);
      await readAll(core, `fixture-${t}`);
    }
    return {
      counted: core.worlds.bytes - core.worlds.bytesOf('warm'),
      held: held() - before,
      note: '30 fixtures of 2,000 messages',
    };
  },

  /**
   * Two hundred tokens that each write a little all over a world of 100,000 messages, where a
   * write costs less than the copies it makes of the shared lists' B+ tree nodes.
   */
  async deep() {
    const core = createCore({ seed: 4, contacts: 2000, messages: 100_000, maxTotalBytes: 2 ** 40 });
    const contacts = (await send(core, 'warm', 'GET', '/v1/contacts?limit=100')).json().data;
    const messages = (await send(core, 'warm', 'GET', '/v1/messages?limit=100')).json().data;
    const before = held();
    for (let t = 0; t < 200; t++) {
      const token = `deep-${t}`;
      for (let i = 0; i < 3; i++) {
        const contact = contacts[(t * 7 + i * 31) % contacts.length];
        await send(core, token, 'POST', '/v1/messages', {
          conversation_id: contact.conversation_id,
          message: 'hi',
        });
        await send(core, token, 'DELETE', `/v1/messages/${messages[(t * 13 + i * 17) % messages.length].id}`);
      }
      await send(core, token, 'POST', '/v1/contacts', { username: `deep${t}`, phone_number: '1' });
      await send(core, token, 'DELETE', `/v1/contacts/${contacts[(t * 11) % contacts.length].id}`);
    }
    return {
      counted: core.worlds.bytes - core.worlds.bytesOf('warm'),
      held: held() - before,
      note: '200 tokens writing over 100,000 messages',
    };
  },

  /**
   * The control: excerpts cut with slice() from long answers, counted as the journal once counted
   * them. The measure must find them holding far more than that count: it sees a parent kept alive.
   */
  async sliced() {
    const kept: string[] = [];
    const before = held();
    let counted = 0;
    for (let i = 0; i < 2000; i++) {
      const answer = JSON.stringify({
        i,
        data: Array.from({ length: 300 }, (_, j) => `item ${i} ${j} ${'x'.repeat(200)}`),
      });
      const excerpt = `${answer.slice(0, 2048)}…`;
      kept.push(excerpt);
      counted += 256 + 2 * excerpt.length;
    }
    const after = held();
    if (kept.length !== 2000) throw new Error('unreachable');
    return { counted, held: after - before, note: '2,000 excerpts sliced from 60 kB texts' };
  },
};

const name = process.argv[2] ?? '';
const scenario = scenarios[name];
if (scenario === undefined) {
  console.error(`usage: memory-probe.ts <${Object.keys(scenarios).join('|')}>`);
  process.exit(2);
}
scenario().then(
  (result) => console.log(JSON.stringify({ scenario: name, ...result })),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
