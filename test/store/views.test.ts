import { toJson } from '../../src/core/json';
import { generateWorld } from '../../src/seed';
import { contactRecord, messageRecord, storedMessage } from '../../src/store/copies.generated';
import type { ContactRecord } from '../../src/store/records';
import { messageView, renderContact, renderSender } from '../../src/store/views';
import { World } from '../../src/store/world';
import { CONTACT_FIELDS, MESSAGE_FIELDS, SENDER_FIELDS, STORED_MESSAGE_FIELDS } from '../../src/types';

const contact = (): ContactRecord =>
  contactRecord(
    {
      id: 'C000000000000001',
      username: 'ann',
      phone_number: '+1 555 0100',
      avatar_url: 'https://example.com/ann.png',
      display_name: 'Ann',
      conversation_id: 'V000000000000001',
      last_active_at: null,
      created_at: 1_700_000_000,
    },
    7,
  );

const message = () =>
  messageRecord(
    {
      id: 'M000000000000001',
      conversation_id: 'V000000000000001',
      message: 'hello',
      reactions: [{ heart: ['bob'] }],
      attachments: [],
      read_at: null,
      created_at: 1_700_000_001,
      updated_at: null,
    },
    8,
  );

describe('renderContact and renderSender', () => {
  it('show a contact with the document’s fields in its order, without the key', () => {
    const record = contact();
    expect(Object.keys(renderContact(record))).toEqual(CONTACT_FIELDS);
    expect(Object.keys(renderSender(record))).toEqual(SENDER_FIELDS);
    expect(renderSender(record)).toEqual({
      id: record.id,
      username: 'ann',
      phone_number: '+1 555 0100',
      avatar_url: 'https://example.com/ann.png',
      last_active_at: null,
      created_at: 1_700_000_000,
    });
  });

  it('hand out the same frozen view for the same record, and a new one for a changed record', () => {
    const record = contact();
    const view = renderContact(record);
    const sender = renderSender(record);
    expect(Object.isFrozen(view) && Object.isFrozen(sender)).toBe(true);
    expect(renderContact(record)).toBe(view);
    expect(renderSender(record)).toBe(sender);

    const renamed: ContactRecord = { ...record, display_name: 'Annie' };
    expect(renderContact(renamed)).not.toBe(view);
    expect(renderContact(renamed).display_name).toBe('Annie');
    expect(view.display_name).toBe('Ann');
  });
});

describe('messageView', () => {
  it('shows a message with the document’s fields in its order, its sender being the sender view itself', () => {
    const sender = renderSender(contact());
    const view = messageView(message(), sender);
    expect(Object.keys(view)).toEqual(MESSAGE_FIELDS);
    expect(view.contact).toBe(sender);
    expect(view).toMatchObject({ id: 'M000000000000001', message: 'hello', reactions: [{ heart: ['bob'] }] });
  });

  it('hands out the same frozen view while the record and its sender view are unchanged', () => {
    const record = message();
    const sender = renderSender(contact());
    const view = messageView(record, sender);
    expect(Object.isFrozen(view)).toBe(true);
    expect(messageView(record, sender)).toBe(view);
    // An equal sender, but another view: the message's view is made again.
    expect(messageView(record, renderSender(contact()))).not.toBe(view);
  });

  it('makes a new view when the sender changed, and keeps handing out that one', () => {
    const record = message();
    const before = contact();
    const view = messageView(record, renderSender(before));
    const touched = renderSender({ ...before, last_active_at: 1_800_000_000 });
    const again = messageView(record, touched);
    expect(again).not.toBe(view);
    expect(again.contact.last_active_at).toBe(1_800_000_000);
    expect(Object.isFrozen(again)).toBe(true);
    expect(messageView(record, touched)).toBe(again);
    expect(view.contact.last_active_at).toBeNull();
  });

  it('makes a new view for a new record of the same message', () => {
    const record = message();
    const sender = renderSender(contact());
    const view = messageView(record, sender);
    const edited = messageView({ ...record, message: 'edited' }, sender);
    expect(edited).not.toBe(view);
    expect([view.message, edited.message]).toEqual(['hello', 'edited']);
  });
});

describe('storedMessage', () => {
  it('gives a plain copy in the fixture format, without the key, new on every call', () => {
    const record = message();
    const stored = storedMessage(record);
    expect(Object.keys(stored)).toEqual(STORED_MESSAGE_FIELDS);
    expect(Object.isFrozen(stored)).toBe(false);
    expect(storedMessage(record)).not.toBe(stored);
    expect(storedMessage(record)).toEqual(stored);
  });
});

describe('Record views of a World (what makes the serializer’s cache right)', () => {
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
