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

/**
 * A list of the keys of T that compiles only when it names every one of them, an optional one too.
 * At run time the list itself.
 */
export function everyKeyOf<T>() {
  return <const L extends readonly (keyof T)[]>(
    list: L & ([Exclude<keyof T, L[number]>] extends [never] ? unknown : never),
  ): L => list;
}

/**
 * The field names of each record, in the document's order: one list for the fixture validator
 * and the OpenAPI document, so that the two cannot disagree. A list that leaves a field of its
 * type out does not compile.
 */
export const CONTACT_FIELDS = everyKeyOf<Contact>()([
  'id',
  'username',
  'phone_number',
  'avatar_url',
  'display_name',
  'conversation_id',
  'last_active_at',
  'created_at',
]);

export const SENDER_FIELDS = everyKeyOf<MessageContact>()([
  'id',
  'username',
  'phone_number',
  'avatar_url',
  'last_active_at',
  'created_at',
]);

export const MESSAGE_FIELDS = everyKeyOf<Message>()([
  'id',
  'conversation_id',
  'contact',
  'message',
  'reactions',
  'attachments',
  'read_at',
  'created_at',
  'updated_at',
]);

/** A message as a fixture holds it: without its contact, which follows from the conversation. */
export const STORED_MESSAGE_FIELDS = MESSAGE_FIELDS.filter((field) => field !== 'contact');

export const ATTACHMENT_FIELDS = everyKeyOf<Attachment>()([
  'id',
  'message_id',
  'filename',
  'file_url',
  'file_type',
  'file_size',
  'created_at',
]);
