import { describe, isPlainRecord } from '../input/params';
import { CONTACT } from '../resources/contact';
import { storedFields, type RowData, type Table } from '../resources/field';
import { MESSAGE_TEXT, USERNAME, type StringRule } from '../resources/formats';
import { CONTACT_FIELDS, MESSAGE_FIELDS, type Attachment, type StoredMessage } from '../types';
import { type Clock, timeOf, whole } from './clock';
import { attachment, avatarUrl, displayName, dropExtra, phoneNumber, reactions } from './coerce';
import { fail, fitsRule, place, type Json, type Report } from './report';

/**
 * One recorded record as the fixture holds it (./convert.ts reads the recording and calls these):
 * a contact's fields or a message's, converted to the mock's conventions, each conversion counted.
 */

export interface ContactDraft {
  where: string;
  /** The server's ids, as text. */
  id: string;
  conversation: string;
  created: number;
  contact: Omit<RowData<typeof CONTACT>, 'id' | 'conversation_id'>;
}

export interface MessageDraft {
  created: number;
  message: Omit<StoredMessage, 'id' | 'conversation_id' | 'attachments'>;
  attachments: { raw: Json; attachment: Omit<Attachment, 'id' | 'message_id'> }[];
}

const CONTACT_KEYS = new Set<string>(CONTACT_FIELDS);
const MESSAGE_KEYS = new Set<string>(MESSAGE_FIELDS);

/** Fields a message's text may come under on servers that name it otherwise. */
const TEXT_ALIASES = ['text', 'body', 'content'];

export function contactDraft(
  raw: Json,
  i: number,
  clock: Clock,
  origin: string,
  report: Report,
): ContactDraft {
  const where = place('contacts', i, raw.id);
  if (raw.id === undefined || raw.id === null) fail(`${where}.id`, 'is missing.');
  if (raw.conversation_id === undefined || raw.conversation_id === null)
    fail(
      `${where}.conversation_id`,
      'is missing: the recorder cannot tell which messages are this contact’s.',
    );
  dropExtra(raw, CONTACT_KEYS, "a contact's", report);
  const username = raw.username;
  if (!fitsRule(username, USERNAME))
    fail(`${where}.username`, `must be text of 1 to ${USERNAME.max} characters, got ${describe(username)}.`);
  const created = timeOf(clock, raw, 'created_at', 'contact.created_at', where, report)!;
  return {
    where,
    id: String(raw.id),
    conversation: String(raw.conversation_id),
    created,
    contact: {
      ...withFallbacks(CONTACT, raw, "a contact's", report),
      username: username as string,
      phone_number: phoneNumber(raw.phone_number, `${where}.phone_number`, report),
      avatar_url: avatarUrl(raw.avatar_url, username as string, origin, report),
      display_name: displayName(raw, username as string, `${where}.display_name`, report),
      last_active_at: whole(
        timeOf(clock, raw, 'last_active_at', 'contact.last_active_at', where, report, 'a contact'),
      ),
      created_at: Math.floor(created),
    },
  };
}

/**
 * The fields with a fixed fallback (a field added to the API after most servers' data) that the
 * server's record has, each when it passes its field's type; one that does not becomes the
 * fallback, counted as a conversion, and one the record lacks is left for complete() to fill.
 */
function withFallbacks(table: Table, raw: Json, what: string, report: Report): Record<string, unknown> {
  const taken: Record<string, unknown> = {};
  for (const { name, field, fallback } of storedFields(table)) {
    const value = raw[name];
    if (fallback === undefined || value === undefined) continue;
    const fits =
      (value === null && field.nullable) ||
      (typeof value === typeof fallback &&
        (field.type !== 'text' || fitsRule(value, field.rule as StringRule)));
    if (fits) taken[name] = value;
    else report.convert(`${what} ${name} that is not a ${field.type} → ${JSON.stringify(fallback)}`);
  }
  return taken;
}

/** The sender a message shows must be its conversation's contact (C11); the fixture drops it. */
export function checkSender(sender: unknown, ownerId: string, where: string, report: Report): void {
  const id = isPlainRecord(sender) ? sender.id : sender;
  if ((typeof id === 'string' || typeof id === 'number') && String(id) !== ownerId)
    report.warn(
      "a message whose contact is not its conversation's contact (the mock shows the conversation's)",
      where,
    );
}

export function messageDraft(
  raw: Json,
  where: string,
  id: string,
  clock: Clock,
  origin: string,
  report: Report,
): MessageDraft {
  let text = raw.message;
  const known = new Set(MESSAGE_KEYS);
  if (text === undefined) {
    const alias = TEXT_ALIASES.find((key) => typeof raw[key] === 'string');
    if (alias) {
      report.convert(`a message's text under \`${alias}\` → message`);
      text = raw[alias];
      known.add(alias);
    }
  }
  dropExtra(raw, known, "a message's", report);
  if (text === undefined || text === null) fail(`${where}.message`, 'is missing.');
  if (!fitsRule(text, MESSAGE_TEXT))
    fail(
      `${where}.message`,
      `must be text of ${MESSAGE_TEXT.min} to ${MESSAGE_TEXT.max} characters, got ${describe(text)}.`,
    );
  const created = timeOf(clock, raw, 'created_at', 'message.created_at', where, report)!;
  let attachments = raw.attachments;
  if (attachments === undefined || attachments === null) {
    report.convert('a message without attachments → []');
    attachments = [];
  }
  if (!Array.isArray(attachments))
    fail(`${where}.attachments`, `must be a list, got ${describe(attachments)}.`);
  return {
    created,
    message: {
      message: text as string,
      reactions: reactions(raw.reactions, `${where}.reactions`, report),
      read_at: whole(timeOf(clock, raw, 'read_at', 'message.read_at', where, report, 'a message')),
      created_at: Math.floor(created),
      updated_at: whole(timeOf(clock, raw, 'updated_at', 'message.updated_at', where, report, 'a message')),
    },
    attachments: attachments.map((a: unknown, i: number) => {
      const at = `${where}.attachments[${i}]`;
      if (!isPlainRecord(a)) fail(at, `must be an attachment object, got ${describe(a)}.`);
      return { raw: a, attachment: attachment(a, at, id, created, clock, origin, report) };
    }),
  };
}
