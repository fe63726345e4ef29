import type { ContactRecord, MessageRecord } from './records';

/**
 * What a world's records hold in memory, counted so that the count is never below what V8
 * keeps for them (test/reliability/memory.test.ts measures the heap after a full collection and
 * compares). A string costs at most two bytes a character, with its header in the overheads;
 * each record is held with its frozen view and the view's cached JSON text (views.ts,
 * core/json.ts), so a text is counted once as itself and once as it is written in JSON.
 */

/** A contact: its record, view and sender view, their JSON texts' headers, its entries in two maps and two lists. */
const CONTACT_OVERHEAD = 768;
/** A message: its record and view, the view's JSON text's header, its entries in a map and two lists. */
export const MESSAGE_OVERHEAD = 512;
/** An attachment object, its JSON's punctuation and field names, its numbers. */
export const ATTACHMENT_OVERHEAD = 320;
/** A reaction name's object and array, and each username's place in it. */
const REACTION_OVERHEAD = 96;
const USERNAME_OVERHEAD = 16;
/** The field names, numbers and punctuation of a contact's JSON, and of a message's without its texts. */
const CONTACT_JSON = 200;
const MESSAGE_JSON = 220;
/** The mark a world keeps for a deleted record that it shares with the seeded world. */
export const DELETION_MARK = 64;

/** Characters of a string in JSON: quotes, and escapes for quotes, backslashes and control characters. */
export function jsonLength(text: string): number {
  let length = text.length + 2;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20) length += code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 1 : 5;
    else if (code === 0x22 || code === 0x5c) length += 1;
  }
  return length;
}

/** The characters of a sender's JSON: every message written in its conversation repeats it. */
export function senderJsonLength(c: ContactRecord): number {
  return CONTACT_JSON + jsonLength(c.username) + jsonLength(c.phone_number) + jsonLength(c.avatar_url);
}

/** A contact's count: its strings, and its JSON twice (as a contact and as a sender). */
export function contactBytes(c: ContactRecord): number {
  const display = c.display_name === null ? 0 : c.display_name.length;
  const displayJson = c.display_name === null ? 4 : jsonLength(c.display_name);
  const strings = c.username.length + c.phone_number.length + c.avatar_url.length + display;
  return CONTACT_OVERHEAD + 2 * strings + 2 * (senderJsonLength(c) + displayJson) + 2 * senderJsonLength(c);
}

/**
 * A message's count: its text, attachments and reactions as themselves and once more as JSON,
 * with its sender's JSON (`senderJson` characters), which its cached JSON text repeats.
 */
export function messageBytes(m: MessageRecord, senderJson: number): number {
  let strings = m.message.length;
  let json = MESSAGE_JSON + jsonLength(m.message) + senderJson;
  let objects = MESSAGE_OVERHEAD;
  for (const a of m.attachments) {
    objects += ATTACHMENT_OVERHEAD;
    strings += a.filename.length + a.file_url.length + a.file_type.length;
    json += 120 + jsonLength(a.filename) + jsonLength(a.file_url) + jsonLength(a.file_type);
  }
  for (const reaction of m.reactions) {
    for (const [name, usernames] of Object.entries(reaction)) {
      objects += REACTION_OVERHEAD;
      strings += name.length;
      json += 6 + jsonLength(name);
      for (const username of usernames) {
        objects += USERNAME_OVERHEAD;
        strings += username.length;
        json += 1 + jsonLength(username);
      }
    }
  }
  return objects + 2 * strings + 2 * json;
}

/** What copying the path to one leaf of a B+ tree shared with another world costs, a node a level. */
export const TREE_NODE_BYTES = 1280;
