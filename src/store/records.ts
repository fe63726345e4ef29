import type { AttachmentInput } from '../input/operations';
import type { Attachment, Complete, Contact, StoredMessage, Timestamp } from '../types';

/**
 * What a world keeps of a contact or a message: the fields, and the record's key in its lists
 * (see order.ts). A record never changes: a write stores a new one.
 */
export type ContactRecord = Readonly<Contact> & { readonly key: number };
export type MessageRecord = Readonly<StoredMessage> & { readonly key: number };

/*
 * The copies of a record given as data (World#fromData, through keyed) and its views are literals
 * of one shape, generated from the field tables: copies.generated.ts.
 */

/** An attachment a request adds to a message (its input checked by input/operations.ts), with its id. */
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
