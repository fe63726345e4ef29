/**
 * What the document says of each field, one home for the kit and the proxy: the kit's own
 * expectations of the resources, written from the API document's tables (2.1, 2.2,
 * 2.4), never from the mock. `timestamp` only asks for a value here (not null, unless the field
 * may be null): how a timestamp is written (an integer, not a fraction or a string of digits) is
 * the rule api.integer-timestamps, and which ones are null on a new resource are rules of their
 * own, so that one broken sentence fails one rule. The fields are the table's (./resources.ts).
 */
import {
  CONTACT_FIELDS,
  MESSAGE_FIELDS,
  notInSender,
  schemaOf,
  senderOf,
  type FieldType,
  type SentKind,
} from './resources';

export type Schema = Readonly<Record<string, FieldType>>;

/** 2.1 Contact. */
export const CONTACT: Schema = schemaOf(CONTACT_FIELDS);

/** 2.2 Message. */
export const MESSAGE: Schema = schemaOf(MESSAGE_FIELDS);

/** 2.2 The `contact` inside a message: the contact's fields it shows, and never the others. */
export const SENDER: Schema = Object.fromEntries(
  senderOf(CONTACT_FIELDS).map((name) => [name, CONTACT[name]!]),
);
export const SENDER_FORBIDDEN: readonly string[] = notInSender(CONTACT_FIELDS);

/** 2.4 Page of results. */
export const PAGE: Schema = { has_more: 'boolean', data: 'array' };

function matches(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'string|null':
      return value === null || typeof value === 'string';
    case 'timestamp':
      return value !== null && value !== undefined;
    case 'timestamp|null':
      return true;
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'boolean':
      return typeof value === 'boolean';
  }
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'undefined' : text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** What is wrong with `value` against `schema`, in words; empty when nothing is. */
export function problems(value: unknown, schema: Schema, skip: readonly string[] = []): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return [`expected an object, got ${show(value)}`];
  const record = value as Record<string, unknown>;
  const found: string[] = [];
  for (const [field, type] of Object.entries(schema)) {
    if (skip.includes(field)) continue;
    if (!(field in record)) found.push(`${field} is missing`);
    else if (!matches(record[field], type))
      found.push(`${field} should be ${type}, got ${show(record[field])}`);
  }
  return found;
}

/**
 * Every timestamp field of a contact or message (and of a message's contact) that is not an
 * integer. A null or a missing field is the field table's (contacts.fields, messages.fields).
 */
export function nonIntegerTimestamps(
  resource: Record<string, unknown>,
  kind: 'contact' | 'message',
): string[] {
  const found: string[] = [];
  const checkField = (where: string, value: unknown) => {
    if (value === null || value === undefined) return;
    if (!Number.isInteger(value)) found.push(`${where} = ${show(value)}`);
  };
  if (kind === 'contact') {
    checkField('last_active_at', resource.last_active_at);
    checkField('created_at', resource.created_at);
  } else {
    checkField('read_at', resource.read_at);
    checkField('created_at', resource.created_at);
    checkField('updated_at', resource.updated_at);
    const sender = resource.contact as Record<string, unknown> | undefined;
    if (sender && typeof sender === 'object') {
      checkField('contact.last_active_at', sender.last_active_at);
      checkField('contact.created_at', sender.created_at);
    }
  }
  return found;
}

/**
 * What is sent comes back. A server may refuse a value (a limit, a format it does not take) but
 * may not change one it took, except in ways that lose nothing: Unicode NFC normalization and
 * whitespace trimmed at both ends of any text, and, in a phone number, spaces, dashes, dots and
 * parentheses removed (every digit and the `+` kept), and a `+` put before a number sent without
 * one (its international form). Those are reported as the server's choice;
 * anything else (a changed case, a cut, escaped or dropped characters, a replaced value) is lost.
 * A boolean is sent as the form's `true` or `false` (or as JSON's): the answer shows that boolean.
 */
export type Kept = 'same' | 'lossless' | 'lost';

const text = (value: string) => value.normalize('NFC').trim();
const phone = (value: string) => text(value).replace(/[\s().-]/g, '');
/** A phone number shown as sent but for its punctuation, or with a `+` put before one sent without. */
const samePhone = (shown: string, sent: string) =>
  phone(shown) === phone(sent) || (!phone(sent).startsWith('+') && phone(shown) === `+${phone(sent)}`);

export function kept(sent: string, shown: unknown, kind: SentKind): Kept {
  if (kind === 'boolean')
    return sent === 'true' || sent === 'false'
      ? shown === (sent === 'true')
        ? 'same'
        : 'lost'
      : typeof shown === 'boolean'
        ? 'lossless'
        : 'lost';
  if (shown === sent) return 'same';
  if (typeof shown !== 'string') return 'lost';
  if (kind === 'phone') return samePhone(shown, sent) ? 'lossless' : 'lost';
  return text(shown) === text(sent) ? 'lossless' : 'lost';
}

/** How a lossless change looks, for the server profile. */
export function describeChange(sent: string, shown: unknown, kind: SentKind): string {
  if (typeof shown !== 'string') return `${JSON.stringify(sent)} read as ${String(shown)}`;
  if (kind === 'phone' && samePhone(shown, sent) && shown === phone(shown))
    return 'phone numbers kept as + and digits only';
  if (shown === text(sent))
    return sent.normalize('NFC') === sent ? 'whitespace trimmed at both ends' : 'Unicode NFC and trimmed';
  if (shown === sent.normalize('NFC')) return 'Unicode NFC normalization';
  return 'a lossless normalization';
}

/** The reactions' shape: a list of objects, each name → the usernames that reacted with it. */
export function reactionsShape(reactions: unknown): string[] {
  if (!Array.isArray(reactions)) return [];
  const found: string[] = [];
  reactions.forEach((element, i) => {
    if (!matches(element, 'object')) found.push(`reactions[${i}] is not an object: ${show(element)}`);
    else if (Object.keys(element as object).length === 0)
      found.push(`reactions[${i}] is an empty object: it maps no reaction name to its usernames`);
    else
      for (const [name, usernames] of Object.entries(element)) {
        if (!Array.isArray(usernames) || usernames.some((u) => typeof u !== 'string'))
          found.push(`reactions[${i}].${name} is ${show(usernames)}, not a list of usernames`);
      }
  });
  return found;
}

/**
 * Whether two readings of a field show the same value: written alike, or one a number and the
 * other that number's digits. How a value is written is the field table's and
 * api.integer-timestamps' to judge (a timestamp as a string of digits), never a change of it.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (JSON.stringify(a) === JSON.stringify(b)) return true;
  const digits = (x: unknown) =>
    typeof x === 'number' && Number.isFinite(x)
      ? String(x)
      : typeof x === 'string' && /^-?[0-9]+(\.[0-9]+)?$/.test(x)
        ? String(Number(x))
        : undefined;
  return typeof a !== typeof b && digits(a) !== undefined && digits(a) === digits(b);
}
