import type { ContactRecord, MessageRecord } from './records';

/** Rough memory of a record: a fixed overhead plus two bytes a character of its strings. */
export const RECORD_OVERHEAD = 256;

/** A contact's estimate; a world charges a write what it adds to its records' estimates. */
export function contactBytes(c: ContactRecord): number {
  return (
    RECORD_OVERHEAD +
    2 * (c.username.length + c.phone_number.length + c.avatar_url.length + (c.display_name?.length ?? 0))
  );
}

/** A message's estimate, with its attachments and its reactions' names and usernames. */
export function messageBytes(m: MessageRecord): number {
  let bytes = RECORD_OVERHEAD + 2 * m.message.length;
  for (const a of m.attachments)
    bytes += RECORD_OVERHEAD + 2 * (a.filename.length + a.file_url.length + a.file_type.length);
  for (const reaction of m.reactions) {
    for (const [name, usernames] of Object.entries(reaction)) {
      bytes += 64 + 2 * name.length;
      for (const username of usernames) bytes += 16 + 2 * username.length;
    }
  }
  return bytes;
}
