import BTree from 'sorted-btree';
import { errors } from '../errors';
import { randomId } from '../ids';
import type { Attachment, Contact, Message, MessageContact, Page, Reaction, Timestamp } from '../types';
import type { Params } from './params';
import * as rules from './rules';

/** What a world is made of, as plain data: the seed generator's output and the fixture format. */
export interface WorldData {
  contacts: Contact[];
  messages: StoredMessage[];
}

/** A message as stored: its sender is derived from the conversation when it is read (C11). */
export type StoredMessage = Omit<Message, 'contact'>;

type ContactRecord = Readonly<Contact> & { readonly seq: number };
type MessageRecord = Readonly<StoredMessage> & { readonly seq: number };

/**
 * A position in a list: [list, created_at, seq]. One ordered index holds several lists, each
 * under its own first element, so a page is one range walk, and a cursor is found in O(log n).
 * `seq` is the creation order, which breaks ties between equal `created_at` (convention C7).
 */
type OrderKey = readonly [list: string, createdAt: number, seq: number];

const compareKeys = (a: OrderKey, b: OrderKey): number =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1] || a[2] - b[2];

const ALL = '';
const ACTIVE = 'active';
const NEVER_ACTIVE = 'never_active';

export interface WorldOptions {
  /** The current time in Unix seconds; tests pass their own clock. */
  now?: () => Timestamp;
}

const systemClock = (): Timestamp => Math.floor(Date.now() / 1000);

/**
 * One user's contacts, conversations and messages, with no HTTP in it. Every operation
 * validates its whole input before it changes anything, so a refused call leaves the world as
 * it was. All indexes are B+ trees, so `clone()` is O(1) and copies on write: a new token's
 * world costs nothing until it changes something.
 */
export class World {
  #contacts: BTree<string, ContactRecord>;
  /** conversation id -> contact id */
  #conversations: BTree<string, string>;
  #messages: BTree<string, MessageRecord>;
  /** Lists '' (all), 'active', 'never_active' of contact ids. */
  #contactOrder: BTree<OrderKey, string>;
  /** Lists '' (all) and one per conversation id, of message ids. */
  #messageOrder: BTree<OrderKey, string>;
  #seq: number;
  readonly #now: () => Timestamp;

  private constructor(now: () => Timestamp, from?: World) {
    this.#now = now;
    this.#contacts = from ? from.#contacts.clone() : new BTree();
    this.#conversations = from ? from.#conversations.clone() : new BTree();
    this.#messages = from ? from.#messages.clone() : new BTree();
    this.#contactOrder = from ? from.#contactOrder.clone() : new BTree(undefined, compareKeys);
    this.#messageOrder = from ? from.#messageOrder.clone() : new BTree(undefined, compareKeys);
    this.#seq = from ? from.#seq : 0;
  }

  /** Builds a world from plain data; records keep their ids and timestamps. */
  static fromData(data: WorldData, options: WorldOptions = {}): World {
    const world = new World(options.now ?? systemClock);
    const byCreation = <T extends { created_at: number }>(list: T[]) =>
      list
        .map((item, index) => ({ item, index }))
        .sort((a, b) => a.item.created_at - b.item.created_at || a.index - b.index)
        .map(({ item }) => item);
    for (const contact of byCreation(data.contacts)) world.#insertContact({ ...contact, seq: ++world.#seq });
    for (const message of byCreation(data.messages)) world.#insertMessage({ ...message, seq: ++world.#seq });
    return world;
  }

