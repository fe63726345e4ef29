import { Faker, base, en } from '@faker-js/faker';
import { describe, isPlainRecord } from '../store/params';
import { MESSAGE_TEXT, RECORD_ID, USERNAME } from '../store/rules';
import type { StoredMessage, WorldData } from '../store/world';
import { CONTACT_FIELDS, MESSAGE_FIELDS, type Attachment, type Contact } from '../types';
import { Clock, timeOf, whole } from './clock';
import { attachment, avatarUrl, displayName, dropExtra, phoneNumber, reactions } from './fields';
import type { RecordedAccount } from './recorder';
import { fail, fitsRule, place, Report, type Json, type Tally } from './report';

/**
 * A recorded account (the server's own records) as a fixture of the mock: converted to the
 * mock's conventions where the server fills the document's gaps differently, each kind of
 * conversion counted for the summary. What cannot be converted is a FixtureError naming the
 * record and the field.
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

// ---- ids ----

/**
 * The fixture's ids: a server's id is kept when the mock can take it (RECORD_ID) and no record
 * of another kind holds it already (C6: ids never collide, across kinds too); otherwise it gets a
 * new one, the same wherever the old one is named. New ids are drawn from the seed.
 */
class Ids {
  readonly #taken = new Set<string>();
  readonly #map = new Map<string, string>();
  readonly #pending: string[] = [];
  #drawn = false;
  readonly #faker: Faker;

  constructor(
    seed: number,
    private readonly report: Report,
  ) {
    this.#faker = new Faker({ locale: [en, base], seed });
  }

  /** How a record of one kind is named: by its server id, or, for an attachment, by its place. */
  static key(kind: 'contact' | 'conversation' | 'message', raw: unknown): string {
    return `${kind} ${String(raw)}`;
  }

