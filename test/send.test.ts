import fc from 'fast-check';
import { toJson } from '../src/core/json';
import { generateWorld } from '../src/seed';
import { World } from '../src/store/world';

/** Any value, with some parts frozen: the serializer caches frozen objects' texts. */
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null)),
    fc.constant(undefined),
    fc.constant(() => 1),
    fc.date({ noInvalidDate: true }),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 5 }).chain((a) => fc.constantFrom(a, Object.freeze(a))),
  object: fc
    .dictionary(fc.string(), tie('value'), { maxKeys: 5 })
    .chain((o) => fc.constantFrom(o, Object.freeze(o), Object.assign(Object.create(null) as object, o))),
}));

describe('toJson (the answers’ serializer)', () => {
  it('writes exactly what JSON.stringify writes, for any value', () => {
    fc.assert(
      fc.property(values.value, (value) => {
        expect(toJson(value)).toBe(JSON.stringify(value));
        // A second time, from the cache where there is one.
        expect(toJson(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves objects with toJSON and class instances to JSON.stringify', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly hidden?: number,
      ) {}
    }
    const value = { at: new Date(0), point: new Point(1), custom: { toJSON: () => 'custom' } };
    expect(toJson(value)).toBe(JSON.stringify(value));
  });
});

describe('Record views (what makes the serializer’s cache right)', () => {
  const world = () => World.fromData(generateWorld({ seed: 3, contacts: 4, messages: 40 }));

  it('hands out one frozen view per unchanged record, and a new one after a change', () => {
    const w = world();
    const [contact] = w.listContacts({ limit: 1 }).data;
    expect(Object.isFrozen(contact)).toBe(true);
    expect(w.getContact(contact!.id)).toBe(contact);
    const renamed = w.updateContact(contact!.id, { display_name: 'Renamed' })!;
    expect(renamed).not.toBe(contact);
    expect(JSON.parse(toJson(w.getContact(contact!.id))!)).toMatchObject({ display_name: 'Renamed' });
  });

  it('shows a message with its sender as the contact is now (C11), after the contact changed', () => {
    const w = world();
    const contact = w.listContacts({ limit: 1 }).data[0]!;
    const sent = w.sendMessage({ conversation_id: contact.conversation_id, message: 'hi' });
    expect(toJson(w.getMessage(sent.id))).toContain(
      `"last_active_at":${JSON.stringify(contact.last_active_at)}`,
    );
    w.touchContact(contact.id, 2_000_000_000);
    const again = w.getMessage(sent.id)!;
    expect(again).not.toBe(sent);
    expect(JSON.parse(toJson(again)!)).toMatchObject({ contact: { last_active_at: 2_000_000_000 } });
    const reacted = w.updateMessage(sent.id, { reactions: [{ name: 'heart', usernames: ['ann'] }] })!;
    expect(JSON.parse(toJson(w.getMessage(sent.id))!)).toMatchObject({
      reactions: reacted.reactions,
      contact: { last_active_at: 2_000_000_000 },
    });
  });
});
