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