  /** Registers a record's own id (in creation order); returns its key for `id`. */
  define(
    kind: 'contact' | 'conversation' | 'message' | 'attachment',
    raw: unknown,
    path: string,
    occurrence = 0,
  ): string {
    if (raw === undefined || raw === null || raw === '') {
      if (kind !== 'attachment') fail(path, 'is missing.');
      this.report.convert('an attachment without an id → a new id');
    } else if (typeof raw !== 'string' && typeof raw !== 'number') {
      fail(path, `must be an id (text or a number), got ${describe(raw)}.`);
    }
    // An attachment is never named elsewhere: each one is its own key.
    const key = kind === 'attachment' ? `attachment #${occurrence}` : Ids.key(kind, raw);
    if (this.#map.has(key)) fail(path, `'${String(raw)}' is the id of two ${kind}s.`);
    const text = raw === undefined || raw === null ? '' : String(raw);
    if (typeof raw === 'number') this.report.convert('numeric ids → the same digits as text');
    const takeable = text !== '' && fitsRule(text, RECORD_ID);
    if (takeable && !this.#taken.has(text)) {
      this.#taken.add(text);
      this.#map.set(key, text);
    } else {
      if (text !== '')
        this.report.convert(
          takeable
            ? 'ids that another record has already → new ids, consistently'
            : 'ids that the mock cannot take → new ids, consistently',
        );
      this.#map.set(key, '');
      this.#pending.push(key);
    }
    return key;
  }

  /** The fixture id of a defined record; new ids are drawn on the first call, after every define. */
  id(key: string): string {
    if (!this.#drawn) {
      this.#drawn = true;
      for (const key of this.#pending) {
        let id: string;
        do id = this.#faker.string.alphanumeric({ length: 16, casing: 'mixed' });
        while (this.#taken.has(id));
        this.#taken.add(id);
        this.#map.set(key, id);
      }
    }
    const id = this.#map.get(key);
    if (id === undefined) throw new Error(`no id was defined for ${key}`);
    return id;
  }
}

// ---- records ----

interface ContactDraft {
  raw: Json;
  where: string;
  /** The server's ids, as text. */
  id: string;
  conversation: string;
  created: number;
  contact: Omit<Contact, 'id' | 'conversation_id'>;
}

interface MessageDraft {
  raw: Json;
  where: string;
  id: string;
  conversation: string;
  created: number;
  /** Ties: the position in the list of every message, the contact's, then in the conversation's list. */
  rank: number;
  owner: number;
  position: number;
  message: Omit<StoredMessage, 'id' | 'conversation_id' | 'attachments'>;
  attachments: {
    raw: Json;
    where: string;
    key?: string;
    attachment: Omit<Attachment, 'id' | 'message_id'>;
  }[];
}

const CONTACT_KEYS = new Set<string>(CONTACT_FIELDS);
const MESSAGE_KEYS = new Set<string>(MESSAGE_FIELDS);

/** Fields a message's text may come under on servers that name it otherwise. */
const TEXT_ALIASES = ['text', 'body', 'content'];

export function toFixture(account: RecordedAccount, seed: number): Converted {
  const report = new Report();
  const clock = new Clock();

  const contactRecords = account.contacts.map((raw, i) => {
    if (!isPlainRecord(raw)) fail(`contacts[${i}]`, `must be a contact object, got ${describe(raw)}.`);
    clock.see('contact.created_at', raw.created_at);
    clock.see('contact.last_active_at', raw.last_active_at);
    return raw;
  });
  const listed: { raw: Json; conversation: string; index: number }[] = [];
  account.conversations.forEach(({ conversation_id, messages }) => {
    messages.forEach((raw, index) => {
      if (!isPlainRecord(raw))
        fail(
          `conversation ${conversation_id} messages[${index}]`,
          `must be a message object, got ${describe(raw)}.`,
        );
      clock.see('message.created_at', raw.created_at);
      clock.see('message.read_at', raw.read_at);
      clock.see('message.updated_at', raw.updated_at);
      if (Array.isArray(raw.attachments))
        for (const a of raw.attachments)
          if (isPlainRecord(a)) clock.see('attachment.created_at', a.created_at);
      listed.push({ raw, conversation: conversation_id, index });
    });
  });

  // ---- contacts ----
  const byConversation = new Map<string, ContactDraft>();
  const contactDrafts = contactRecords.map((raw, i): ContactDraft => {
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
      fail(
        `${where}.username`,
        `must be text of 1 to ${USERNAME.max} characters, got ${describe(username)}.`,
      );
    const draft: ContactDraft = {
      raw,
      where,
      id: String(raw.id),
      conversation: String(raw.conversation_id),
      created: timeOf(clock, raw, 'created_at', 'contact.created_at', where, report)!,
      contact: {
        username: username as string,
        phone_number: phoneNumber(raw.phone_number, `${where}.phone_number`, report),
        avatar_url: avatarUrl(raw.avatar_url, username as string, account.baseUrl, report),
        display_name: displayName(raw, username as string, `${where}.display_name`, report),
        last_active_at: whole(
          timeOf(clock, raw, 'last_active_at', 'contact.last_active_at', where, report, 'a contact'),
        ),
        created_at: 0,
      },
    };
    draft.contact.created_at = Math.floor(draft.created);
    if (byConversation.has(draft.conversation))
      fail(
        `${where}.conversation_id`,
        `'${draft.conversation}' is also the conversation of ${byConversation.get(draft.conversation)!.where}; each contact has its own.`,
      );
    byConversation.set(draft.conversation, draft);
    return draft;
  });
  const contacts = inCreationOrder(contactDrafts, 'contacts', report);

  // ---- messages ----
  const rank = new Map<string, number>();
  if (account.order) {
    const newestFirst = isNewestFirst(orderedTimes(account.order, listed, clock));
    account.order.forEach((id, i) => rank.set(id, newestFirst ? -i : i));
  }
  const owners = new Map(contacts.map((c, i) => [c, i]));
  const seen = new Map<string, MessageDraft>();
  const drafts: MessageDraft[] = [];
  for (const { raw, conversation: listedUnder, index } of listed) {
    const where = `conversation ${listedUnder} ${place('messages', index, raw.id)}`;
    if (raw.id === undefined || raw.id === null) fail(`${where}.id`, 'is missing.');
    const id = String(raw.id);
    const own = raw.conversation_id;
    let conversation = listedUnder;
    if (own === undefined || own === null)
      report.convert('a message without conversation_id → the conversation it was listed in');
    else if (String(own) !== listedUnder) {
      report.warn('a message listed under another conversation than its own (kept in its own)', where);
      conversation = String(own);
    }
    const earlier = seen.get(id);
    if (earlier) {
      if (earlier.conversation !== conversation)
        report.warn('a message listed in two conversations (kept once)', where);
      continue;
    }
    const owner = byConversation.get(conversation);
    if (!owner) {
      report.warn('a message of a conversation that no listed contact holds (left out)', where);
      continue;
    }
    checkSender(raw.contact, owner, where, report);
    const draft = messageDraft(raw, where, id, conversation, clock, account.baseUrl, report);
    draft.rank = rank.get(id) ?? Infinity;
    draft.owner = owners.get(owner)!;
    draft.position = index;
    seen.set(id, draft);
    drafts.push(draft);
  }
  const unlisted = account.order?.filter((id) => !seen.has(id)).length ?? 0;
  if (unlisted > 0)
    report.notes.push(
      `${unlisted} message(s) of the list of every message are in no listed contact's conversation: left out`,
    );
  const messages = messagesInCreationOrder(drafts, report);

  // ---- ids, in creation order ----
  const ids = new Ids(seed, report);
  for (const c of contacts) {
    ids.define('contact', c.raw.id, `${c.where}.id`);
    ids.define('conversation', c.raw.conversation_id, `${c.where}.conversation_id`);
  }
  for (const m of messages) ids.define('message', m.raw.id, `${m.where}.id`);
  let occurrence = 0;
  for (const m of messages)
    for (const a of m.attachments) a.key = ids.define('attachment', a.raw.id, `${a.where}.id`, occurrence++);

  const data: WorldData = {
    contacts: contacts.map((c) => {
      const { contact } = c;
      return {
        id: ids.id(Ids.key('contact', c.id)),
        username: contact.username,
        phone_number: contact.phone_number,
        avatar_url: contact.avatar_url,
        display_name: contact.display_name,
        conversation_id: ids.id(Ids.key('conversation', c.conversation)),
        last_active_at: contact.last_active_at,
        created_at: contact.created_at,
      };
    }),
    messages: messages.map((m) => {
      const id = ids.id(Ids.key('message', m.id));
      return {
        id,
        conversation_id: ids.id(Ids.key('conversation', m.conversation)),
        message: m.message.message,
        reactions: m.message.reactions,
        attachments: m.attachments.map(({ key, attachment }) => ({
          id: ids.id(key!),
          message_id: id,
          filename: attachment.filename,
          file_url: attachment.file_url,
          file_type: attachment.file_type,
          file_size: attachment.file_size,
          created_at: attachment.created_at,
        })),
        read_at: m.message.read_at,
        created_at: m.message.created_at,
        updated_at: m.message.updated_at,
      };
    }),
  };
  return { data, conversions: report.conversions, warnings: report.warnings, notes: report.notes };
}

/** The sender a message shows must be its conversation's contact (C11); the fixture drops it. */
function checkSender(sender: unknown, owner: ContactDraft, where: string, report: Report): void {
  const id = isPlainRecord(sender) ? sender.id : sender;
  if ((typeof id === 'string' || typeof id === 'number') && String(id) !== owner.id)
    report.warn(
      "a message whose contact is not its conversation's contact (the mock shows the conversation's)",
      where,
    );
}

function messageDraft(
  raw: Json,
  where: string,
  id: string,
  conversation: string,
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
    raw,
    where,
    id,
    conversation,
    created,
    rank: Infinity,
    owner: 0,
    position: 0,
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
      return { raw: a, where: at, attachment: attachment(a, at, id, created, clock, origin, report) };
    }),
  };
}

