import {
  ATTACHMENT_OVERHEAD,
  contactBytes,
  jsonLength,
  MESSAGE_OVERHEAD,
  messageBytes,
  senderJsonLength,
} from '../../src/store/bytes';
import { contactRecord } from '../../src/store/copies.generated';
import type { ContactRecord, MessageRecord } from '../../src/store/records';
import type { Attachment } from '../../src/types';

const contact: ContactRecord = contactRecord(
  {
    id: 'C000000000000001',
    username: 'ann',
    phone_number: '+1 555',
    avatar_url: 'https://a.example/',
    display_name: null,
    conversation_id: 'V000000000000001',
    last_active_at: null,
    created_at: 1_700_000_000,
  },
  0,
);

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

describe('jsonLength', () => {
  it('is the length of the string as JSON.stringify writes it, escapes included', () => {
    for (const text of [
      '',
      'plain',
      'a "quote" and a \\ backslash',
      'line\nbreak\ttab\r\b\f',
      '\u0000\u0001\u001f',
      'Ünï 日本 😀',
    ])
      expect(jsonLength(text)).toBe(JSON.stringify(text).length);
  });
});

describe('contactBytes', () => {
  it('grows by at least four bytes a character of each string: the string, and its JSON in the cached texts', () => {
    const base = contactBytes(contact);
    expect(contactBytes({ ...contact, username: 'ann-marie' })).toBeGreaterThanOrEqual(base + 4 * 6);
    expect(contactBytes({ ...contact, phone_number: '+1 555 0100' })).toBeGreaterThanOrEqual(base + 4 * 5);
    expect(contactBytes({ ...contact, avatar_url: `${contact.avatar_url}ann.png` })).toBeGreaterThanOrEqual(
      base + 4 * 7,
    );
    expect(contactBytes({ ...contact, display_name: 'Ann' })).toBeGreaterThan(base);
  });

  it('counts a text whose JSON is longer (escapes) for its JSON', () => {
    const plain = contactBytes({ ...contact, username: 'x'.repeat(60) });
    const escaped = contactBytes({ ...contact, username: '\u0001'.repeat(60) });
    expect(escaped - plain).toBe(2 * 2 * (jsonLength('\u0001'.repeat(60)) - jsonLength('x'.repeat(60))));
  });
});

describe('messageBytes', () => {
  it('counts its overhead, its text, and its text and its sender once more as JSON', () => {
    const sender = senderJsonLength(contact);
    const short = messageBytes(message, sender);
    expect(short).toBeGreaterThan(MESSAGE_OVERHEAD + 2 * sender);
    expect(messageBytes({ ...message, message: 'x'.repeat(4002) }, sender) - short).toBe(4 * 4000);
    expect(messageBytes(message, sender + 100) - short).toBe(200);
  });

  it('grows by an overhead and the strings of each attachment, twice', () => {
    const base = messageBytes(message, 0);
    const one = messageBytes({ ...message, attachments: [attachment] }, 0);
    const strings = attachment.filename.length + attachment.file_url.length + attachment.file_type.length;
    expect(one - base).toBeGreaterThanOrEqual(ATTACHMENT_OVERHEAD + 4 * strings);
    const longer = { ...attachment, file_url: `${attachment.file_url}?v=2` };
    expect(messageBytes({ ...message, attachments: [attachment, longer] }, 0)).toBe(2 * one - base + 4 * 4);
  });

  it('grows with each reaction name and each username in it', () => {
    const base = messageBytes(message, 0);
    const heart = messageBytes({ ...message, reactions: [{ heart: [] }] }, 0);
    expect(heart).toBeGreaterThan(base + 4 * 'heart'.length);
    const ann = messageBytes({ ...message, reactions: [{ heart: ['ann'] }] }, 0);
    expect(ann).toBeGreaterThan(heart + 4 * 'ann'.length);
    const both = messageBytes({ ...message, reactions: [{ heart: ['ann', 'bob'] }] }, 0);
    expect(both - ann).toBe(ann - heart);
    const twoNames = messageBytes({ ...message, reactions: [{ heart: ['ann'] }, { smile: ['ann'] }] }, 0);
    expect(twoNames - ann).toBe(ann - base);
  });
});
