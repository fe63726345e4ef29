/**
 * Concurrency over a real socket (issue 6, item 4): hundreds of creates, sends, updates and
 * deletes in flight at once, over many connections, against `listen({port: 0})`. Afterwards no
 * record is lost or duplicated, ids are unique, the cascade is complete, and every list, paged
 * forwards and backwards over HTTP, agrees with the store.
 */
import { listen, type RunningServer } from '../../src/express/server';
import type { Worlds } from '../../src/store/worlds';
import { client, modelProblems } from './support';

let running: RunningServer;
let h: ReturnType<typeof client>;
let worlds: Worlds;

beforeAll(async () => {
  running = await listen({ port: 0, contacts: 5, messages: 20 });
  worlds = running.app.locals.worlds as Worlds;
  h = client(Number(new URL(running.url).port), 64);
});

afterAll(async () => {
  h.close();
  await running.close();
});

const TOKEN = 'concurrent';
const form = (fields: Record<string, string>) => Buffer.from(new URLSearchParams(fields).toString());

async function call(method: string, path: string, fields?: Record<string, string>, token = TOKEN) {
  const res = await h.send({
    method,
    path,
    body: fields ? form(fields) : undefined,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(fields ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
  });
  return {
    status: res.status,
    body: res.text === '' ? undefined : (JSON.parse(res.text) as Record<string, unknown>),
  };
}

/** Every id of a list over HTTP, page by page (7 at a time) forwards, then backwards from the oldest. */
async function pageThrough(
  path: string,
  token = TOKEN,
): Promise<{ forwards: string[]; backwards: string[] }> {
  const sep = path.includes('?') ? '&' : '?';
  const forwards: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = (
      await call('GET', `${path}${sep}limit=7${cursor ? `&starting_after=${cursor}` : ''}`, undefined, token)
    ).body as { has_more: boolean; data: { id: string }[] };
    forwards.push(...page.data.map((x) => x.id));
    if (!page.has_more) break;
    cursor = page.data.at(-1)!.id;
  }
  const backwards: string[] = [];
  cursor = forwards.at(-1);
  while (cursor !== undefined) {
    const page = (await call('GET', `${path}${sep}limit=7&ending_before=${cursor}`, undefined, token))
      .body as {
      has_more: boolean;
      data: { id: string }[];
    };
    backwards.unshift(...page.data.map((x) => x.id));
    cursor = page.has_more ? page.data[0]!.id : undefined;
  }
  if (forwards.length > 0) backwards.push(forwards.at(-1)!);
  return { forwards, backwards };
}

