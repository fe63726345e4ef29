import { CONTACT_FIELDS, senderStableOf, stableOf, updatedWith } from '../rules/resources';

/**
 * What the proxy holds of each token's world (./session.ts learns it, ./memory.ts bounds it, the
 * judge reads it): types only, and the fields of a contact no update changes.
 */
export interface Limits {
  maxTokens: number;
  /** Contacts and messages per token. */
  maxRecords: number;
  maxBytes: number;
}

export type Kind = 'contact' | 'conversation' | 'message';

/** A world's bookkeeping: what it keeps, in the order it is forgotten, and what it counts. */
export interface Ledger {
  /** `c` or `m` and the id of each contact and message kept, least recently seen first → its bytes. */
  records: Map<string, number>;
  /** The ids its answers showed, least recently seen first (the index of all tokens is `kinds`). */
  kinds: Map<string, Kind>;
  /** The ids created with this token, oldest first (the index of all tokens is `creators`). */
  created: Set<string>;
  bytes: number;
  /** The end of the latest delete it saw, and of the latest deletion it forgot (see above). */
  lastDeleteAt: number;
  forgotAt: number;
}

export interface Memory {
  limits: Limits;
  /** What all the worlds count together, and the most they counted. */
  bytes: number;
  peakBytes: number;
  /** How many worlds hold each id of the index `kinds`. */
  kindHolders: Map<string, number>;
  /** The latest deletion of a world forgotten whole: a world made afterwards starts from it. */
  forgotAt: number;
  /** Tokens forgotten whole, and records forgotten from tokens kept. */
  forgotten: { tokens: number; records: number };
}

export interface ContactFacts {
  /** When the proxy first saw it (the end of that exchange), and last. */
  seenAt: number;
  learntAt: number;
  /** What showed it last, at `learntAt`: a list, a retrieve, or the answer to a write. */
  shownBy?: 'list' | 'retrieve' | 'write';
  conversationId?: string;
  /** The fields no operation may change: the last values seen. */
  stable: Partial<Record<string, unknown>>;
  /**
   * Some answer showed one of them other than an answer before it (a fault of a view or of an
   * update, judged there): what the contact's fields are is then not certain enough to judge a
   * message's contact by them.
   */
  stableMoved?: true;
  /** The fields an update may change (CONTACT_UPDATES): the last values seen. */
  updatable: Partial<Record<string, unknown>>;
  /**
   * Their values before each update the proxy saw change them, each as a short key (`formerKey`
   * in session.ts: every one kept, in a few dozen bytes), and when it ended, by field.
   */
  former: Partial<Record<string, Set<string>>>;
  changedAt: Partial<Record<string, number>>;
  /** When the last update of it that the proxy saw ended. */
  updatedAt?: number;
  /**
   * When a write's answer last showed it: what the server holds from then on. After it, a view that
   * moves a field that never changes is that view's fault, unless the answer was an update's and a
   * view of the same kind showed the field well before (`viewedWell`): then the update's.
   */
  heldSince?: number;
  /**
   * The views (`viewBit`) that showed its fields that never change as known. A view of a kind that
   * did, showing one moved first thing after an update's answer, shows the update's fault (its
   * answer kept what it changed); a kind of view that never showed them well is judged on its own.
   */
  viewedWell?: number;
  /**
   * The values that updates on their way at once answered, by field (keys as `former`'s), until an
   * update on its own: the server may have applied any of them last, so none is a former value yet.
   */
  unsettled?: Partial<Record<string, Set<string>>>;
  /**
   * The latest `last_active_at` a read showed that was a time, when that read was answered, and
   * whether it was a list: a time the contact was active has happened, so no later read shows
   * null or an earlier time.
   */
  active?: { value: unknown; at: number; listed: boolean };
}

