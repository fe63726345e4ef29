import type { AttachmentInput } from '../input/fields';
import type { Attachment, Complete, Contact, Message, Timestamp } from '../types';

/** A message as stored: its sender is derived from the conversation when it is read (C11). */
export type StoredMessage = Omit<Message, 'contact'>;

/**
 * What a world keeps of a contact or a message: the fields, and the record's key in its lists
 * (see order.ts). A record never changes: a write stores a new one.
 */
export type ContactRecord = Readonly<Contact> & { readonly key: number };
export type MessageRecord = Readonly<StoredMessage> & { readonly key: number };

/**
 * The record of a contact or a message given as data (fromData, through keyed): a fresh literal
 * of one shape, with the known fields only.
 */
export function contactRecord(c: Contact, key: number): ContactRecord {
  return {
    id: c.id,
    username: c.username,
    phone_number: c.phone_number,
    avatar_url: c.avatar_url,
    display_name: c.display_name,
    conversation_id: c.conversation_id,
    last_active_at: c.last_active_at,
    created_at: c.created_at,
    key,
  } satisfies Complete<ContactRecord>;
}

export function messageRecord(m: StoredMessage, key: number): MessageRecord {
  return {
    id: m.id,
    conversation_id: m.conversation_id,
    message: m.message,
    reactions: m.reactions,
    attachments: m.attachments,
    read_at: m.read_at,
    created_at: m.created_at,
    updated_at: m.updated_at,
    key,
  } satisfies Complete<MessageRecord>;
}

/** An attachment a request adds to a message (its input checked by input/fields.ts), with its id. */
export function attachmentRecord(
  input: AttachmentInput,
  id: string,
  messageId: string,
  now: Timestamp,
): Attachment {
  return {
    id,
    message_id: messageId,
    filename: input.filename,
    file_url: input.file_url,
    file_type: input.file_type,
    file_size: input.file_size,
    created_at: now,
  } satisfies Complete<Attachment>;
}
