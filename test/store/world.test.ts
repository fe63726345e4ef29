import { generateWorld } from '../../src/seed';
import { World } from '../../src/store/world';

describe('World.clone', () => {
  it('gives independent worlds that share storage until they write', () => {
    const seeded = World.fromData(generateWorld({ seed: 2, contacts: 5, messages: 60 }));
    const before = JSON.stringify(seeded.toData());
    const a = seeded.clone();
    const b = seeded.clone();
    const [first] = a.listContacts({ active: true, limit: 1 }).data;
    const conversation = first!.conversation_id;
    const sent = a.sendMessage({ conversation_id: conversation, message: 'only in a' });
    const older = b.listMessages({ conversation_id: conversation, limit: 1 }).data[0]!;
    b.deleteMessage(older.id);
    const never = a.listContacts({ limit: 100 }).data.find((c) => c.id !== first!.id)!;
    a.deleteContact(never.id);

    expect(JSON.stringify(seeded.toData())).toBe(before);
    expect(b.getMessage(sent.id)).toBeUndefined();
    expect(a.getMessage(older.id)).toBeDefined();
    expect(b.listMessages({ conversation_id: conversation, limit: 100 }).data.map((m) => m.id)).not.toContain(
      older.id,
    );
    expect(a.getContact(never.id)).toBeUndefined();
    expect(b.getContact(never.id)).toEqual(never);
    const cascaded = seeded.listMessages({ conversation_id: never.conversation_id, limit: 100 }).data.length;
    expect(a.size).toEqual({
      contacts: seeded.size.contacts - 1,
      messages: seeded.size.messages + 1 - cascaded,
    });
    expect(b.size).toEqual({ contacts: seeded.size.contacts, messages: seeded.size.messages - 1 });
    expect(seeded.clone().toData()).toEqual(seeded.toData());
  });
});

describe('List order (C7)', () => {
  it('keeps creation order within a second, also when the clock goes back', () => {
    let now = 2_000_000_000;
    const world = World.fromData({ contacts: [], messages: [] }, { now: () => now });
    const make = (username: string) => world.createContact({ username, phone_number: '1' });
    make('a');
    make('b');
    now -= 100; // a clock that jumped back: created_at is older, so these sort as older
    make('c');
    now += 100;
    make('d');
    const names = world.listContacts({ limit: 10 }).data.map((c) => c.username);
    expect(names).toEqual(['d', 'b', 'a', 'c']);
  });

  it('keeps the order of records given with equal created_at', () => {
    const data = generateWorld({ seed: 1, contacts: 3, messages: 0 });
    for (const c of data.contacts) c.created_at = 1_700_000_000;
    const world = World.fromData(data);
    const ids = world.listContacts({ limit: 10 }).data.map((c) => c.id);
    expect(ids).toEqual(data.contacts.map((c) => c.id).reverse());
  });
});

describe('A world’s bound (writes cannot grow memory without end)', () => {
  it('refuses a write past maxWrittenBytes with world_full, changing nothing, and takes writes again after deletes', () => {
    const world = World.fromData(generateWorld({ seed: 4, contacts: 2, messages: 0 }), {
      maxWrittenBytes: 40_000,
    });
    const [contact] = world.listContacts({ limit: 10 }).data;
    const sent: string[] = [];
    let refusal: unknown;
    for (let i = 0; i < 10 && refusal === undefined; i++) {
      try {
        sent.push(
          world.sendMessage({ conversation_id: contact!.conversation_id, message: 'x'.repeat(4000) }).id,
        );
      } catch (error) {
        refusal = error;
      }
    }
    expect(refusal).toEqual(expect.objectContaining({ code: 'world_full', status: 409 }));
    expect(sent.length).toBe(2);
    const before = JSON.stringify(world.toData());
    expect(() =>
      world.sendMessage({ conversation_id: contact!.conversation_id, message: 'y'.repeat(4000) }),
    ).toThrow(/grown/);
    expect(JSON.stringify(world.toData())).toBe(before);
    world.deleteMessage(sent[0]!);
    world.sendMessage({ conversation_id: contact!.conversation_id, message: 'z'.repeat(4000) });
    expect(world.written).toBeLessThanOrEqual(40_000);
  });
});