function shuffle<T>(list: T[]): T[] {
  // A fixed shuffle, so a failure replays the same interleaving of requests.
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

describe('Hundreds of requests in flight at once', () => {
  it('lose and duplicate nothing, keep ids unique, cascade fully, and leave lists consistent', async () => {
    const seededMessages = worlds.of(TOKEN).toData().messages;
    const shared = seededMessages.at(-1)!;

    // 300 creates at once.
    const creates = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        call('POST', '/v1/contacts', { username: `c${i}`, phone_number: `${i}` }),
      ),
    );
    expect(creates.map((r) => r.status)).toEqual(creates.map(() => 201));
    const contacts = creates.map((r) => r.body as { id: string; conversation_id: string; username: string });
    expect(new Set(contacts.map((c) => c.id)).size).toBe(300);
    expect(new Set(contacts.flatMap((c) => [c.id, c.conversation_id])).size).toBe(600);

    // Then at once: 600 sends, 200 reactions on one message, 100 edits, 100 deletes (each sent
    // three times), in one shuffled stream.
    const doomed = contacts.slice(0, 100);
    const doomedConversations = new Set(doomed.map((c) => c.conversation_id));
    type Op = { kind: string; run: () => ReturnType<typeof call>; conversation?: string; contact?: string };
    const ops: Op[] = [
      ...contacts.flatMap((c) =>
        [0, 1].map((n) => ({
          kind: 'send',
          conversation: c.conversation_id,
          run: () =>
            call('POST', '/v1/messages', {
              conversation_id: c.conversation_id,
              message: `m${n} to ${c.username}`,
            }),
        })),
      ),
      ...Array.from({ length: 200 }, (_, i) => ({
        kind: 'react',
        run: () => call('PUT', `/v1/messages/${shared.id}`, { 'reactions[heart][]': `user${i}` }),
      })),
      ...seededMessages.slice(0, 10).flatMap((m) =>
        Array.from({ length: 10 }, (_, i) => ({
          kind: 'edit',
          run: () => call('PUT', `/v1/messages/${m.id}`, { message: `edit ${i}` }),
        })),
      ),
      ...doomed.flatMap((c) =>
        [0, 1, 2].map(() => ({
          kind: 'delete',
          contact: c.id,
          run: () => call('DELETE', `/v1/contacts/${c.id}`),
        })),
      ),
    ];
    const results = await Promise.all(shuffle(ops).map(async (op) => ({ op, res: await op.run() })));

    // Every delete of one contact: exactly one 204, the others 404.
    for (const contact of doomed) {
      const statuses = results.filter((r) => r.op.contact === contact.id).map((r) => r.res.status);
      expect(statuses.sort()).toEqual([204, 404, 404]);
    }
    // Every send: 201, or 404 only when its contact was deleted meanwhile.
    const sent = results.filter((r) => r.op.kind === 'send');
    for (const { op, res } of sent) {
      if (res.status !== 201) {
        expect([op.conversation, res.status]).toEqual([op.conversation, 404]);
        expect(doomedConversations.has(op.conversation!)).toBe(true);
      }
    }
    for (const { op, res } of results.filter((r) => r.op.kind === 'react' || r.op.kind === 'edit')) {
      expect([op.kind, res.status]).toEqual([op.kind, 200]);
    }

    const world = worlds.of(TOKEN);
    expect(modelProblems(world)).toEqual([]);
    const data = world.toData();
    const stored = new Set(data.messages.map((m) => m.id));
    expect(stored.size).toBe(data.messages.length);

    // No lost update: each of the 200 reactions is there, once.
    const heart = world.getMessage(shared.id)!.reactions.find((r) => 'heart' in r)!.heart!;
    expect(heart.filter((u) => u.startsWith('user')).sort()).toEqual(
      Array.from({ length: 200 }, (_, i) => `user${i}`).sort(),
    );

    // No lost or duplicated message; the cascade took every message of a deleted contact.
    const created = sent
      .filter((r) => r.res.status === 201)
      .map((r) => r.res.body as { id: string; conversation_id: string });
    expect(new Set(created.map((m) => m.id)).size).toBe(created.length);
    for (const message of created) {
      const expected = !doomedConversations.has(message.conversation_id);
      expect([message.id, stored.has(message.id)]).toEqual([message.id, expected]);
    }
    for (const contact of doomed) {
      expect((await call('GET', `/v1/contacts/${contact.id}`)).status).toBe(404);
      expect((await call('GET', `/v1/messages?conversation_id=${contact.conversation_id}`)).status).toBe(404);
    }
    expect(data.messages.filter((m) => doomedConversations.has(m.conversation_id))).toEqual([]);
    // The interleaving did happen: some sends to a doomed contact landed before its deletion
    // (and were taken by the cascade), some after (404).
    const doomedSends = sent.filter((r) => doomedConversations.has(r.op.conversation!));
    expect(doomedSends.filter((r) => r.res.status === 201).length).toBeGreaterThan(0);
    expect(doomedSends.filter((r) => r.res.status === 404).length).toBeGreaterThan(0);
    expect(data.contacts).toHaveLength(5 + 300 - 100);
    expect(data.messages).toHaveLength(
      seededMessages.length + created.filter((m) => !doomedConversations.has(m.conversation_id)).length,
    );

    // Lists over HTTP, both directions, agree with the store (newest first).
    const newestFirst = (ids: string[]) => [...ids].reverse();
    const contactList = await pageThrough('/v1/contacts');
    expect(contactList.forwards).toEqual(newestFirst(data.contacts.map((c) => c.id)));
    expect(contactList.backwards).toEqual(contactList.forwards);
    const messageList = await pageThrough('/v1/messages');
    expect(messageList.forwards).toEqual(newestFirst(data.messages.map((m) => m.id)));
    expect(messageList.backwards).toEqual(messageList.forwards);
    const survivor = contacts[150]!;
    const conversation = await pageThrough(`/v1/messages?conversation_id=${survivor.conversation_id}`);
    expect(conversation.forwards).toEqual(
      newestFirst(
        data.messages.filter((m) => m.conversation_id === survivor.conversation_id).map((m) => m.id),
      ),
    );
    expect(conversation.forwards).toHaveLength(2);
  }, 60_000);

  it('keep tokens apart while both write at once', async () => {
    const tokens = ['left', 'right'];
    await Promise.all(
      tokens.flatMap((token) =>
        Array.from({ length: 150 }, (_, i) =>
          call('POST', '/v1/contacts', { username: `${token}${i}`, phone_number: '1' }, token),
        ),
      ),
    );
    for (const token of tokens) {
      const other = tokens.find((t) => t !== token)!;
      const data = worlds.of(token).toData();
      expect(data.contacts.filter((c) => c.username.startsWith(token))).toHaveLength(150);
      expect(data.contacts.filter((c) => c.username.startsWith(other))).toHaveLength(0);
      expect(modelProblems(worlds.of(token))).toEqual([]);
    }
  }, 60_000);
});