export interface MessageFacts {
  seenAt: number;
  /** Learnt first from the answer to its send. */
  sent?: boolean;
  /** When an exchange last showed it: a view that started earlier may show it older. */
  learntAt: number;
  conversationId: unknown;
  createdAt: unknown;
  senderId: unknown;
  text: unknown;
  formerTexts: unknown[];
  /** The texts that edits on their way at once answered, until an update on its own (see ContactFacts). */
  unsettledTexts?: unknown[];
  editedAt?: number;
  reactions: Map<string, Set<string>>;
  attachments: number;
  /** When the last update of it that the proxy saw ended, and what that update added. */
  updatedAt?: number;
  lastUpdate?: { reaction: boolean; attachment: boolean };
  /** When a write's answer last showed it (see ContactFacts). */
  heldSince?: number;
  /** The views that showed what never changes of it as known (see ContactFacts). */
  viewedWell?: number;
  /**
   * `updated_at` as an answer showed it after the last update (that update's own, or a retrieve's
   * sent after it): from when it held, and when it was answered. Only an update moves it, so a later
   * read shows the same value until the next one.
   */
  stamp?: { value: unknown; from: number; at: number };
}

export interface World {
  contacts: Map<string, ContactFacts>;
  messages: Map<string, MessageFacts>;
  /** Deleted by a DELETE the proxy saw: id → when the answer ended. */
  goneContacts: Map<string, number>;
  goneMessages: Map<string, number>;
  goneConversations: Map<string, number>;
  /** Conversation id → its contact's id. */
  owners: Map<string, string>;
  /**
   * Pages that said has_more=true, by `<list>|<last id>`: when the request arrived (a delete that
   * ended after it may have changed the list), and its items.
   */
  openPages: Map<string, { at: number; ids: string[] }>;
  /** The walks of lists under way (judge/walks.ts), the oldest first. */
  walks: OpenWalk[];
  /**
   * The last time each list was shown whole, by `listKey`: a first page with has_more=false, or a
   * walk to its end that held still. Its ids in the list's order, the world's writes then, and when
   * its last page was answered.
   */
  wholeLists: Map<
    string,
    {
      writes: number;
      quiet: number;
      at: number;
      ids: Set<string>;
      /** Whether its last page was as full as a page gets: its has_more=false may be wrong. */
      full: boolean;
      bytes: number;
    }
  >;
  /**
   * The most records one page of each list held, by `listKey`, whatever its limit (judge/walks.ts):
   * the server gives at least that many on a page of that list.
   */
  mostOnAPage: Map<string, number>;
  /**
   * How many records a first page holds when it is not the whole list, by its limit ('' for none):
   * the page size the server gives, which may be less than a limit asked (its maximum is not shown).
   * The latest PAGE_SIZES limits are kept.
   */
  pageSizes: Map<string, number>;
  /** The writes of this token seen so far, answered or refused: what may have moved its lists. */
  writes: number;
  /** When the latest of them ended: a list may show it late, up to --settle-ms after. */
  lastWriteAt: number;
  /**
   * The last deletes the token made, the oldest first (judge/traces.ts): what each named, when its
   * answer ended, and the conversation of a message it named, when known. A delete taken without a
   * token (api.auth-required) counts in every world, known there or not: it may have acted in any.
   */
  deletes: {
    kind: 'contact' | 'message';
    id: string;
    at: number;
    conversation?: string;
    withoutToken?: true;
  }[];
  /**
   * Lists that lacked records which a delete of the token, since each was last shown, may have
   * taken, the oldest first (judge/lists.ts): the list's charge is held until a later answer tells
   * whether each is alive (the list left it out: its rule) or gone (a retrieve's 404: the delete
   * took it, which judge/traces.ts judges). A charge no answer decides is never made.
   */
  held: Held[];
  /** The contacts list asked for with no parameter answered a page with a page's fields (judge/lists.ts). */
  contactPages?: true;
  /**
   * Creates the server refused for their content, not accepted since, oldest first, by what a
   * record they made all the same would show (judge/refusals.ts `refusedCreate`: a contact's
   * username, a send's conversation and text): when the refusal ended, and whether it lacked a
   * field the document requires.
   */
  refused: Map<string, { at: number; lacking: boolean }>;
  /** Writes with form bodies the server refused, by `sentKey`, the oldest first: the status. */
  formsRefused: Map<string, number>;
  /**
   * Lists asked for with one parameter that the server refused, by `aloneKey` (the list and the
   * parameter with its value), the oldest first: the status (judge/refusals.ts `refusedAlone`).
   */
  listsRefused: Map<string, number>;
  ledger: Ledger;
}

