import { describe, isPlainRecord } from '../input/params';
import { ATTACHMENT } from '../resources/attachment';
import { CONTACT } from '../resources/contact';
import { complete } from '../resources/field';
import { MESSAGE } from '../resources/message';
import type { WorldData } from '../store/world';
import type { Contact, StoredMessage } from '../types';
import { Clock } from './clock';
import { checkSender, contactDraft, messageDraft } from './drafts';
import { Ids } from './ids';
import type { RecordedAccount } from './recorder';
import { fail, place, Report, type Json, type Tally } from './report';
import { breather, memorySource, type RecordSource } from './spool';

/**
 * A recorded account (the server's own records) as a fixture of the mock: converted to the
 * mock's conventions where the server fills the document's gaps otherwise, each kind of
 * conversion counted for the summary. What cannot be converted is a FixtureError naming the
 * record and the field.
 *
 * A recording may be larger than memory holds as objects. The conversion reads its source in
 * passes and keeps, per message, a few numbers in typed arrays (its time, its place in the lists,
 * its contact) and its id in the id map; a record is read again, and converted again, when the
 * fixture is written. Conversions are pure but for the counts of the summary, which only the
 * first conversion of a record makes.
 */
export interface Converted {
  data: WorldData;
  /** One line for each kind of conversion, with how many values it changed. */
  conversions: Tally[];
  /** What looks wrong on the server's side; the fixture holds what the recorder could make of it. */
  warnings: Tally[];
  /** What the reader should know about the fixture, not a change of any value. */
  notes: string[];
}

/** A converted recording: what it says about itself, and its records on demand. */
export interface Conversion extends Omit<Converted, 'data'> {
  /** How many contacts and messages the fixture holds. */
  contacts: number;
  messages: number;
  /**
   * Every record of the fixture, read and converted again: every contact, then every message. In
   * the fixture's order (oldest first), or, for a pass that does not care, in the order walked,
   * which reads the recording from start to end.
   */
  records(visit: RecordVisitor, order?: 'fixture' | 'walked'): Promise<void>;
}

interface RecordVisitor {
  contact(contact: Contact): void;
  message(message: StoredMessage): void;
}

/** A whole recorded account in memory, converted: the fixture as data. */
export async function toFixture(account: RecordedAccount, seed: number): Promise<Converted> {
  const conversion = await convertRecording(memorySource(account), seed);
  const data: WorldData = { contacts: [], messages: [] };
  await conversion.records({
    contact: (contact) => data.contacts.push(contact),
    message: (message) => data.messages.push(message),
  });
  const { conversions, warnings, notes } = conversion;
  return { data, conversions, warnings, notes };
}

// ---- the recording, read in passes ----

/** Where each listed message was listed: its conversation and its index there, from its place in the recording. */
class Listing {
  readonly #starts: Float64Array;