  /** An independent copy that shares storage until either side writes. */
  clone(): World {
    return new World(this.#now, this);
  }

  get size(): { contacts: number; messages: number } {
    return { contacts: this.#contacts.size, messages: this.#messages.size };
  }

  /** The world as plain data, oldest first: the fixture format. */
  toData(): WorldData {
    const contacts: Contact[] = [];
    for (const [key, id] of this.#contactOrder.entries([ALL, -Infinity, -Infinity])) {
      if (key[0] !== ALL) break;
      contacts.push(renderContact(this.#contacts.get(id)!));
    }
    const messages: StoredMessage[] = [];
    for (const [key, id] of this.#messageOrder.entries([ALL, -Infinity, -Infinity])) {
      if (key[0] !== ALL) break;
      messages.push(renderStoredMessage(this.#messages.get(id)!));
    }
    return { contacts, messages };
  }

  // ---- contacts ----

  listContacts(params: Params): Page<Contact> {
    const query = rules.contactList(params);
    const list = query.active === undefined ? ALL : query.active ? ACTIVE : NEVER_ACTIVE;
    return this.#page(
      this.#contactOrder,
      list,
      query,
      (id) => {
        const record = this.#contacts.get(id);
        return record && [list, record.created_at, record.seq];
      },
      (id) => renderContact(this.#contacts.get(id)!),
    );
  }

  createContact(params: Params): Contact {
    const input = rules.contactCreate(params);
    const record: ContactRecord = {
      id: this.#newId(),
      username: input.username,
      phone_number: input.phone_number,
      avatar_url: input.avatar_url ?? defaultAvatarUrl(input.username),
      display_name: input.display_name ?? input.username,
      conversation_id: this.#newId(),
      last_active_at: null,
      created_at: this.#now(),
      seq: ++this.#seq,
    };
    this.#insertContact(record);
    return renderContact(record);
  }

  getContact(id: string): Contact | undefined {
    const record = this.#contacts.get(id);
    return record && renderContact(record);
  }

  updateContact(id: string, params: Params): Contact | undefined {
    const record = this.#contacts.get(id);
    if (record === undefined) return undefined;
    const input = rules.contactUpdate(params);
    if (input.display_name === undefined) return renderContact(record);
    const updated: ContactRecord = { ...record, display_name: input.display_name };
    this.#contacts.set(id, updated);
    return renderContact(updated);
  }

  /** Deletes the contact, its conversation and every message in it (document 4.1 rule 6, C18). */
  deleteContact(id: string): boolean {
    const record = this.#contacts.get(id);
    if (record === undefined) return false;
    const conversation = record.conversation_id;
    const ids: string[] = [];
    this.#messageOrder.forRange(
      [conversation, -Infinity, -Infinity],
      [conversation, Infinity, Infinity],
      true,
      (_k, messageId) => {
        ids.push(messageId);
      },
    );
    for (const messageId of ids) this.#removeMessage(this.#messages.get(messageId)!);
    this.#conversations.delete(conversation);
    this.#contacts.delete(id);
    this.#contactOrder.delete([ALL, record.created_at, record.seq]);
    this.#contactOrder.delete([activityList(record), record.created_at, record.seq]);
    return true;
  }

  /** Moves a contact's `last_active_at`, e.g. when a simulated contact answers. */
  touchContact(id: string, at: Timestamp): void {
    const record = this.#contacts.get(id);
    if (record === undefined) return;
    this.#contactOrder.delete([activityList(record), record.created_at, record.seq]);
    const updated: ContactRecord = { ...record, last_active_at: at };
    this.#contacts.set(id, updated);
    this.#contactOrder.set([activityList(updated), updated.created_at, updated.seq], id);
  }

  // ---- messages ----

  listMessages(params: Params): Page<Message> {
    const query = rules.messageList(params);
    const list = query.conversation_id ?? ALL;
    if (query.conversation_id !== undefined && !this.#conversations.has(query.conversation_id)) {
      throw errors.notFound('conversation', query.conversation_id, 'conversation_id');
    }
    return this.#page(
      this.#messageOrder,
      list,
      query,
      (id) => {
        const record = this.#messages.get(id);
        return record && [list, record.created_at, record.seq];
      },
      (id) => this.#renderMessage(this.#messages.get(id)!),
    );
  }

  sendMessage(params: Params): Message {
    const input = rules.messageSend(params);
    if (!this.#conversations.has(input.conversation_id)) {
      throw errors.notFound('conversation', input.conversation_id, 'conversation_id');
    }
    const now = this.#now();
    const id = this.#newId();
    const record: MessageRecord = {
      id,
      conversation_id: input.conversation_id,
      message: input.message,
      reactions: [],
      attachments: input.attachments.map((a) => this.#attachment(a, id, now)),
      read_at: null,
      created_at: now,
      updated_at: null,
      seq: ++this.#seq,
    };
    this.#insertMessage(record);
    return this.#renderMessage(record);
  }

  getMessage(id: string): Message | undefined {
    const record = this.#messages.get(id);
    return record && this.#renderMessage(record);
  }

  /** Edits the text, adds reactions, appends attachments (document 4.2 rule 4, C15-C17). */
  updateMessage(id: string, params: Params): Message | undefined {
    const record = this.#messages.get(id);
    if (record === undefined) return undefined;
    const input = rules.messageUpdate(params);
    if (record.attachments.length + input.attachments.length > rules.LIMITS.attachmentsPerMessage) {
      throw errors.invalid(
        'attachments',
        `a message holds at most ${rules.LIMITS.attachmentsPerMessage} attachments.`,
      );
    }
    const now = this.#now();
    const updated: MessageRecord = {
      ...record,
      message: input.message ?? record.message,
      reactions: addReactions(record.reactions, input.reactions),
      attachments: [...record.attachments, ...input.attachments.map((a) => this.#attachment(a, id, now))],
      updated_at: now,
    };
    this.#messages.set(id, updated);
    return this.#renderMessage(updated);
  }

  deleteMessage(id: string): boolean {
    const record = this.#messages.get(id);
    if (record === undefined) return false;
    this.#removeMessage(record);
    return true;
  }

  // ---- internals ----

  #insertContact(record: ContactRecord): void {
    this.#contacts.set(record.id, record);
    this.#conversations.set(record.conversation_id, record.id);
    this.#contactOrder.set([ALL, record.created_at, record.seq], record.id);
    this.#contactOrder.set([activityList(record), record.created_at, record.seq], record.id);
  }

  #insertMessage(record: MessageRecord): void {
    this.#messages.set(record.id, record);
    this.#messageOrder.set([ALL, record.created_at, record.seq], record.id);
    this.#messageOrder.set([record.conversation_id, record.created_at, record.seq], record.id);
  }

  #removeMessage(record: MessageRecord): void {
    this.#messages.delete(record.id);
    this.#messageOrder.delete([ALL, record.created_at, record.seq]);
    this.#messageOrder.delete([record.conversation_id, record.created_at, record.seq]);
  }

  /**
   * One page of `list`, newest first (C7), with the cursors of C8. `keyOf` gives an id's key in
   * this list, or undefined when the id is unknown.
   */
  #page<T>(
    index: BTree<OrderKey, string>,
    list: string,
    query: rules.PageQuery,
    keyOf: (id: string) => OrderKey | undefined,
    render: (id: string) => T,
  ): Page<T> {
    const cursorKey = (param: 'starting_after' | 'ending_before', id: string): OrderKey => {
      const key = keyOf(id);
      if (key === undefined || !index.has(key)) {
        throw errors.invalid(
          param,
          `'${id}' is not an item of this list. Pass the id of an item from a page you got.`,
        );
      }
      return key;
    };
    const ids: string[] = [];
    const take = query.limit + 1;
    if (query.ending_before !== undefined) {
      // Walk towards newer items from the cursor, then show them newest first.
      const from = cursorKey('ending_before', query.ending_before);
      for (const [key, id] of index.entries(from)) {
        if (key[0] !== list || ids.length === take) break;
        if (compareKeys(key, from) !== 0) ids.push(id);
      }
      const has_more = ids.length > query.limit;
      return { has_more, data: ids.slice(0, query.limit).reverse().map(render) };
    }
    const from =
      query.starting_after !== undefined
        ? cursorKey('starting_after', query.starting_after)
        : ([list, Infinity, Infinity] as const);
    for (const [key, id] of index.entriesReversed(from, undefined, true)) {
      if (key[0] !== list || ids.length === take) break;
      ids.push(id);
    }
    const has_more = ids.length > query.limit;
    return { has_more, data: ids.slice(0, query.limit).map(render) };
  }

  #renderMessage(record: MessageRecord): Message {
    const contactId = this.#conversations.get(record.conversation_id);
    const contact = contactId === undefined ? undefined : this.#contacts.get(contactId);
    if (contact === undefined) throw new Error(`message ${record.id} has no contact`);
    return {
      id: record.id,
      conversation_id: record.conversation_id,
      contact: renderSender(contact),
      message: record.message,
      reactions: record.reactions,
      attachments: record.attachments,
      read_at: record.read_at,
      created_at: record.created_at,
      updated_at: record.updated_at,
    };
  }

  #attachment(input: rules.AttachmentInput, messageId: string, now: Timestamp): Attachment {
    return {
      id: this.#newId(),
      message_id: messageId,
      filename: input.filename,
      file_url: input.file_url,
      file_type: input.file_type,
      file_size: input.file_size,
      created_at: now,
    };
  }

  /** Contact, conversation and message ids never collide (C6). */
  #newId(): string {
    for (;;) {
      const id = randomId();
      if (!this.#contacts.has(id) && !this.#conversations.has(id) && !this.#messages.has(id)) return id;
    }
  }
}

function activityList(record: Pick<Contact, 'last_active_at'>): string {
  return record.last_active_at === null ? NEVER_ACTIVE : ACTIVE;
}

/** Convention C15: new names go last, each username at most once per name. Never removes. */
function addReactions(current: readonly Reaction[], added: readonly rules.ReactionInput[]): Reaction[] {
  const byName = new Map<string, string[]>();
  for (const reaction of current) {
    for (const [name, usernames] of Object.entries(reaction)) byName.set(name, [...usernames]);
  }
  for (const { name, usernames } of added) {
    const list = byName.get(name) ?? [];
    for (const username of usernames) if (!list.includes(username)) list.push(username);
    if (list.length > rules.LIMITS.usernamesPerReaction) {
      throw errors.invalid(
        `reactions[${name}]`,
        `a reaction holds at most ${rules.LIMITS.usernamesPerReaction} usernames.`,
      );
    }
    byName.set(name, list);
  }
  if (byName.size > rules.LIMITS.reactionNamesPerMessage) {
    throw errors.invalid(
      'reactions',
      `a message holds at most ${rules.LIMITS.reactionNamesPerMessage} reaction names.`,
    );
  }
  // A computed key defines an own property even for a name like "__proto__".
  return [...byName].map(([name, usernames]) => ({ [name]: usernames }));
}

/** A contact created without `avatar_url` still gets a working picture: its initials. */
export function defaultAvatarUrl(username: string): string {
  return `https://api.dicebear.com/9.x/initials/svg?seed=${encodeURIComponent(username)}`;
}

function renderContact(r: ContactRecord | Contact): Contact {
  return {
    id: r.id,
    username: r.username,
    phone_number: r.phone_number,
    avatar_url: r.avatar_url,
    display_name: r.display_name,
    conversation_id: r.conversation_id,
    last_active_at: r.last_active_at,
    created_at: r.created_at,
  };
}

function renderSender(r: ContactRecord): MessageContact {
  return {
    id: r.id,
    username: r.username,
    phone_number: r.phone_number,
    avatar_url: r.avatar_url,
    last_active_at: r.last_active_at,
    created_at: r.created_at,
  };
}

function renderStoredMessage(r: MessageRecord): StoredMessage {
  return {
    id: r.id,
    conversation_id: r.conversation_id,
    message: r.message,
    reactions: r.reactions,
    attachments: r.attachments,
    read_at: r.read_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
