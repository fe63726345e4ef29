/**
 * The public shapes of the Messaging API as this mock answers them. Field order follows the API
 * document, so that JSON answers list fields in the order a reader of the document expects.
 */

import { ATTACHMENT } from './resources/attachment';
import { CONTACT } from './resources/contact';
import { namesOf, type Row, type RowData, type StoredRow } from './resources/field';
import { MESSAGE, type Reaction, type Sender } from './resources/message';

/** Integer Unix seconds (UTC), convention C5. */
export type Timestamp = number;

/** A contact as the API answers it: the fields of its table (resources/contact.ts), in its order. */
export interface Contact extends Row<typeof CONTACT> {}

/** The sender as a message carries it: no display_name, no conversation_id (document 2.2). */
export interface MessageContact extends Sender {}

/**
 * A contact as data gives it: a fixture, a seeded or recorded world, `World.fromData`. A field
 * with a fixed default may be left out (it is then its default), so that data written before the
 * field existed stays good.
 */
export type ContactData = RowData<typeof CONTACT>;

export type { Reaction };

export interface Attachment extends Row<typeof ATTACHMENT> {}

export interface Message extends Row<typeof MESSAGE> {}

/** A message as the store and a fixture keep it: without its contact, which follows from the conversation. */
export interface StoredMessage extends StoredRow<typeof MESSAGE> {}

/** A message as data gives it, like ContactData. */
export type MessageData = RowData<typeof MESSAGE>;

/**
 * Every field of T, the optional ones too. A copy of a record written out field by field (the
 * store keeps records of one shape) says `{ … } satisfies Complete<Contact>`: one that leaves a
 * field out, even an optional one, does not compile.
 */
export type Complete<T> = { [K in keyof Required<T>]: K extends keyof T ? T[K] | undefined : never };

export interface Page<T> {
  has_more: boolean;
  data: T[];
}

/** The flat error object of convention C2. */
export interface ApiErrorBody {
  type: 'invalid_request' | 'api_error';
  code: string;
  message: string;
  param?: string;
}

/** The field names of each record, in the document's order, from the field tables. */
export const CONTACT_FIELDS = namesOf(CONTACT);
export const SENDER_FIELDS = CONTACT_FIELDS.filter((name) => CONTACT[name].sender);
export const MESSAGE_FIELDS = namesOf(MESSAGE);
export const STORED_MESSAGE_FIELDS = MESSAGE_FIELDS.filter((name) => MESSAGE[name].stored);
export const ATTACHMENT_FIELDS = namesOf(ATTACHMENT);
