import BTree from 'sorted-btree';
import { errors } from '../errors';
import { IdHash, idFrom, randomWords, wordsOf, type IdKind, type Words } from '../ids';
import { CONTACT } from '../resources/contact';
import { changes, created } from '../resources/field';
import type {
  Complete,
  Contact,
  ContactData,
  Message,
  MessageData,
  Page,
  StoredMessage,
  Timestamp,
} from '../types';
import { contactBytes, DELETION_MARK, messageBytes, senderJsonLength, TREE_NODE_BYTES } from './bytes';
import { LayeredMap } from './layered-map';
import { EMPTY, keyed, nextKey, pageOf, type Order } from './order';
import { addReactions } from './reactions';
import { contactRecord, messageRecord, storedMessage } from './copies.generated';
import { attachmentRecord, type ContactRecord, type MessageRecord } from './records';
import * as fields from '../input/operations';
import { messageView, renderContact, renderSender } from './views';
import { LIMITS } from '../input/limits';

/** What a world is made of, as plain data: the seed generator's output and the fixture format. */
export interface WorldData {
  contacts: ContactData[];
  messages: MessageData[];
}

/**
 * What the writes of a world changed, record by record (null: deleted), and the ids its deletes
 * took (with `keepDeleted`): what a world kept on disk logs after each write, and applies again
 * to the world it started from when it is loaded back (src/durable/).
 */
export interface WorldChange {
  contacts: [string, ContactRecord | null][];
  messages: [string, MessageRecord | null][];
  deleted?: string[];
}

/** A world's content as fromData builds it, before it is wrapped for copying. */
interface Built {
  /** A hash of every id the data holds (attachments' too), in its order. */
  ids: IdHash;
  contacts: Map<string, ContactRecord>;
  conversations: Map<string, string>;
  messages: Map<string, MessageRecord>;
  contactLists: { all: Order; active: Order; never: Order };
  messageList: Order;
  conversationLists: Map<string, Order>;
}

export interface WorldOptions {
  /** The current time in Unix seconds; tests pass their own clock. */
  now?: () => Timestamp;
  /** How many bytes (estimated) a world may add to what it started with; writes beyond are refused. */
  maxWrittenBytes?: number;
  /** A new id of a kind, in another format than the mock's own (a twin's server), drawn from `words`; checked unused. */
  /** `attempt`: how many ids drawn for this one were taken already. */
  newId?: (kind: IdKind, words: Words, attempt: number) => string;
  /**
   * What the world's new ids are drawn from: the same text and the same writes give the same ids
   * (with `--seed`, the same answers). Without it, they are drawn at random.
   */
  idSeed?: string;
  /**
   * Remember the ids of the records deleted (a contact's, its conversation's and its messages', a
   * message's), so that `wasDeleted` tells them from ids never made: a twin of a server that
   * answers the two apart (410 and 404). Each counts against the world's bound like a write.
   */
  keepDeleted?: boolean;
}

/** What remembering one deleted id holds: a Set entry and its string. */
const DELETED_ID_BYTES = 40;

const DEFAULT_MAX_WRITTEN_BYTES = 64 * 1024 * 1024;
const systemClock = (): Timestamp => Math.floor(Date.now() / 1000);

/**
 * One user's contacts, conversations and messages, with no HTTP in it. Every operation
 * validates its whole input before it changes anything, so a refused call leaves the world as
 * it was. Records live in layered maps and lists in B+ trees, both copied in O(1) and on write:
 * a new token's world costs nothing until it changes something.
 */
export class World {
  readonly #contacts: LayeredMap<string, ContactRecord>;
  /** conversation id -> contact id */
  readonly #conversations: LayeredMap<string, string>;
  readonly #messages: LayeredMap<string, MessageRecord>;
  /** All contacts, and the two halves of the `active` filter (C9). */
  #contactLists: { all: Order; active: Order; never: Order };
  #messageList: Order;
  /** One list per conversation; a tree shared with the world this one was copied from is copied before its first write. */
  #conversationLists: LayeredMap<string, Order>;
  #ownLists = new WeakSet<Order>();
  readonly #now: () => Timestamp;
  readonly #maxWritten: number;
  readonly #makeId: WorldOptions['newId'];
  readonly #idSeed: string | undefined;
  readonly #words: Words;
  /** Counted bytes of what this world's writes hold (see #charge and bytes.ts). */
  #written = 0;
  /**
   * For each list whose B+ tree shares nodes with another world's, the bytes its writes may still
   * hold by copying shared nodes: a write copies the path to its leaf, and at most, over many
   * writes, every node of the tree as it was shared.
   */
  readonly #sharedTrees = new Map<Order, number>();
  /** A world built from data holds its records itself (counted once, when asked); a copy shares them. */
  readonly #builtFromData: boolean;
  #contentBytes: number | undefined;
  /** The ids of records deleted (`keepDeleted`). */
  readonly #deleted: Set<string> | undefined;
  /** The ids deletes took since the last `takeChanges`, once `trackChanges` was called. */
  #deletedSince: string[] | undefined;

