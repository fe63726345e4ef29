import { contactBytes, messageBytes, RECORD_OVERHEAD } from '../../src/store/bytes';
import type { ContactRecord, MessageRecord } from '../../src/store/records';
import type { Attachment } from '../../src/types';

const contact: ContactRecord = {
  id: 'C000000000000001',
  username: 'ann',
  phone_number: '+1 555',
  avatar_url: 'https://a.example/',
  display_name: null,
  conversation_id: 'V000000000000001',
  last_active_at: null,
  created_at: 1_700_000_000,
  key: 0,
};

const message: MessageRecord = {
  id: 'M000000000000001',
  conversation_id: 'V000000000000001',
  message: 'hi',
  reactions: [],
  attachments: [],
  read_at: null,
  created_at: 1_700_000_000,
  updated_at: null,
  key: 0,
};

const attachment: Attachment = {
  id: 'A000000000000001',
  message_id: message.id,
  filename: 'a.png',
  file_url: 'https://a.example/a.png',
  file_type: 'image/png',
  file_size: 1_000_000,
  created_at: 1_700_000_000,
};

describe('contactBytes', () => {
  it('counts a fixed overhead and two bytes a character of the strings a contact is given', () => {
    const strings = contact.username.length + contact.phone_number.length + contact.avatar_url.length;
    expect(contactBytes(contact)).toBe(RECORD_OVERHEAD + 2 * strings);
  });

  it('grows with each string’s length, display_name included', () => {
    const base = contactBytes(contact);
    expect(contactBytes({ ...contact, username: 'ann-marie' })).toBe(base + 12);
    expect(contactBytes({ ...contact, phone_number: '+1 555 0100' })).toBe(base + 10);
    expect(contactBytes({ ...contact, avatar_url: `${contact.avatar_url}ann.png` })).toBe(base + 14);
    expect(contactBytes({ ...contact, display_name: 'Ann' })).toBe(base + 6);
    expect(contactBytes({ ...contact, display_name: '' })).toBe(base);
  });
});

describe('messageBytes', () => {
  it('counts a fixed overhead and two bytes a character of the text', () => {
    expect(messageBytes(message)).toBe(RECORD_OVERHEAD + 4);
    expect(messageBytes({ ...message, message: 'x'.repeat(4000) })).toBe(RECORD_OVERHEAD + 8000);
  });

  it('grows by an overhead and the strings of each attachment', () => {
    const base = messageBytes(message);
    const strings = attachment.filename.length + attachment.file_url.length + attachment.file_type.length;
    const each = RECORD_OVERHEAD + 2 * strings;
    expect(messageBytes({ ...message, attachments: [attachment] })).toBe(base + each);
    const longer = { ...attachment, file_url: `${attachment.file_url}?v=2` };
    expect(messageBytes({ ...message, attachments: [attachment, longer] })).toBe(base + 2 * each + 2 * 4);
  });

  it('grows with each reaction name and each username in it', () => {
    const base = messageBytes(message);
    const heart = messageBytes({ ...message, reactions: [{ heart: [] }] });
    expect(heart).toBeGreaterThan(base + 2 * 'heart'.length);
    const ann = messageBytes({ ...message, reactions: [{ heart: ['ann'] }] });
    expect(ann).toBeGreaterThan(heart + 2 * 'ann'.length);
    const both = messageBytes({ ...message, reactions: [{ heart: ['ann', 'bob'] }] });
    expect(both - ann).toBe(ann - heart);
    const twoNames = messageBytes({ ...message, reactions: [{ heart: ['ann'] }, { smile: ['ann'] }] });
    expect(twoNames - ann).toBe(ann - base);
    expect(messageBytes({ ...message, reactions: [{ thumbs_up: ['ann'] }] }) - ann).toBe(
      2 * ('thumbs_up'.length - 'heart'.length),
    );
  });
});
