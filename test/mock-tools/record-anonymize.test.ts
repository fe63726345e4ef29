import { validateFixture } from '../../src/fixtures';
import { anonymize } from '../../src/recording/anonymize';
import { generateWorld } from '../../src/seed';
import type { WorldData } from '../../src/store/world';

/** The anonymizer of `messaging-fixtures --from --anonymize`. */
const T = 1_700_000_000;

function world(): WorldData {
  const contact = (id: string, username: string, display_name: string | null) => ({
    id,
    username,
    phone_number: `+1 555 01${id.slice(-2)}`,
    avatar_url: `https://example.com/avatars/${username}.png`,
    display_name,
    conversation_id: `V${id}`,
    last_active_at: null,
    created_at: T,
  });
  const message = (
    id: string,
    conversation: string,
    text: string,
    reactions: Record<string, string[]>[],
  ) => ({
    id,
    conversation_id: conversation,
    message: text,
    reactions,
    attachments: [] as WorldData['messages'][number]['attachments'],
    read_at: null,
    created_at: T + 1,
    updated_at: null,
  });
  const data: WorldData = {
    contacts: [
      contact('C01', 'alice', 'Alice Liddell'),
      contact('C02', 'bob', 'bob'),
      contact('C03', 'carol', null),
      contact('C04', 'dave', 'Mum'),
    ],
    messages: [
      message('M1', 'VC01', 'See you at eight?', [{ heart: ['bob', 'alice'] }, { joy: ['zed'] }]),
      message('M2', 'VC02', 'ok', [{ heart: ['alice', 'zed'] }]),
      message('M3', 'VC03', 'See you at eight?', []),
    ],
  };
  data.messages[1]!.attachments.push(
    {
      id: 'A1',
      message_id: 'M2',
      filename: 'Alice passport.pdf',
      file_url: 'https://files.example.com/u/alice/Alice%20passport.pdf',
      file_type: 'application/pdf',
      file_size: 1234,
      created_at: T + 1,
    },
    {
      id: 'A2',
      message_id: 'M2',
      filename: 'holiday.JPG',
      file_url: 'https://cdn.example.com/photos/8f3a?size=large',
      file_type: 'image/jpeg',
      file_size: null,
      created_at: T + 1,
    },
  );
  return data;
}

describe('anonymize', () => {
  const original = world();
  const fake = validateFixture(anonymize(original, 1));

  it('keeps ids, timestamps, reaction names and the shapes of reactions and attachments', () => {
    expect(fake.contacts.map((c) => [c.id, c.conversation_id, c.created_at])).toEqual(
      original.contacts.map((c) => [c.id, c.conversation_id, c.created_at]),
    );
    expect(
      fake.messages.map((m) => m.reactions.map((r) => Object.entries(r).map(([n, us]) => [n, us.length]))),
    ).toEqual(
      original.messages.map((m) =>
        m.reactions.map((r) => Object.entries(r).map(([n, us]) => [n, us.length])),
      ),
    );
    const [pdf, photo] = fake.messages[1]!.attachments;
    expect(pdf).toMatchObject({ id: 'A1', message_id: 'M2', file_type: 'application/pdf', file_size: 1234 });
    expect(pdf!.filename).toMatch(/^[^.]+\.pdf$/);
    expect(pdf!.filename).not.toContain('Alice');
    // The URL ended in the file's name: it ends in the fake one.
    expect(pdf!.file_url).toMatch(
      new RegExp(`/${encodeURIComponent(pdf!.filename).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    );
    expect(photo!.filename).toMatch(/\.JPG$/);
    expect(photo!.file_url).not.toMatch(/\.[A-Za-z]+$/);
  });

  it('gives the same fake for the same value: a contact and its reactions, and a username no contact has', () => {
    const [alice, bob, carol, dave] = fake.contacts;
    const [m1, m2, m3] = fake.messages;
    expect(m1!.reactions).toEqual([
      { heart: [bob!.username, alice!.username] },
      { joy: [expect.any(String)] },
    ]);
    const zed = m1!.reactions[1]!.joy![0]!;
    expect(m2!.reactions).toEqual([{ heart: [alice!.username, zed] }]);
    expect(new Set(fake.contacts.map((c) => c.username).concat(zed)).size).toBe(5);
    expect(m3!.message).toBe(m1!.message);
    expect(m2!.message).not.toBe(m1!.message);
    // A display name that was the username is the fake username; null stays null; one word stays one word.
    expect(bob!.display_name).toBe(bob!.username);
    expect(carol!.display_name).toBeNull();
    expect(dave!.display_name).toMatch(/^\S+$/);
    expect(alice!.display_name).toMatch(/^\S+ \S+/);
  });

  it('leaves no original value anywhere', () => {
    const text = JSON.stringify(fake);
    for (const value of [
      'alice',
      'Alice Liddell',
      '+1 555 0101',
      'example.com/avatars',
      'See you at eight?',
      'zed',
      'passport',
    ])
      expect(text).not.toContain(value);
  });

  it('never hands out an original value, even when faker draws one', () => {
    // A world whose values are the very fakes that seed 1 gives another world.
    const generated = generateWorld({ seed: 3, contacts: 4, messages: 30 });
    const first = anonymize(generated, 1);
    const again = anonymize(first, 1);
    const values = (d: WorldData) =>
      new Set([
        ...d.contacts.flatMap((c) => [c.username, c.phone_number, c.avatar_url]),
        ...d.messages.map((m) => m.message),
      ]);
    const before = values(first);
    expect([...values(again)].filter((v) => before.has(v))).toEqual([]);
  });

  it('is seeded', () => {
    expect(validateFixture(anonymize(world(), 1))).toEqual(fake);
    expect(validateFixture(anonymize(world(), 2))).not.toEqual(fake);
  });
});
