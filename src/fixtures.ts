import { ApiError } from './errors';
import { MAX_TIMESTAMP } from './store/order';
import { checkHttpUrl, checkInteger, checkString, describe, isPlainRecord } from './input/params';
import {
  DISPLAY_NAME,
  FILE_SIZE,
  FILE_TYPE,
  FILENAME,
  MESSAGE_TEXT,
  PHONE_NUMBER,
  REACTION_NAME,
  RECORD_ID,
  USERNAME,
} from './input/fields';
import type { StoredMessage, WorldData } from './store/world';
import {
  ATTACHMENT_FIELDS,
  CONTACT_FIELDS,
  STORED_MESSAGE_FIELDS,
  type Attachment,
  type Complete,
  type Contact,
  type Reaction,
} from './types';

/**
 * A fixture document is a world as plain JSON: `{contacts, messages}`, contacts as the API shows
 * them, messages without their `contact` (it is derived from the conversation). It is what
 * `npm run fixtures` writes, what `GET /__mock/state` answers and what `--fixtures` and
 * `PUT /__mock/state` take.
 */

/** A fixture that breaks a rule; `path` names the record and the field, e.g. `messages[3].read_at`. */
export class FixtureError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'FixtureError';
  }
}

/** Checks a whole fixture document and returns it typed, or throws a FixtureError. */
export function validateFixture(doc: unknown): WorldData {
  if (!isPlainRecord(doc))
    throw new FixtureError('(root)', 'must be an object {"contacts": [...], "messages": [...]}.');
  exactKeys(doc, ['contacts', 'messages'], '(root)');
  if (!Array.isArray(doc.contacts)) throw new FixtureError('contacts', 'must be a list of contacts.');
  if (!Array.isArray(doc.messages)) throw new FixtureError('messages', 'must be a list of messages.');
  const check = new FixtureChecker();
  const contacts = doc.contacts.map((raw: unknown) => check.contact(raw));
  const messages = doc.messages.map((raw: unknown) => check.message(raw));
  return { contacts, messages };
}

/**
 * The checks of validateFixture one record at a time, every contact before the first message, so
 * that a fixture too large to hold is checked as it is written. It keeps the ids met so far (they
 * must all differ) and the conversations.
 */
export class FixtureChecker {
  readonly #ids = new Set<string>();
  readonly #conversations = new Set<string>();
  #contacts = 0;
  #messages = 0;

  #unique(id: string, path: string): void {
    if (this.#ids.has(id))
      throw new FixtureError(
        path,
        `'${id}' is used twice; contact, conversation and message ids must all differ.`,
      );
    this.#ids.add(id);
  }

  contact(raw: unknown): Contact {
    if (this.#messages > 0) throw new Error('every contact of a fixture is checked before its messages');
    const at = `contacts[${this.#contacts++}]`;
    return guard(at, () => {
      if (!isPlainRecord(raw)) throw new FixtureError(at, `must be a contact object, got ${describe(raw)}.`);
      exactKeys(raw, CONTACT_FIELDS, at);
      const contact: Contact = {
        id: id(raw.id, `${at}.id`),
        username: checkString(raw.username, `${at}.username`, USERNAME),
        phone_number: checkString(raw.phone_number, `${at}.phone_number`, PHONE_NUMBER),
        avatar_url: checkHttpUrl(raw.avatar_url, `${at}.avatar_url`),
        display_name:
          raw.display_name === null
            ? null
            : checkString(raw.display_name, `${at}.display_name`, DISPLAY_NAME),
        conversation_id: id(raw.conversation_id, `${at}.conversation_id`),
        last_active_at: nullableTime(raw.last_active_at, `${at}.last_active_at`),
        created_at: time(raw.created_at, `${at}.created_at`),
      } satisfies Complete<Contact>;
      this.#unique(contact.id, `${at}.id`);
      this.#unique(contact.conversation_id, `${at}.conversation_id`);
      this.#conversations.add(contact.conversation_id);
      return contact;
    });
  }

  message(raw: unknown): StoredMessage {
    const at = `messages[${this.#messages++}]`;
    return guard(at, () => {
      if (!isPlainRecord(raw)) throw new FixtureError(at, `must be a message object, got ${describe(raw)}.`);
      exactKeys(raw, STORED_MESSAGE_FIELDS, at);
      const messageId = id(raw.id, `${at}.id`);
      this.#unique(messageId, `${at}.id`);
      const conversation = id(raw.conversation_id, `${at}.conversation_id`);
      if (!this.#conversations.has(conversation)) {
        throw new FixtureError(
          `${at}.conversation_id`,
          `'${conversation}' is not the conversation_id of any contact.`,
        );
      }
      if (!Array.isArray(raw.reactions))
        throw new FixtureError(`${at}.reactions`, 'must be a list (empty when there are none).');
      if (!Array.isArray(raw.attachments))
        throw new FixtureError(`${at}.attachments`, 'must be a list (empty when there are none).');
      return {
        id: messageId,
        conversation_id: conversation,
        message: checkString(raw.message, `${at}.message`, MESSAGE_TEXT),
        reactions: raw.reactions.map((r: unknown, j: number) => reaction(r, `${at}.reactions[${j}]`)),
        attachments: raw.attachments.map((a: unknown, j: number) =>
          attachment(a, `${at}.attachments[${j}]`, messageId, (i, path) => this.#unique(i, path)),
        ),
        read_at: nullableTime(raw.read_at, `${at}.read_at`),
        created_at: time(raw.created_at, `${at}.created_at`),
        updated_at: nullableTime(raw.updated_at, `${at}.updated_at`),
      } satisfies Complete<StoredMessage>;
    });
  }
}

/** The bytes of a fixture file: stable key order, two-space indent, final newline. */
export function fixtureJson(data: WorldData): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}

/**
 * The bytes of fixtureJson, written a record at a time (every contact before the first message),
 * for a fixture too large to be one string.
 */
export class FixtureJsonWriter {
  #list: 'contacts' | 'messages' | 'ended' | undefined;
  #count = 0;