  constructor(private readonly conversations: RecordSource['conversations']) {
    this.#starts = new Float64Array(conversations.length + 1);
    conversations.forEach((c, i) => (this.#starts[i + 1] = this.#starts[i]! + c.messages));
  }

  at(listed: number): { conversation: string; index: number; where: (id: unknown) => string } {
    // The last conversation that starts at or before it (an empty one starts where the next does).
    let low = 0;
    let high = this.conversations.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.#starts[middle]! <= listed) low = middle;
      else high = middle - 1;
    }
    const conversation = this.conversations[low]!.id;
    const index = listed - this.#starts[low]!;
    return {
      conversation,
      index,
      where: (id) => `conversation ${conversation} ${place('messages', index, id)}`,
    };
  }
}

/** What the conversion keeps of the contacts: a few values each. */
interface ContactKeys {
  count: number;
  created: Float64Array;
  /** Their ids and conversation_ids as the server gave them, and as text. */
  rawId: unknown[];
  rawConversation: unknown[];
  id: string[];
  conversation: string[];
  byConversation: Map<string, number>;
  /** Their indexes in creation order, and each one's place in it. */
  order: number[];
  rank: Int32Array;
}

/**
 * What the conversion keeps of the messages it keeps (a message listed twice is kept once) once
 * they are in creation order: a few numbers each, in columns, and the server's id. What only the
 * order needed (times, ranks, the map of ids) is let go before the fixture is written.
 */
interface MessageKeys {
  count: number;
  /** The index of its contact. */
  owner: Int32Array;
  /** Its place among the listed messages of the recording. */
  listed: Int32Array;
  /** 0: the id is text, 1: a number, 2: something else (an error when ids are given). */
  idKind: Uint8Array;
  /** The number of its attachments; once ids are given, the occurrence of its first attachment. */
  attachments: Uint32Array;
  /** Its server id as text. */
  id: string[];
  /** Their indexes in creation order. */
  order: Uint32Array;
}

/** Converts a recording, reading it in passes; its records are converted again when asked for. */
export async function convertRecording(source: RecordSource, seed: number): Promise<Conversion> {
  const report = new Report();
  const clock = new Clock();
  const origin = source.baseUrl;
  const listing = new Listing(source.conversations);

  // Every timestamp is seen before any is read: a field's unit is told from its largest value.
  await source.scan('contacts', (raw, i) => {
    if (!isPlainRecord(raw)) fail(`contacts[${i}]`, `must be a contact object, got ${describe(raw)}.`);
    clock.see('contact.created_at', raw.created_at);
    clock.see('contact.last_active_at', raw.last_active_at);
  });
  await source.scan('messages', (raw, listed) => {
    if (!isPlainRecord(raw)) {
      const { conversation, index } = listing.at(listed);
      fail(
        `conversation ${conversation} messages[${index}]`,
        `must be a message object, got ${describe(raw)}.`,
      );
    }
    clock.see('message.created_at', raw.created_at);
    clock.see('message.read_at', raw.read_at);
    clock.see('message.updated_at', raw.updated_at);
    if (Array.isArray(raw.attachments))
      for (const a of raw.attachments) if (isPlainRecord(a)) clock.see('attachment.created_at', a.created_at);
  });

  const contacts = await readContacts(source, clock, report);
  const messages = await readMessages(source, listing, clock, report, contacts);
  const ids = await giveIds(source, listing, seed, report, contacts, messages);
  const scratch = new Report();

  const contactOf = (raw: unknown, c: number): Contact => {
    const { contact } = contactDraft(raw as Json, c, clock, origin, scratch);
    return complete(CONTACT, {
      ...contact,
      id: ids.id('contact', c, contacts.id[c]!),
      conversation_id: ids.id('conversation', c, contacts.conversation[c]!),
    });
  };
  const messageOf = (raw: unknown, m: number): StoredMessage => {
    const owner = messages.owner[m]!;
    const where = listing.at(messages.listed[m]!).where((raw as Json).id);
    const draft = messageDraft(raw as Json, where, messages.id[m]!, clock, origin, scratch);
    const id = ids.id('message', m, messages.id[m]!);
    let occurrence = messages.attachments[m]!;
    return complete(MESSAGE, {
      ...draft.message,
      id,
      conversation_id: ids.id('conversation', owner, contacts.conversation[owner]!),
      attachments: draft.attachments.map(({ raw: a, attachment }) =>
        complete(ATTACHMENT, {
          ...attachment,
          id: ids.id('attachment', occurrence++, a.id === undefined || a.id === null ? '' : String(a.id)),
          message_id: id,
        }),
      ),
    });
  };

  return {
    conversions: report.conversions,
    warnings: report.warnings,
    notes: report.notes,
    contacts: contacts.count,
    messages: messages.count,
    records: async (visit, order = 'fixture') => {
      const pause = breather();
      if (order === 'walked') {
        await source.scan('contacts', (raw, c) => visit.contact(contactOf(raw, c)));
        // Kept messages are numbered in the order they were listed.
        let next = 0;
        await source.scan('messages', (raw, listed) => {
          if (next < messages.count && messages.listed[next] === listed)
            visit.message(messageOf(raw, next++));
        });
        return;
      }
      for (const c of contacts.order) {
        visit.contact(contactOf(source.read('contacts', c), c));
        await pause();
      }
      for (const m of messages.order) {
        visit.message(messageOf(source.read('messages', messages.listed[m]!), m));
        await pause();
      }
    },
  };
}

async function readContacts(source: RecordSource, clock: Clock, report: Report): Promise<ContactKeys> {
  const count = source.contacts;
  const keys: ContactKeys = {
    count,
    created: new Float64Array(count),
    rawId: [],
    rawConversation: [],
    id: [],
    conversation: [],
    byConversation: new Map(),
    order: [],
    rank: new Int32Array(count),
  };
  await source.scan('contacts', (value, i) => {
    const raw = value as Json;
    const draft = contactDraft(raw, i, clock, source.baseUrl, report);
    const earlier = keys.byConversation.get(draft.conversation);
    if (earlier !== undefined)
      fail(
        `${draft.where}.conversation_id`,
        `'${draft.conversation}' is also the conversation of ${place('contacts', earlier, keys.rawId[earlier])}; each contact has its own.`,
      );
    keys.byConversation.set(draft.conversation, i);
    keys.created[i] = draft.created;
    keys.rawId.push(raw.id);
    keys.rawConversation.push(raw.conversation_id);
    keys.id.push(draft.id);
    keys.conversation.push(draft.conversation);
  });
  keys.order = inCreationOrder(keys.created, 'contacts', report);
  keys.order.forEach((c, i) => (keys.rank[c] = i));
  return keys;
}

/** Growing columns would copy themselves as they grow: the listed count bounds the kept one. */
async function readMessages(
  source: RecordSource,
  listing: Listing,
  clock: Clock,
  report: Report,
  contacts: ContactKeys,
): Promise<MessageKeys> {
  const listedCount = source.messages;
  const keys: MessageKeys = {
    count: 0,
    owner: new Int32Array(listedCount),
    listed: new Int32Array(listedCount),
    idKind: new Uint8Array(listedCount),
    attachments: new Uint32Array(listedCount),
    id: [],
    order: new Uint32Array(0),
  };
  // For the order only. Precise seconds; ties: the position in the list of every message, the
  // contact's place in creation order, then the position in the conversation's list.
  const created = new Float64Array(listedCount);
  const rank = new Float64Array(listedCount).fill(Infinity);
  const position = new Int32Array(listedCount);
  // The slot of each server id met (a message listed twice has one), the message kept for a slot
  // (-1: none), and the time of the slot's last listed message (NaN: none).
  const slots = new Map<string, number>();
  const slotMessage = new Int32Array(listedCount).fill(-1);
  const slotTime = new Float64Array(listedCount).fill(NaN);
  const scratch = new Report();
  // Each conversation's list, as steps in time from one kept message to the next (by its contact).
  const last = new Float64Array(contacts.count);
  const down = new Int32Array(contacts.count);
  const up = new Int32Array(contacts.count);
  const kept = new Int32Array(contacts.count);

  await source.scan('messages', (value, listed) => {
    const raw = value as Json;
    const { conversation: listedUnder, index, where: whereOf } = listing.at(listed);
    const where = whereOf(raw.id);
    if (raw.id === undefined || raw.id === null) fail(`${where}.id`, 'is missing.');
    const id = String(raw.id);
    let slot = slots.get(id);
    if (slot === undefined) slots.set(id, (slot = slots.size));
    // For the order of the list of every message: the time of the last message listed with this id.
    slotTime[slot] = orderTime(raw.created_at, id, clock, scratch);

    const own = raw.conversation_id;
    let conversation = listedUnder;
    if (own === undefined || own === null)
      report.convert('a message without conversation_id → the conversation it was listed in');
    else if (String(own) !== listedUnder) {
      report.warn('a message listed under another conversation than its own (kept in its own)', where);
      conversation = String(own);
    }
    const earlier = slotMessage[slot]!;
    if (earlier >= 0) {
      if (contacts.conversation[keys.owner[earlier]!] !== conversation)
        report.warn('a message listed in two conversations (kept once)', where);
      return;
    }
    const owner = contacts.byConversation.get(conversation);
    if (owner === undefined) {
      report.warn('a message of a conversation that no listed contact holds (left out)', where);
      return;
    }
    checkSender(raw.contact, contacts.id[owner]!, where, report);
    const draft = messageDraft(raw, where, id, clock, source.baseUrl, report);
    const m = keys.count++;
    slotMessage[slot] = m;
    created[m] = draft.created;
    keys.owner[m] = owner;
    position[m] = index;
    keys.listed[m] = listed;
    keys.idKind[m] = typeof raw.id === 'string' ? 0 : typeof raw.id === 'number' ? 1 : 2;
    keys.attachments[m] = draft.attachments.length;
    keys.id.push(id);
    if (kept[owner]! > 0) {
      if (draft.created < last[owner]!) down[owner]! += 1;
      else if (draft.created > last[owner]!) up[owner]! += 1;
    }
    last[owner] = draft.created;
    kept[owner]! += 1;
  });

  // Ties of one second follow the list of every message, read the way it runs (its ids that have a time).
  let unlisted = 0;
  if (source.ordered !== undefined) {
    const steps = { down: 0, up: 0 };
    let previous = NaN;
    await source.scan('order', (id) => {
      const slot = slots.get(id as string);
      const time = slot === undefined ? NaN : slotTime[slot]!;
      if (Number.isNaN(time)) return;
      if (time < previous) steps.down += 1;
      else if (time > previous) steps.up += 1;
      previous = time;
    });
    const newestFirst = steps.down >= steps.up;
    await source.scan('order', (id, i) => {
      const slot = slots.get(id as string);
      const m = slot === undefined ? -1 : slotMessage[slot]!;
      if (m >= 0) rank[m] = newestFirst ? -i : i;
      else unlisted += 1;
    });
  }
  if (unlisted > 0)
    report.notes.push(
      `${unlisted} message(s) of the list of every message are in no listed contact's conversation: left out`,
    );

  // Else the conversations in their contacts' order, each conversation's own list read the way it runs.
  let lists = 0;
  let timeOrdered = true;
  let newestFirstLists = 0;
  for (let c = 0; c < contacts.count; c++) {
    if (kept[c] === 0) continue;
    lists += 1;
    if (down[c] !== 0 && up[c] !== 0) timeOrdered = false;
    if (down[c]! >= up[c]!) newestFirstLists += 1;
  }
  if (!timeOrdered)
    report.notes.push('the server does not list messages by time; the fixture holds them by created_at');
  const sign = newestFirstLists * 2 > lists ? -1 : 1;
  const order = new Uint32Array(keys.count);
  for (let m = 0; m < keys.count; m++) order[m] = m;
  const { owner } = keys;
  const contactRank = contacts.rank;
  order.sort(
    (a, b) =>
      created[a]! - created[b]! ||
      rank[a]! - rank[b]! ||
      contactRank[owner[a]!]! - contactRank[owner[b]!]! ||
      sign * (position[a]! - position[b]!) ||
      a - b,
  );
  keys.order = order;
  return keys;
}

/** A message's time for the order of the list of every message; NaN when it has none that reads. */
function orderTime(value: unknown, id: string, clock: Clock, scratch: Report): number {
  if (value === undefined || value === null) return NaN;
  try {
    return clock.read(value, 'message.created_at', id, scratch)!;
  } catch {
    return NaN;
  }
}

/** Ids in creation order: contacts and their conversations, messages, then every attachment. */
async function giveIds(
  source: RecordSource,
  listing: Listing,
  seed: number,
  report: Report,
  contacts: ContactKeys,
  messages: MessageKeys,
): Promise<Ids> {
  const ids = new Ids(seed, report);
  for (const c of contacts.order) {
    const where = place('contacts', c, contacts.rawId[c]);
    ids.define('contact', c, contacts.rawId[c], `${where}.id`);
    ids.define('conversation', c, contacts.rawConversation[c], `${where}.conversation_id`);
  }
  const pause = breather();
  for (const m of messages.order) {
    const kind = messages.idKind[m];
    // Only an id that is neither text nor a number needs its record again (to say what it is).
    const raw = kind === 2 ? (source.read('messages', messages.listed[m]!) as Json).id : messages.id[m];
    const where = listing.at(messages.listed[m]!).where(raw);
    ids.define('message', m, kind === 1 ? Number(raw) : raw, `${where}.id`);
    await pause();
  }
  let occurrence = 0;
  for (const m of messages.order) {
    const count = messages.attachments[m]!;
    messages.attachments[m] = occurrence;
    if (count === 0) continue;
    const raw = source.read('messages', messages.listed[m]!) as Json;
    const where = listing.at(messages.listed[m]!).where(raw.id);
    (raw.attachments as Json[]).forEach((a, i) =>
      ids.define('attachment', occurrence++, a.id, `${where}.attachments[${i}].id`),
    );
    await pause();
  }
  return ids;
}

// ---- order ----

/** How often a list of times steps down, and up, from one item to the next. */
function steps(times: ArrayLike<number>): { down: number; up: number } {
  let down = 0;
  let up = 0;
  for (let i = 1; i < times.length; i++) {
    if (times[i]! < times[i - 1]!) down += 1;
    else if (times[i]! > times[i - 1]!) up += 1;
  }
  return { down, up };
}

/**
 * Records as a fixture lists them: oldest first, which is the mock's creation order (C7), ties in
 * the order the server made them. A list that runs newest first (the mock's, Stripe's) shows
 * the later of two records of one second first; a list that cannot tell (one second only) is
 * taken to run as the mock's and the API's lineage's do.
 */
function inCreationOrder(times: Float64Array, what: string, report: Report): number[] {
  const { down, up } = steps(times);
  if (down !== 0 && up !== 0)
    report.notes.push(`the server does not list ${what} by time; the fixture holds them by created_at`);
  const sign = down >= up ? -1 : 1;
  return Array.from(times.keys()).sort((a, b) => times[a]! - times[b]! || sign * (a - b));
}