/** A list walked page by page, as far as it went (judge/walks.ts). */
/** A list's charge held until a later answer decides it (`World.held`). */
export interface Held {
  /** The list's rule, what the list lacked, and the request that lacked it. */
  rule: string;
  problem: string;
  request: string;
  /** When that list was answered; and the records it lacked, not yet decided. */
  at: number;
  ids: Set<string>;
  /** What memory.ts counts for it. */
  bytes: number;
}

export interface OpenWalk {
  /** Its `listKey`, and its limit (null: none). */
  list: string;
  limit: string | null;
  /** When its first page was asked for, and the world's writes then. */
  start: number;
  writes: number;
  /**
   * How long before its first page the token's last write had ended: one less than --settle-ms
   * old may land in the list while it is walked, and move its pages (judge/walks.ts `lagging`).
   */
  quiet: number;
  /** A write of its token was on its way while one of its pages was. */
  moved: boolean;
  /** Pages so far, and their items (repeated ones counted again), and their ids. */
  pages: number;
  listed: number;
  ids: Set<string>;
  /** The ids of its first page and of its last one so far. */
  firstPage: string[];
  lastPage: string[];
  /** Whether `ids` holds every record of its pages, in order (a long walk keeps only those the world knows). */
  ordered: boolean;
  /** Whether a next page showed a record of the pages before it (lists.pages): its pages moved. */
  repeated: boolean;
  /** The first next page that said has_more=true with fewer records than the first page, if any. */
  shortPage: number | undefined;
  /** What the page after the last one may be asked for with: its last id, a token, URLs. */
  lastId: string | undefined;
  token: string | undefined;
  urls: string[];
  /** What memory.ts counts for it. */
  bytes?: number;
}

export interface SessionState {
  /** The least recently used first. */
  worlds: Map<string, World>;
  /** Ids created through the proxy → the Authorization that created them (token isolation). */
  creators: Map<string, string>;
  /** The ids the worlds kept have seen, and of which kind (ids of different kinds never collide, C6). */
  kinds: Map<string, Kind>;
  memory: Memory;
  /**
   * The session's requests are the only ones that change the records it created (the kit's run,
   * whose records carry its run id): what none of them changed must read as created. The proxy
   * cannot say so of live traffic (other clients may write beside it).
   */
  soleWriter: boolean;
  /**
   * Every record the session's requests made reached it in an answer: no create of the session
   * had an outcome it did not see (the kit's run knows it from its transient answers to POSTs).
   * With `soleWriter`, a conversation with a contact the session made holds only what it sent.
   */
  sawEveryCreate: boolean;
  /**
   * Deletes refused for want of a valid token (401, 403), by the id they named, with when they
   * ended and their status (the latest few): a record a list then leaves out was taken by a
   * request the server refused (api.auth-required).
   */
  refusedDeletes: Map<string, { at: number; status: number }>;
}

/** From the document's table (rules/resources.ts): the contact's fields that never change. */
export const CONTACT_STABLE: readonly string[] = stableOf(CONTACT_FIELDS);

/** The fields of a contact that a message's contact shows too and that never change (2.2). */
export const SENDER_STABLE: readonly string[] = senderStableOf(CONTACT_FIELDS);
/** From the same table: the contact's fields an update may change. */
export const CONTACT_UPDATES: readonly string[] = updatedWith(CONTACT_FIELDS);

/** A value's short key (a former value, the text of a refused send): its type, length and first 32 characters (a few dozen bytes). */
export function formerKey(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
  return `${typeof value}:${text.length}:${text.slice(0, 32)}`;
}

/**
 * Whether a value of a field that never changes is one to hold later views to: a string, or an
 * integer time. A view that shows another breaks a rule (the view's, or keeps-the-rest), and the
 * value first shown stays the one held; one badly formed (a time with a fraction, a field missing)
 * gives way to the next view's, its fault judged by the fields rules.
 */
export function wellFormed(value: unknown): boolean {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/** A kind of view as a bit of `viewedWell`: a retrieve, or a list. */
export const viewBit = (listed: boolean): number => (listed ? 2 : 1);
