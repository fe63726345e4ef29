/**
 * The document's resources, field by field: the one table the kit and the proxy read their lists
 * of fields from, written from the API document (docs/api.md 2.1, 2.2, 4.1, 4.2), never from the
 * mock. The schemas of an answer (fields.ts), the parameters each operation takes (the judge's
 * PARAMETERS), the fields no update changes (the judge's CONTACT_STABLE, the model's), what a
 * create or an update must keep as sent, the sender's fields and the sentences of the rules that
 * name fields are derived from it. A new field is one entry here.
 */

/** What an answer holds in the field. `timestamp` only asks for a number (see fields.ts). */
export type FieldType =
  'string' | 'string|null' | 'timestamp' | 'timestamp|null' | 'object' | 'array' | 'boolean';

/**
 * What a request's value of the field is, where the answer must show it as sent (fields.ts
 * kept()): free-form text, a phone number (its punctuation may go), a boolean.
 */
export type SentKind = 'text' | 'phone' | 'boolean';

export interface DocField {
  readonly type: FieldType;
  /** Whether a create (a message's send) must send it or may; absent, the server makes it. */
  readonly create?: 'required' | 'optional';
  /**
   * What changes it once the record is made: nothing, an update that sends it (and an update
   * that does not keeps it), or the server itself (activity, the time of an update).
   */
  readonly changes: 'never' | 'update' | 'server';
  /** A contact's field that a message's contact shows too (2.2); the others it must not carry. */
  readonly sender?: boolean;
  /** What a value sent is, when the answer must show it as sent; absent, it is judged by its own rule. */
  readonly sent?: SentKind;
}

export type DocTable = Readonly<Record<string, DocField>>;

/** 2.1 Contact, in the document's order; 4.1 says what a create and an update take. */
export const CONTACT_FIELDS: DocTable = {
  id: { type: 'string', changes: 'never', sender: true },
  username: { type: 'string', create: 'required', changes: 'never', sender: true, sent: 'text' },
  phone_number: { type: 'string', create: 'required', changes: 'never', sender: true, sent: 'phone' },
  // No default is given for an avatar left out: a server may answer none (null), as for display_name.
  avatar_url: { type: 'string|null', create: 'optional', changes: 'never', sender: true, sent: 'text' },
  display_name: { type: 'string|null', create: 'optional', changes: 'update', sent: 'text' },
  conversation_id: { type: 'string', changes: 'never' },
  last_active_at: { type: 'timestamp|null', changes: 'server', sender: true },
  created_at: { type: 'timestamp', changes: 'never', sender: true },
};

/**
 * 2.2 Message, in the document's order; 4.2 says what a send and an update take. Its contact,
 * reactions and attachments have rules of their own, and so has its conversation_id on a send.
 */
export const MESSAGE_FIELDS: DocTable = {
  id: { type: 'string', changes: 'never' },
  conversation_id: { type: 'string', create: 'required', changes: 'never' },
  contact: { type: 'object', changes: 'never' },
  message: { type: 'string', create: 'required', changes: 'update', sent: 'text' },
  reactions: { type: 'array', changes: 'update' },
  attachments: { type: 'array', create: 'optional', changes: 'update' },
  read_at: { type: 'timestamp|null', changes: 'server' },
  created_at: { type: 'timestamp', changes: 'never' },
  updated_at: { type: 'timestamp|null', changes: 'server' },
};

const names = (table: DocTable, where: (field: DocField) => boolean): string[] =>
  Object.entries(table)
    .filter(([, field]) => where(field))
    .map(([name]) => name);

/** Every field and its type: what an answer's record must hold. */
export const schemaOf = (table: DocTable): Readonly<Record<string, FieldType>> =>
  Object.fromEntries(Object.entries(table).map(([name, field]) => [name, field.type]));

/** What a create (a send) must send, and what it may. */
export const requiredOf = (table: DocTable) => names(table, (f) => f.create === 'required');
export const optionalOf = (table: DocTable) => names(table, (f) => f.create === 'optional');
export const createdWith = (table: DocTable) => names(table, (f) => f.create !== undefined);
/** What an update takes, each optional. */
export const updatedWith = (table: DocTable) => names(table, (f) => f.changes === 'update');
/** The fields nothing changes once the record is made, its id aside (the id is how it is known). */
export const stableOf = (table: DocTable) =>
  names(table, (f) => f.changes === 'never').filter((n) => n !== 'id');

