import { toJson } from '../../src/http/send';
import { generateWorld } from '../../src/seed';
import { World } from '../../src/store/world';

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