  private constructor(options: WorldOptions, from: World | Built) {
    this.#now = options.now ?? systemClock;
    this.#deleted = options.keepDeleted
      ? new Set(from instanceof World ? (from.#deleted ?? []) : [])
      : undefined;
    this.#maxWritten = options.maxWrittenBytes ?? DEFAULT_MAX_WRITTEN_BYTES;
    this.#makeId = options.newId;
    // A world built from data draws from a stream named by the ids it holds too: data that holds
    // ids drawn from a stream (a world exported, then served or loaded again) never starts that
    // stream again, which would draw them once more (an attachment's id is not checked unused).
    this.#idSeed =
      options.idSeed === undefined || from instanceof World
        ? options.idSeed
        : `${options.idSeed}/${from.ids.text}`;
    this.#words = this.#idSeed === undefined ? randomWords : wordsOf(this.#idSeed);
    if (from instanceof World) {
      this.#contacts = from.#contacts.clone();
      this.#conversations = from.#conversations.clone();
      this.#messages = from.#messages.clone();
      const lists = from.#contactLists;
      this.#contactLists = {
        all: lists.all.clone(),
        active: lists.active.clone(),
        never: lists.never.clone(),
      };
      this.#messageList = from.#messageList.clone();
      this.#conversationLists = from.#conversationLists.clone();
      // Both worlds now share every conversation list: neither may write to one without copying it.
      from.#ownLists = new WeakSet();
      this.#builtFromData = false;
    } else {
      this.#builtFromData = true;
      this.#contacts = new LayeredMap(from.contacts);
      this.#conversations = new LayeredMap(from.conversations);
      this.#messages = new LayeredMap(from.messages);
      this.#contactLists = from.contactLists;
      this.#messageList = from.messageList;
      this.#conversationLists = new LayeredMap(from.conversationLists);
      for (const list of from.conversationLists.values()) this.#ownLists.add(list);
    }
  }

  /** Builds a world from plain data; records keep their ids and timestamps. */
  static fromData(data: WorldData, options: WorldOptions = {}): World {
    // Straight into plain maps and trees: this is the start-up cost of a million-message world.
    const built: Built = {
      ids: new IdHash(),
      contacts: new Map(),
      conversations: new Map(),
      messages: new Map(),
      contactLists: { all: new BTree(), active: new BTree(), never: new BTree() },
      messageList: new BTree(),
      conversationLists: new Map(),
    };
    for (const record of keyed(data.contacts, contactRecord)) {
      built.ids.add(record.id).add(record.conversation_id);
      built.contacts.set(record.id, record);
      built.conversations.set(record.conversation_id, record.id);
      built.contactLists.all.set(record.key, record.id);
      (record.last_active_at === null ? built.contactLists.never : built.contactLists.active).set(
        record.key,
        record.id,
      );
    }
    for (const record of keyed(data.messages, messageRecord)) {
      built.ids.add(record.id);
      for (const attachment of record.attachments) built.ids.add(attachment.id);
      built.messages.set(record.id, record);
      built.messageList.set(record.key, record.id);
      let list = built.conversationLists.get(record.conversation_id);
      if (list === undefined) built.conversationLists.set(record.conversation_id, (list = new BTree()));
      list.set(record.key, record.id);
    }
    return new World(options, built);
  }

  /**
   * An independent copy that shares storage until either side writes. Its new ids are drawn from
   * a stream of its own, named by `stream` (a token): the same for the same name; null: at random
   * (a world whose changes are made again on it, which a stream begun again would draw once more).
   */
  clone(stream: string | null = 'copy'): World {
    return new World(
      {
        now: this.#now,
        maxWrittenBytes: this.#maxWritten,
        newId: this.#makeId,
        idSeed: stream === null ? undefined : World.idStream(this.#idSeed, stream),
        keepDeleted: this.#deleted !== undefined,
      },
      this,
    );
  }

  /** The id seed of a world made for `stream` (a token) from a world of `idSeed`: none stays none. */
  static idStream(idSeed: string | undefined, stream: string): string | undefined {
    return idSeed === undefined ? undefined : `${idSeed}/${stream}`;
  }

  /** Counted bytes of what this world's writes hold (bounded by maxWrittenBytes). */
  get written(): number {
    return this.#written;
  }

  /**
   * Counted bytes of everything this world holds that no other world shares: its writes, and, for
   * a world built from data (a fixture), all its records. Never below what it really holds.
   */
  get heldBytes(): number {
    if (!this.#builtFromData) return this.#written;
    if (this.#contentBytes === undefined) {
      let bytes = 0;
      for (const contact of this.#contacts.values()) bytes += contactBytes(contact);
      for (const message of this.#messages.values()) bytes += this.#messageBytes(message);
      // Its lists: a node of every sixteen entries (nodes are at least half full), and the maps' tables.
      const entries = this.#contacts.size * 4 + this.#messages.size * 3;
      this.#contentBytes = bytes + Math.ceil(entries / 16) * TREE_NODE_BYTES + entries * 32;
    }
    return this.#contentBytes + this.#written;
  }

  get size(): { contacts: number; messages: number } {
    return { contacts: this.#contacts.size, messages: this.#messages.size };
  }

  /** The world as plain data, oldest first: the fixture format. A document of its own, not views. */
  toData(): WorldData {
    const contacts: Contact[] = [];
    for (const id of this.#contactLists.all.values())
      contacts.push({ ...renderContact(this.#contacts.get(id)!) });
    const messages: StoredMessage[] = [];
    for (const id of this.#messageList.values()) messages.push(storedMessage(this.#messages.get(id)!));
    return { contacts, messages };
  }

  /** Whether this world was built from data (a fixture), not copied from another. */
  get builtFromData(): boolean {
    return this.#builtFromData;
  }

  // ---- changes, for a world kept on disk ----

  /** From now on, note what each write changes (`takeChanges`). */
  trackChanges(): void {
    this.#contacts.track();
    this.#messages.track();
    if (this.#deleted) this.#deletedSince ??= [];
  }

  /** What the writes since the last call changed (with `trackChanges`), or nothing. */
  takeChanges(): WorldChange | undefined {
    const change = this.#changeOf(
      this.#contacts.takeTouched(),
      this.#messages.takeTouched(),
      this.#deletedSince?.splice(0) ?? [],
    );
    const empty = change.contacts.length === 0 && change.messages.length === 0 && !change.deleted;
    return empty ? undefined : change;
  }

  /** How many records `allChanges` holds (each id of its three lists). */
  get changedRecords(): number {
    return this.#contacts.ownSize + this.#messages.ownSize + (this.#deleted?.size ?? 0);
  }

  /** What the writes of this world changed in all, from the world it was copied from or built as. */
  allChanges(): WorldChange {
    return this.#changeOf(this.#contacts.ownKeys(), this.#messages.ownKeys(), [...(this.#deleted ?? [])]);
  }

  /** The records of these ids as they are now (null: deleted), and the ids deletes took. */
  #changeOf(contacts: string[], messages: string[], deleted: string[]): WorldChange {
    return {
      contacts: contacts.map((id) => [id, this.#contacts.get(id) ?? null]),
      messages: messages.map((id) => [id, this.#messages.get(id) ?? null]),
      ...(deleted.length > 0 ? { deleted } : {}),
    };
  }

  /**
   * Makes the changes of `takeChanges` again, in the order they were taken: a world loaded back
   * from disk. Counted as writes (never refused: they were taken once).
   */
  applyChanges(change: WorldChange): void {
    let bytes = 0;
    for (const [id, record] of change.contacts) {
      const old = this.#contacts.get(id);
      if (old !== undefined) {
        this.#contactLists.all.delete(old.key);
        this.#activityList(old).delete(old.key);
      }
      if (record !== null) {
        this.#insertContact(record);
        bytes += contactBytes(record);
      } else if (old !== undefined) {
        this.#contacts.delete(id);
        this.#conversations.delete(old.conversation_id);
        this.#conversationLists.delete(old.conversation_id);
      }
    }
    for (const [id, record] of change.messages) {
      const old = this.#messages.get(id);
      if (old !== undefined) {
        this.#messageList.delete(old.key);
        if (this.#conversationLists.has(old.conversation_id))
          this.#writableConversationList(old.conversation_id).delete(old.key);
      }
      if (record !== null) {
        this.#insertMessage(record);
        bytes += this.#messageBytes(record);
      } else if (old !== undefined) this.#messages.delete(id);
    }
    for (const id of change.deleted ?? []) this.#deleted?.add(id);
    this.#charge(bytes + (change.deleted?.length ?? 0) * DELETED_ID_BYTES, true);
  }

  // ---- contacts ----

  listContacts(query: fields.ContactListQuery): Page<Readonly<Contact>> {
    const lists = this.#contactLists;
    const list = query.active === undefined ? lists.all : query.active ? lists.active : lists.never;
    return pageOf(list, query, this.#contacts, renderContact);
  }

  createContact(input: fields.ContactCreateInput): Readonly<Contact> {
    const now = this.#now();
    const contact = created(CONTACT, input, { id: (of) => this.#newId(of), now });
    const record = contactRecord(contact, nextKey(this.#contactLists.all, now));
    this.#charge(
      contactBytes(record) +
        this.#treeCost(this.#contactLists.all) +
        this.#treeCost(this.#activityList(record)),
    );
    this.#insertContact(record);
    return renderContact(record);
  }

  getContact(id: string): Readonly<Contact> | undefined {
    const record = this.#contacts.get(id);
    return record && renderContact(record);
  }

  updateContact(id: string, input: fields.ContactUpdateInput): Readonly<Contact> | undefined {
    const record = this.#contacts.get(id);
    if (record === undefined) return undefined;
    const changed = changes(input);
    if (changed === undefined) return renderContact(record);
    const updated = contactRecord({ ...record, ...changed }, record.key);
    this.#charge(contactBytes(updated) - this.#ownBytes(this.#contacts, record, contactBytes));
    this.#contacts.set(id, updated);
    return renderContact(updated);
  }

  /** Deletes the contact, its conversation and every message in it (document 4.1 rule 6, C18). */
  deleteContact(id: string): boolean {
    const record = this.#contacts.get(id);
    if (record === undefined) return false;
    const conversation = record.conversation_id;
    const list = this.#conversationLists.get(conversation);
    const sender = senderJsonLength(record);
    let cost = this.#treeCost(this.#contactLists.all) + this.#treeCost(this.#activityList(record));
    if (list !== undefined) {
      for (const messageId of list.values()) {
        const message = this.#messages.get(messageId)!;
        cost +=
          this.#deletionCost(this.#messages, message, (m) => messageBytes(m, sender)) +
          this.#treeCost(this.#messageList);
      }
    }
    cost += this.#deletionCost(this.#contacts, record, contactBytes);
    // The conversation's entry in its map goes too: its mark, when the base holds it.
    if (this.#conversations.inBase(conversation)) cost += DELETION_MARK;
    // Deleting gives back what this world wrote; what it shares stays held, and a mark is added.
    this.#charge(cost, true);
    if (list !== undefined) {
      for (const messageId of list.values()) {
        const message = this.#messages.get(messageId)!;
        this.#messages.delete(messageId);
        this.#messageList.delete(message.key);
      }
    }
    this.#conversationLists.delete(conversation);
    this.#conversations.delete(conversation);
    this.#contacts.delete(id);
    this.#contactLists.all.delete(record.key);
    this.#activityList(record).delete(record.key);
    this.#rememberDeleted([id, conversation, ...(list?.values() ?? [])]);
    return true;
  }

  /** Whether `id` named a record of this world that a delete took (only with `keepDeleted`). */
  wasDeleted(id: string): boolean {
    return this.#deleted?.has(id) ?? false;
  }

  /** Moves a contact's `last_active_at`, e.g. when a simulated contact answers. */
  touchContact(id: string, at: Timestamp): void {
    const record = this.#contacts.get(id);
    if (record === undefined) return;
    this.#activityList(record).delete(record.key);
    const updated: ContactRecord = { ...record, last_active_at: at };
    // A simulated reply is not the user's write: it is counted, never refused.
    this.#charge(
      contactBytes(updated) -
        this.#ownBytes(this.#contacts, record, contactBytes) +
        this.#treeCost(this.#contactLists.active) +
        this.#treeCost(this.#contactLists.never),
      true,
    );
    this.#contacts.set(id, updated);
    this.#activityList(updated).set(updated.key, id);
  }

  // ---- messages ----

  listMessages(query: fields.MessageListQuery): Page<Readonly<Message>> {
    let list = this.#messageList;
    if (query.conversation_id !== undefined) {
      if (!this.#conversations.has(query.conversation_id)) {
        throw errors.notFound('conversation', query.conversation_id, 'conversation_id');
      }
      list = this.#conversationLists.get(query.conversation_id) ?? EMPTY;
    }
    return pageOf(list, query, this.#messages, (record) => this.#renderMessage(record));
  }

  sendMessage(input: fields.MessageSendInput): Readonly<Message> {
    if (!this.#conversations.has(input.conversation_id)) {
      throw errors.notFound('conversation', input.conversation_id, 'conversation_id');
    }
    const now = this.#now();
    const id = this.#newId('message');
    const record: MessageRecord = {
      id,
      conversation_id: input.conversation_id,
      message: input.message,
      reactions: [],
      attachments: (input.attachments ?? []).map((a) =>
        attachmentRecord(a, this.#newId('attachment'), id, now),
      ),
      read_at: null,
      created_at: now,
      updated_at: null,
      key: nextKey(this.#messageList, now),
    } satisfies Complete<MessageRecord>;
    this.#charge(
      this.#messageBytes(record) +
        this.#treeCost(this.#messageList) +
        this.#treeCost(this.#conversationLists.get(record.conversation_id)),
    );
    this.#insertMessage(record);
    return this.#renderMessage(record);
  }

  getMessage(id: string): Readonly<Message> | undefined {
    const record = this.#messages.get(id);
    return record && this.#renderMessage(record);
  }

  /** Edits the text, adds reactions, appends attachments (document 4.2 rule 4, C15-C17). */
  updateMessage(id: string, input: fields.MessageUpdateInput): Readonly<Message> | undefined {
    const record = this.#messages.get(id);
    if (record === undefined) return undefined;
    const attachments = input.attachments ?? [];
    if (record.attachments.length + attachments.length > LIMITS.attachmentsPerMessage) {
      throw errors.invalid(
        'attachments',
        `a message holds at most ${LIMITS.attachmentsPerMessage} attachments.`,
      );
    }
    const now = this.#now();
    const updated: MessageRecord = {
      ...record,
      message: input.message ?? record.message,
      reactions: addReactions(record.reactions, input.reactions ?? []),
      attachments: [
        ...record.attachments,
        ...attachments.map((a) => attachmentRecord(a, this.#newId('attachment'), id, now)),
      ],
      updated_at: now,
    };
    this.#charge(
      this.#messageBytes(updated) - this.#ownBytes(this.#messages, record, (m) => this.#messageBytes(m)),
    );
    this.#messages.set(id, updated);
    return this.#renderMessage(updated);
  }

  deleteMessage(id: string): boolean {
    const record = this.#messages.get(id);
    if (record === undefined) return false;
    this.#charge(
      this.#deletionCost(this.#messages, record, (m) => this.#messageBytes(m)) +
        this.#treeCost(this.#messageList) +
        this.#treeCost(this.#conversationLists.get(record.conversation_id)),
      true,
    );
    this.#messages.delete(id);
    this.#messageList.delete(record.key);
    this.#writableConversationList(record.conversation_id).delete(record.key);
    this.#rememberDeleted([id]);
    return true;
  }

  // ---- internals ----

  /** Notes deleted ids (`keepDeleted`), charged as what they hold; never refused, as a delete is not. */
  #rememberDeleted(ids: Iterable<string>): void {
    if (!this.#deleted) return;
    let added = 0;
    for (const id of ids) {
      this.#deleted.add(id);
      this.#deletedSince?.push(id);
      added++;
    }
    this.#charge(added * DELETED_ID_BYTES, true);
  }

  /**
   * Counts what a write adds (or, negative, gives back), and refuses it (before anything
   * changes) when the world would grow past its bound: a token writing at full speed must not
   * grow memory without end. A delete is never refused.
   */
  #charge(bytes: number, always = false): void {
    const pending = this.#pendingTrees.splice(0);
    if (!always && bytes > 0 && this.#written + bytes > this.#maxWritten)
      throw errors.worldFull(this.#maxWritten);
    this.#written = Math.max(0, this.#written + bytes);
    for (const [list, cost] of pending) this.#sharedTrees.set(list, this.#sharedTrees.get(list)! - cost);
  }

  /** A record's count when this world wrote it (a write that replaces it frees it), else 0. */
  #ownBytes<R extends { id: string }>(
    map: LayeredMap<string, R>,
    record: R,
    bytes: (r: R) => number,
  ): number {
    return map.owns(record.id) ? bytes(record) : 0;
  }

  /**
   * Deleting a record gives back its count when this world wrote it; one its base holds (shared,
   * or the fixture it was built from) stays held, and the deletion leaves a mark over it.
   */
  #deletionCost<R extends { id: string }>(
    map: LayeredMap<string, R>,
    record: R,
    bytes: (r: R) => number,
  ): number {
    return (map.owns(record.id) ? -bytes(record) : 0) + (map.inBase(record.id) ? DELETION_MARK : 0);
  }

  /** A message's count in this world: with its sender's JSON, which its cached text repeats. */
  #messageBytes(record: MessageRecord): number {
    const contactId = this.#conversations.get(record.conversation_id);
    const contact = contactId === undefined ? undefined : this.#contacts.get(contactId);
    return messageBytes(record, contact === undefined ? 0 : senderJsonLength(contact));
  }

  /** From now on, writes to `list` copy the nodes it shares, up to all of them: what that may hold. */
  #share(list: Order): number {
    // Nodes are at least half full: a node for every sixteen entries, and the inner ones.
    const bytes = (Math.ceil(list.size / 16) + list.height + 1) * TREE_NODE_BYTES;
    this.#sharedTrees.set(list, bytes);
    return bytes;
  }

  /**
   * What the next write to `list` may hold by copying shared nodes: a node a level, within what
   * is left of the tree's shared nodes. Taken from what is left when #charge accepts the write.
   */
  #treeCost(list: Order | undefined): number {
    if (list === undefined) return 0;
    let left = this.#sharedTrees.get(list);
    if (left === undefined) {
      // A copy shares its four lists of all records from the start: counted from their first write.
      const lists = this.#contactLists;
      const top =
        list === this.#messageList || list === lists.all || list === lists.active || list === lists.never;
      if (this.#builtFromData || !top) return 0;
      left = this.#share(list);
    }
    for (const [pendingList, pendingCost] of this.#pendingTrees)
      if (pendingList === list) left -= pendingCost;
    const cost = Math.min(left, (list.height + 1) * TREE_NODE_BYTES);
    if (cost > 0) this.#pendingTrees.push([list, cost]);
    return cost;
  }

  /** Tree costs asked for by the write being counted, taken when #charge accepts it. */
  readonly #pendingTrees: [Order, number][] = [];

  #activityList(record: ContactRecord): Order {
    return record.last_active_at === null ? this.#contactLists.never : this.#contactLists.active;
  }

  #insertContact(record: ContactRecord): void {
    this.#contacts.set(record.id, record);
    this.#conversations.set(record.conversation_id, record.id);
    this.#contactLists.all.set(record.key, record.id);
    this.#activityList(record).set(record.key, record.id);
  }

  #insertMessage(record: MessageRecord): void {
    this.#messages.set(record.id, record);
    this.#messageList.set(record.key, record.id);
    this.#writableConversationList(record.conversation_id).set(record.key, record.id);
  }

  /** The list of one conversation, copied first if it is still shared with the seeded world. */
  #writableConversationList(conversation: string): Order {
    let list = this.#conversationLists.get(conversation);
    if (list === undefined || !this.#ownLists.has(list)) {
      const shared = list;
      list = shared ? shared.clone() : new BTree<number, string>();
      if (shared) this.#share(list);
      this.#ownLists.add(list);
      this.#conversationLists.set(conversation, list);
    }
    return list;
  }

  /** The message as the API shows it: with its sender as the contact is now (C11). */
  #renderMessage(record: MessageRecord): Readonly<Message> {
    const contactId = this.#conversations.get(record.conversation_id);
    const contact = contactId === undefined ? undefined : this.#contacts.get(contactId);
    if (contact === undefined) throw new Error(`message ${record.id} has no contact`);
    return messageView(record, renderSender(contact));
  }

  /** Contact, conversation and message ids never collide (C6). */
  #newId(kind: IdKind): string {
    for (let attempt = 0; ; attempt++) {
      const id = this.#makeId?.(kind, this.#words, attempt) ?? idFrom(this.#words);
      if (
        !this.#contacts.has(id) &&
        !this.#conversations.has(id) &&
        !this.#messages.has(id) &&
        !this.#deleted?.has(id)
      )
        return id;
    }
  }
}
