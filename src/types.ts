/**
 * The public shapes of the Messaging API as this mock answers them. Field order follows the API
 * document, so that JSON answers list fields in the order a reader of the document expects.
 */

/** Integer Unix seconds (UTC), convention C5. */
export type Timestamp = number;

export interface Contact {
  id: string;
  username: string;
  phone_number: string;
  avatar_url: string;
  display_name: string | null;
  conversation_id: string;
  last_active_at: Timestamp | null;
  created_at: Timestamp;
}

/** The sender as a message carries it: no display_name, no conversation_id (document 2.2). */
export type MessageContact = Pick<
  Contact,
  'id' | 'username' | 'phone_number' | 'avatar_url' | 'last_active_at' | 'created_at'
>;

/** One reaction name mapped to the usernames that reacted with it, e.g. `{"thumbs_up": ["alice"]}`. */
export type Reaction = Record<string, string[]>;

export interface Attachment {
  id: string;
  message_id: string;
  filename: string;
  file_url: string;
  file_type: string;
  file_size: number | null;
  created_at: Timestamp;
}

export interface Message {
  id: string;
  conversation_id: string;
  contact: MessageContact;
  message: string;
  reactions: Reaction[];
  attachments: Attachment[];
  read_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

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

/**
 * The field names of each record, in the document's order: one list for the fixture validator
 * and the OpenAPI document, so that the two cannot disagree.
 */
export const CONTACT_FIELDS = [
  'id',
  'username',
  'phone_number',
  'avatar_url',
  'display_name',
  'conversation_id',
  'last_active_at',
  'created_at',
] as const satisfies readonly (keyof Contact)[];

export const SENDER_FIELDS = [
  'id',
  'username',
  'phone_number',
  'avatar_url',
  'last_active_at',
  'created_at',
] as const satisfies readonly (keyof MessageContact)[];

export const MESSAGE_FIELDS = [
  'id',
  'conversation_id',
  'contact',
  'message',
  'reactions',
  'attachments',
  'read_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof Message)[];

/** A message as a fixture holds it: without its contact, which follows from the conversation. */
export const STORED_MESSAGE_FIELDS = MESSAGE_FIELDS.filter((field) => field !== 'contact');

export const ATTACHMENT_FIELDS = [
  'id',
  'message_id',
  'filename',
  'file_url',
  'file_type',
  'file_size',
  'created_at',
] as const satisfies readonly (keyof Attachment)[];