  constructor(private readonly write: (text: string) => void) {}

  contact(contact: Contact): void {
    this.#record('contacts', contact);
  }

  message(message: StoredMessage): void {
    this.#record('messages', message);
  }

  end(): void {
    this.#open('messages');
    this.#close();
    this.write('\n}\n');
    this.#list = 'ended';
  }

  #record(list: 'contacts' | 'messages', record: Contact | StoredMessage): void {
    this.#open(list);
    // One element of a list in a list: JSON.stringify(data, null, 2) indents it by four spaces.
    const text = JSON.stringify(record, null, 2).replace(/\n/g, '\n    ');
    this.write(`${this.#count++ === 0 ? '\n' : ',\n'}    ${text}`);
  }

  #open(list: 'contacts' | 'messages'): void {
    if (this.#list === list) return;
    if (this.#list === 'ended' || (this.#list === 'messages' && list === 'contacts'))
      throw new Error(`a fixture's ${list} are written before its end, and contacts before messages`);
    if (this.#list === undefined) {
      this.write('{\n  "contacts": [');
      this.#list = 'contacts';
      this.#count = 0;
      if (list === 'contacts') return;
    }
    this.#close();
    this.write(',\n  "messages": [');
    this.#list = 'messages';
    this.#count = 0;
  }

  #close(): void {
    this.write(this.#count === 0 ? ']' : '\n  ]');
  }
}

/** The field checks of the API throw ApiErrors naming the full path; turn them into FixtureErrors. */
function guard<T>(at: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof ApiError) {
      const path = error.param ?? at;
      throw new FixtureError(path, error.message.replace(`Invalid ${path}: `, ''));
    }
    throw error;
  }
}

function exactKeys(record: Record<string, unknown>, keys: readonly string[], at: string): void {
  for (const key of keys) {
    if (!(key in record)) throw new FixtureError(`${at}.${key}`, 'is missing.');
  }
  for (const key of Object.keys(record)) {
    if (!keys.includes(key))
      throw new FixtureError(
        `${at}.${key}`,
        `is not a field of this record; the fields are ${keys.join(', ')}.`,
      );
  }
}

function id(value: unknown, path: string): string {
  const { min, max, pattern, patternText } = RECORD_ID;
  // The pattern allows ASCII only, so `length` counts characters here.
  if (typeof value !== 'string' || value.length < min || value.length > max || !pattern.test(value)) {
    throw new FixtureError(path, `must be an id of ${min} to ${max} ${patternText}, got ${describe(value)}.`);
  }
  return value;
}

function time(value: unknown, path: string): number {
  if (typeof value !== 'number')
    throw new FixtureError(path, `must be a Unix time in seconds (a whole number), got ${describe(value)}.`);
  return checkInteger(value, path, 0, MAX_TIMESTAMP);
}

function nullableTime(value: unknown, path: string): number | null {
  return value === null ? null : time(value, path);
}

function reaction(raw: unknown, path: string): Reaction {
  if (!isPlainRecord(raw) || Object.keys(raw).length !== 1) {
    throw new FixtureError(path, 'must be an object with one reaction name, e.g. {"heart": ["alice"]}.');
  }
  const [name, usernames] = Object.entries(raw)[0]!;
  checkString(name, path, REACTION_NAME);
  if (!Array.isArray(usernames) || usernames.length === 0)
    throw new FixtureError(`${path}.${name}`, 'must be a non-empty list of usernames.');
  const list = usernames.map((u: unknown, k: number) => checkString(u, `${path}.${name}[${k}]`, USERNAME));
  if (new Set(list).size !== list.length)
    throw new FixtureError(`${path}.${name}`, 'lists a username twice.');
  return { [name]: list };
}

function attachment(
  raw: unknown,
  path: string,
  messageId: string,
  unique: (id: string, path: string) => void,
): Attachment {
  if (!isPlainRecord(raw))
    throw new FixtureError(path, `must be an attachment object, got ${describe(raw)}.`);
  exactKeys(raw, ATTACHMENT_FIELDS, path);
  const attachmentId = id(raw.id, `${path}.id`);
  unique(attachmentId, `${path}.id`);
  if (raw.message_id !== messageId)
    throw new FixtureError(`${path}.message_id`, `must be the id of its message, '${messageId}'.`);
  return {
    id: attachmentId,
    message_id: messageId,
    filename: checkString(raw.filename, `${path}.filename`, FILENAME),
    file_url: checkHttpUrl(raw.file_url, `${path}.file_url`),
    file_type: checkString(raw.file_type, `${path}.file_type`, FILE_TYPE),
    file_size:
      raw.file_size === null
        ? null
        : checkInteger(raw.file_size, `${path}.file_size`, FILE_SIZE.min, FILE_SIZE.max),
    created_at: time(raw.created_at, `${path}.created_at`),
  } satisfies Complete<Attachment>;
}