/** The fields the answer must show as sent, with what each is, among `fields`. */
export const sentOf = (table: DocTable, fields: readonly string[]): [string, SentKind][] =>
  fields.flatMap((name) => {
    const sent = table[name]?.sent;
    return sent === undefined ? [] : [[name, sent] as [string, SentKind]];
  });

/** The fields a message's contact shows (2.2), and those it must not carry. */
export const senderOf = (contact: DocTable) => names(contact, (f) => f.sender === true);
export const notInSender = (contact: DocTable) => names(contact, (f) => f.sender !== true);
/** What a message's contact shows that never moves: it must be its contact's, as the contact is. */
export const senderStableOf = (contact: DocTable) =>
  names(contact, (f) => f.sender === true && f.changes === 'never');

/** A list's own parameters (2.4, C8), and each list's filter (C9, 4.2). */
const PAGING = ['limit', 'starting_after', 'ending_before'];

/** The parameters each operation takes, by `<method> <route kind>`; a read or a delete takes none. */
export function parametersOf(contact: DocTable, message: DocTable): Record<string, readonly string[]> {
  return {
    'GET contacts': [...PAGING, 'active'],
    'GET messages': [...PAGING, 'conversation_id'],
    'POST contacts': createdWith(contact),
    'PUT contact': updatedWith(contact),
    'POST messages': createdWith(message),
    'PUT message': updatedWith(message),
    'GET contact': [],
    'GET message': [],
    'DELETE contact': [],
    'DELETE message': [],
  };
}

// ---- the same in words, for the rules' sentences ----

/** `a`, `a and b`, `a, b and c` (or `or`). */
export function inWords(items: readonly string[], last = 'and'): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${last} ${items.at(-1)!}`;
}

const TIMESTAMP: readonly [one: string, many: string] = ['timestamp', 'timestamps'];
const TYPE_WORDS: Record<FieldType, readonly [one: string, many: string]> = {
  string: ['string', 'strings'],
  'string|null': ['string, can be null', 'strings, can be null'],
  timestamp: TIMESTAMP,
  'timestamp|null': TIMESTAMP,
  object: ['object', 'objects'],
  array: ['array', 'arrays'],
  boolean: ['boolean', 'booleans'],
};

/** The fields of a record by their type in words, e.g. `id and username (strings); muted (boolean)`. */
export function fieldsInWords(table: DocTable): string {
  const groups = new Map<readonly [string, string], string[]>();
  for (const [name, field] of Object.entries(table)) {
    const words = TYPE_WORDS[field.type];
    groups.set(words, [...(groups.get(words) ?? []), name]);
  }
  return [...groups]
    .map(([[one, many], fields]) => `${inWords(fields)} (${fields.length === 1 ? one : many})`)
    .join('; ');
}

/** Names in backticks. */
export const quoted = (items: readonly string[]) => items.map((item) => `\`${item}\``);

/**
 * The ids the kit makes up to name no record, for the unknown-id rules. Traffic alone cannot tell
 * an id that names no record from one made before the traffic was seen; these it can: the judge
 * holds every retrieve, update and delete of them against the rule, wherever they pass (the kit's
 * run, or the kit's run through the proxy). No server makes such an id: none starts `zz0unknown0`.
 */
export const MADE_UP_IDS = { contact: 'zz0unknown0contact0id', message: 'zz0unknown0message0id' } as const;

/** Whether `id` is the one the kit made up to name no record of `kind`. */
export const madeUp = (kind: 'contact' | 'message', id: string): boolean => MADE_UP_IDS[kind] === id;

/** The path of one record, for its GET, PUT and DELETE (docs/api.md 4.1, 4.2). */
export function recordPath(resource: 'contact' | 'message', id: unknown): string {
  return `/v1/${resource}s/${encodeURIComponent(String(id))}`;
}
