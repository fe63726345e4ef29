import { MESSAGE_TEXT } from './formats';
import { ATTACHMENT } from './attachment';
import { CONTACT } from './contact';
import { id, structured, text, timestamp, type KeysWhere, type Row } from './field';

/** A message's contact: the fields of its contact that a sender shows (document 2.2). */
export type Sender = Pick<Row<typeof CONTACT>, KeysWhere<typeof CONTACT, { sender: true }>>;

/** One reaction name mapped to the usernames that reacted with it, e.g. `{"thumbs_up": ["alice"]}`. */
export type Reaction = Record<string, string[]>;

/**
 * A message (document 2.2), in the document's order. Its contact is not kept: it is the
 * conversation's contact, shown as a sender when the message is read (C11). A send and an update
 * are read by input/operations.ts (reactions and attachments have their own shapes), and the store
 * makes the record.
 */
export const MESSAGE = {
  id: id({ create: { by: 'id', of: 'message' } }),
  conversation_id: id({ create: { by: 'store' } }),
  contact: structured<Sender>()('sender', { stored: false, create: { by: 'store' } }),
  message: text(MESSAGE_TEXT, { create: { by: 'store' } }),
  reactions: structured<Reaction[]>()('reactions', { create: { by: 'store' } }),
  attachments: structured<Row<typeof ATTACHMENT>[]>()('attachments', { create: { by: 'store' } }),
  read_at: timestamp({ nullable: true, create: { by: 'value', value: null } }),
  created_at: timestamp({ create: { by: 'clock' } }),
  updated_at: timestamp({ nullable: true, create: { by: 'value', value: null } }),
};