// ---- order ----

/** How often a list of times steps down, and up, from one item to the next. */
function steps(times: number[]): { down: number; up: number } {
  let down = 0;
  let up = 0;
  for (let i = 1; i < times.length; i++) {
    if (times[i]! < times[i - 1]!) down += 1;
    else if (times[i]! > times[i - 1]!) up += 1;
  }
  return { down, up };
}

/**
 * Whether a list runs from the newest to the oldest: no more steps up in time than down. A list
 * that cannot tell (one second only) is taken to run as the mock's and the API's lineage's do.
 */
function isNewestFirst(times: number[]): boolean {
  const { down, up } = steps(times);
  return down >= up;
}

function inTimeOrder(times: number[]): boolean {
  const { down, up } = steps(times);
  return down === 0 || up === 0;
}

function orderedTimes(order: string[], listed: { raw: Json }[], clock: Clock): number[] {
  const created = new Map<string, unknown>(listed.map(({ raw }) => [String(raw.id), raw.created_at]));
  const scratch = new Report();
  return order.flatMap((id) => {
    const value = created.get(id);
    if (value === undefined || value === null) return [];
    try {
      return [clock.read(value, 'message.created_at', id, scratch)!];
    } catch {
      return [];
    }
  });
}

/**
 * Records as a fixture lists them: oldest first, which is the mock's creation order (C7), ties in
 * the order the server made them. A list that runs newest first (the mock's, Stripe's) shows
 * the later of two records of one second first.
 */
function inCreationOrder<T extends { created: number }>(items: T[], what: string, report: Report): T[] {
  const times = items.map((item) => item.created);
  if (!inTimeOrder(times))
    report.notes.push(`the server does not list ${what} by time; the fixture holds them by created_at`);
  const newestFirst = isNewestFirst(times);
  const indexed = items.map((item, i) => ({ item, tie: newestFirst ? -i : i }));
  indexed.sort((a, b) => a.item.created - b.item.created || a.tie - b.tie);
  return indexed.map(({ item }) => item);
}

/**
 * Messages in creation order. Ties of one second follow the list of every message when the
 * server gave it (the only place that orders messages of different conversations), else the
 * conversations in their contacts' order and each conversation's own list, read the way it runs.
 */
function messagesInCreationOrder(drafts: MessageDraft[], report: Report): MessageDraft[] {
  const conversations = new Map<string, MessageDraft[]>();
  for (const d of drafts) {
    const list = conversations.get(d.conversation);
    if (list) list.push(d);
    else conversations.set(d.conversation, [d]);
  }
  const lists = [...conversations.values()].map((list) => list.map((d) => d.created));
  if (!lists.every(inTimeOrder))
    report.notes.push('the server does not list messages by time; the fixture holds them by created_at');
  if (lists.filter(isNewestFirst).length * 2 > lists.length) for (const d of drafts) d.position = -d.position;
  return [...drafts].sort(
    (a, b) => a.created - b.created || a.rank - b.rank || a.owner - b.owner || a.position - b.position,
  );
}
