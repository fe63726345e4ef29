import { ApiError } from './errors';
import { MAX_TIMESTAMP } from './store/order';
import { valueOf } from './input/operations';
import { LIMITS } from './input/limits';
import { checkInteger, checkString, describe, isPlainRecord } from './input/params';
import { ATTACHMENT } from './resources/attachment';
import { CONTACT } from './resources/contact';
import { storedFields, type Field, type FieldType, type StoredRow, type Table } from './resources/field';
import { REACTION_NAME, RECORD_ID, USERNAME } from './resources/formats';
import { MESSAGE } from './resources/message';
import type { WorldData } from './store/world';
import type { Attachment, Contact, ContactData, MessageData, Reaction, StoredMessage } from './types';

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
      return fieldsOf(CONTACT, raw, at, (name, value, path) => {
        if (name === 'id') this.#unique(value as string, path);
        if (name === 'conversation_id') {
          this.#unique(value as string, path);
          this.#conversations.add(value as string);
        }
      });
    });
  }

  message(raw: unknown): StoredMessage {
    const at = `messages[${this.#messages++}]`;
    return guard(at, () => {
      if (!isPlainRecord(raw)) throw new FixtureError(at, `must be a message object, got ${describe(raw)}.`);
      const messageId = raw.id;
      return fieldsOf(
        MESSAGE,
        raw,
        at,
        (name, value, path) => {
          if (name === 'id') this.#unique(value as string, path);
          if (name === 'conversation_id' && !this.#conversations.has(value as string))
            throw new FixtureError(path, `'${value as string}' is not the conversation_id of any contact.`);
        },
        {
          reactions: (value, path) => reactions(list(value, path), path),
          attachments: (value, path) =>
            bounded(list(value, path), path, LIMITS.attachmentsPerMessage, 'attachments').map((a, j) =>
              attachment(a, `${path}[${j}]`, messageId as string, (i, where) => this.#unique(i, where)),
            ),
        },
      );
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

  contact(contact: ContactData): void {
    this.#record('contacts', contact);
  }

  message(message: MessageData): void {
    this.#record('messages', message);
  }

  end(): void {
    this.#open('messages');
    this.#close();
    this.write('\n}\n');
    this.#list = 'ended';
  }

  #record(list: 'contacts' | 'messages', record: ContactData | MessageData): void {
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

/**
 * A record's stored fields checked against its table, in the table's order: every one present
 * but one with a fixed fallback, which is then its fallback; no other. `checked` hears of each
 * field as soon as it is checked; `structured` checks the fields of a structured type.
 */
function fieldsOf<T extends Table>(
  table: T,
  raw: Record<string, unknown>,
  at: string,
  checked: (name: string, value: unknown, path: string) => void,
  structured: Partial<Record<FieldType, (value: unknown, path: string) => unknown>> = {},
): StoredRow<T> {
  const fields = storedFields(table);
  for (const { name, fallback } of fields) {
    if (!(name in raw) && fallback === undefined) throw new FixtureError(`${at}.${name}`, 'is missing.');
  }
  for (const key of Object.keys(raw)) {
    if (!fields.some(({ name }) => name === key))
      throw new FixtureError(
        `${at}.${key}`,
        `is not a field of this record; the fields are ${fields.map(({ name }) => name).join(', ')}.`,
      );
  }
  const out: Record<string, unknown> = {};
  for (const { name, field, fallback } of fields) {
    if (!(name in raw)) {
      out[name] = fallback;
      continue;
    }
    const path = `${at}.${name}`;
    const value = fieldValue(field, raw[name], path, structured);
    checked(name, value, path);
    out[name] = value;
  }
  return out as StoredRow<T>;
}

/** `record` has every one of `keys` and no other. */
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

/** One field's value, checked as its type says. */
function fieldValue(
  field: Field<unknown>,
  value: unknown,
  path: string,
  structured: Partial<Record<FieldType, (value: unknown, path: string) => unknown>>,
): unknown {
  if (value === null && field.nullable) return null;
  switch (field.type) {
    case 'id':
      return id(value, path);
    case 'timestamp':
      return time(value, path);
    case 'boolean':
      // JSON has booleans: "true" as text is what a form sends, not a fixture.
      if (typeof value !== 'boolean')
        throw new FixtureError(path, `must be true or false, got ${describe(value)}.`);
      return value;
    case 'text':
    case 'url':
    case 'integer':
      return valueOf(field, value, path);
    default: {
      const check = structured[field.type];
      if (check === undefined) throw new Error(`no check for ${path}, a ${field.type}`);
      return check(value, path);
    }
  }
}

function list(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw new FixtureError(path, 'must be a list (empty when there are none).');
  return value;
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

/**
 * A list no longer than what one message may hold through the API (C15, C16): a fixture's message
 * must be one that the API's updates can go on writing to.
 */
function bounded(items: unknown[], path: string, max: number, what: string): unknown[] {
  if (items.length > max) throw new FixtureError(path, `a message holds at most ${max} ${what}.`);
  return items;
}

/** A message's reactions as C15 keeps them: one object per name, each name once, within the limits. */
function reactions(raw: unknown[], path: string): Reaction[] {
  bounded(raw, path, LIMITS.reactionNamesPerMessage, 'reaction names');
  const names = new Set<string>();
  return raw.map((r, j) => {
    const checked = reaction(r, `${path}[${j}]`);
    const name = Object.keys(checked)[0]!;
    if (names.has(name))
      throw new FixtureError(path, `lists the reaction '${name}' twice; give each name one object.`);
    names.add(name);
    return checked;
  });
}

function reaction(raw: unknown, path: string): Reaction {
  if (!isPlainRecord(raw) || Object.keys(raw).length !== 1) {
    throw new FixtureError(path, 'must be an object with one reaction name, e.g. {"heart": ["alice"]}.');
  }
  const [name, usernames] = Object.entries(raw)[0]!;
  checkString(name, path, REACTION_NAME);
  if (!Array.isArray(usernames) || usernames.length === 0)
    throw new FixtureError(`${path}.${name}`, 'must be a non-empty list of usernames.');
  if (usernames.length > LIMITS.usernamesPerReaction)
    throw new FixtureError(
      `${path}.${name}`,
      `a reaction holds at most ${LIMITS.usernamesPerReaction} usernames.`,
    );
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
  return fieldsOf(ATTACHMENT, raw, path, (name, value, where) => {
    if (name === 'id') unique(value as string, where);
    if (name === 'message_id' && value !== messageId)
      throw new FixtureError(where, `must be the id of its message, '${messageId}'.`);
  });
}
