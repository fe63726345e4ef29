import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express, { type NextFunction, type Request, type Response } from 'express';
import qs from 'qs';
import { closeIdleSoon, flakyEdge, type FlakyEdge } from './flaky-edge';
import type { Running } from './harness';

/**
 * Staging servers: a second, independent in-memory implementation of the Messaging API, written
 * from the API document alone (nothing from src/), that behaves like a real staging account. It
 * honours every documented rule and fills each of the document's gaps by an option, so that the
 * contract kit can be shown to pass honest servers that choose differently from the mock.
 *
 * Documented, in every variant: the /v1 paths; `Authorization: Bearer <token>` on every endpoint
 * (each token is its own account, seeded on first use); form bodies with bracket keys; JSON
 * answers; integer timestamps; the contact and message fields of 2.1 and 2.2; display_name only
 * updatable; updates that add reactions and attachments and edit the text; the cascade of a
 * contact's delete; permanent message deletes; `{has_more, data}` pages of at most ten by default.
 */

type Order = 'hash' | 'oldest' | 'alpha' | 'recent';
type Paging = 'page' | 'offset' | 'token' | 'link-body' | 'link-header';

export interface StagingOptions {
  /** Seed of the pre-seeded data (the same for every token: each account is a copy). */
  seed: number;
  /** Contacts and messages pre-seeded in each token's account. */
  seedContacts: number;
  seedMessages: number;
  /** List order: by a hash of the id, oldest first, or contacts by username and messages by text. */
  order: Order;
  /** The one next-page mechanism: `page=N` (1-based), `offset=N`, `page_token` from the body's
   * `next_page_token`/`prev_page_token`, `links: {next, prev}` in the body (`after`/`before`), or
   * an RFC 8288 `Link` header (`cursor`). Every other paging parameter is ignored. */
  paging: Paging;
  /** The alphabet of `next_page_token`/`prev_page_token` (paging 'token'): plain base64, whose
   * tokens hold '+', '/' and '=' and may start with '/', or URL-safe base64url. Tokens inside
   * URLs (links, Link header) are always base64url. */
  tokenAlphabet: 'base64' | 'base64url';
  /** Items per page without `limit` (the document: at most ten). */
  defaultLimit: number;
  /** A `limit` above 50: refused, or clamped to 50. */
  overLimit: 'refuse' | 'clamp';
  /** `hex`: 8 to 12 lower-case hex digits (some of them all digits, by chance). */
  ids: 'numeric' | 'hex' | 'uuid' | 'prefixed';
  /** An id that cannot be one of this server's (e.g. letters where ids are numbers): not found
   * (404), or refused as an invalid parameter (`invalidStatus`). */
  malformedId: 'not-found' | 'invalid';
  timestamps: 'seconds' | 'milliseconds';
  createStatus: 200 | 201;
  /** A successful delete: 200 with the deleted object, 202 with `{id, deleted: true}`, or 204. */
  deleteAnswer: '200-object' | '202-deleted' | '204';
  /** An id that existed and was deleted (contact, its conversation, message). Unknown ids are 404. */
  goneStatus: 404 | 410;
  /** A missing or invalid parameter. */
  invalidStatus: 400 | 422;
  /** `{error: {status, message, param?}}`, `{errors: [{code, detail, source?}]}`, or RFC 9457
   * `application/problem+json` `{type, title, status, detail}`. */
  errorShape: 'nested' | 'list' | 'problem';
  /** `[{"heart": [..]}, {"like": [..]}]`, or `[{"heart": [..], "like": [..]}]` (`[]` when none). */
  reactionsLayout: 'per-name' | 'merged';
  /** Only `thumbs_up` and `like`, or any `[a-z_]+`. */
  reactionNames: 'restricted' | 'any';
  /** The same username added twice to one reaction name: kept once, or listed twice. */
  repeatedReaction: 'once' | 'twice';
  /** Attachments in the server's own shape `{id, name, url, content_type, size}` (from the form's
   * filename, file_url, file_type, file_size, or name, url, content_type, size), or as sent plus
   * an id. */
  attachments: 'own-shape' | 'as-sent';
  /** What `active=true` means: ever active (last_active_at set), active within 30 days, or with
   * messages in the conversation. `active=false` is the rest. */
  active: 'ever' | 'recent' | 'has-messages';
  /** Sending a message into a conversation sets its contact's last_active_at to now. */
  touchOnMessage: boolean;
  /** Retrieving a message sets its read_at when it is null. */
  readOnRetrieve: boolean;
  /** The messages list for a deleted (or unknown) conversation: refused, or an empty page. */
  deletedConversationList: 'refuse' | 'empty';
  /** Body keys that an operation does not take: refused, or ignored. */
  unknownKeys: 'refuse' | 'ignore';
  /** Phone numbers stored as `+` and digits only. */
  normalizePhone: boolean;
  /** Input formats: 'loose' takes any non-empty string where the document says string; 'strict'
   * refuses, with `invalidStatus` and the error shape, and changing nothing: a phone_number other
   * than E.164 (`+` and 7 to 15 digits, no spaces), a username other than `[A-Za-z0-9_.-]{1,40}`,
   * an avatar_url or attachment url that is no absolute http(s) URL, a display_name outside 1–100
   * characters or with control characters, a message text outside 1–4000 characters, an
   * attachment without `url` or with keys other than url, name, content_type and size, a reaction
   * name other than `[a-z0-9_]{1,32}` (besides `reactionNames`), and a reacting username other
   * than a username. Characters are code points. */
  formats: 'loose' | 'strict';
  /** Answers gzip-compressed (Content-Encoding: gzip, Vary: Accept-Encoding) when the request's
   * Accept-Encoding takes gzip. */
  gzip: boolean;
  /** At most `requests` requests per token in a fixed window of `windowMs` that starts with the
   * token's first request after the last window ended; beyond, 429 with Retry-After (whole
   * seconds, at least 1) and the error shape, and nothing changes. Off when absent. */
  rateLimit?: { requests: number; windowMs: number };
  /** A path prefix such as '/api': every endpoint is at `${prefix}/v1/...` only, and every link
   * the server writes (paging links in the body, Link headers) carries it. None when absent. */
  prefix?: string;
  /** With numeric ids, contacts, conversations and messages count from the same number, so that
   * a contact, a conversation and a message can all be `1001` (unique within a kind only). */
  sharedIds: boolean;
  /** Eventually consistent lists: the lists show each record as it was `settleMs` ago (created,
   * changed and deleted records reach them only then, the cascade of a contact's delete too);
   * retrieve, update and delete see the current state. Off when absent or 0. */
  settleMs?: number;
  /** With order 'recent': messages of the same created_at (as answered, in the server's unit) in
   * insertion order, the older first, instead of the newer first. Off when absent. */
  ties?: 'older-first';
  /** Fields the document does not list: `object` and the record's own `url` (a contact) or
   * `links.self` (a message) on every record, `object` on a message's contact, `object: "list"` and
   * `total_count` (the items of the whole list) on every page, and a `doc_url` beside a nested
   * error's message. Off when absent. */
  ownFields?: boolean;
  /** Behind a flaky edge (flaky-edge.ts): some GETs answered 502/503/504 or dropped by it, and
   * idle kept-alive connections closed at once. Off when absent. */
  flakyEdge?: FlakyEdge;
}

export const STAGING_DEFAULTS: StagingOptions = {
  seed: 1,
  seedContacts: 36,
  seedMessages: 150,
  order: 'hash',
  paging: 'page',
  tokenAlphabet: 'base64',
  defaultLimit: 10,
  overLimit: 'refuse',
  ids: 'numeric',
  malformedId: 'invalid',
  timestamps: 'milliseconds',
  createStatus: 200,
  deleteAnswer: '200-object',
  goneStatus: 410,
  invalidStatus: 422,
  errorShape: 'nested',
  reactionsLayout: 'merged',
  reactionNames: 'restricted',
  repeatedReaction: 'twice',
  attachments: 'own-shape',
  active: 'recent',
  touchOnMessage: true,
  readOnRetrieve: true,
  deletedConversationList: 'empty',
  unknownKeys: 'ignore',
  normalizePhone: true,
  formats: 'loose',
  gzip: false,
  sharedIds: false,
};

/**
 * Honest variants. Together they take every value of every option (tokenAlphabet aside: only the
 * page_token variant uses it); each takes the value closest to the mock's own choice in three or
 * four gaps, so that every value is covered, and differs from the mock everywhere else.
 */
export const STAGING_VARIANTS: { name: string; options: Partial<StagingOptions> }[] = [
  {
    name: 'hex ids of varying length, hash order, page=N',
    options: {
      seed: 11,
      seedContacts: 36,
      seedMessages: 150,
      order: 'hash',
      paging: 'page',
      defaultLimit: 10,
      overLimit: 'refuse',
      ids: 'hex',
      malformedId: 'invalid',
      timestamps: 'seconds',
      createStatus: 200,
      deleteAnswer: '200-object',
      goneStatus: 410,
      invalidStatus: 422,
      errorShape: 'nested',
      reactionsLayout: 'merged',
      reactionNames: 'restricted',
      repeatedReaction: 'twice',
      attachments: 'own-shape',
      active: 'recent',
      touchOnMessage: true,
      readOnRetrieve: true,
      deletedConversationList: 'empty',
      unknownKeys: 'refuse',
      normalizePhone: true,
    },
  },
  {
    name: 'uuids, alphabetical, offset=N',
    options: {
      seed: 22,
      seedContacts: 42,
      seedMessages: 190,
      order: 'alpha',
      paging: 'offset',
      defaultLimit: 7,
      overLimit: 'clamp',
      ids: 'uuid',
      malformedId: 'invalid',
      timestamps: 'milliseconds',
      createStatus: 200,
      deleteAnswer: '202-deleted',
      goneStatus: 410,
      invalidStatus: 400,
      errorShape: 'list',
      reactionsLayout: 'per-name',
      reactionNames: 'restricted',
      repeatedReaction: 'twice',
      attachments: 'as-sent',
      active: 'has-messages',
      touchOnMessage: true,
      readOnRetrieve: false,
      deletedConversationList: 'empty',
      unknownKeys: 'ignore',
      normalizePhone: true,
    },
  },
  {
    name: 'prefixed ids, oldest first, page_token',
    options: {
      seed: 33,
      seedContacts: 31,
      seedMessages: 120,
      order: 'oldest',
      paging: 'token',
      tokenAlphabet: 'base64',
      defaultLimit: 9,
      overLimit: 'refuse',
      ids: 'prefixed',
      malformedId: 'invalid',
      timestamps: 'milliseconds',
      createStatus: 200,
      deleteAnswer: '204',
      goneStatus: 410,
      invalidStatus: 422,
      errorShape: 'problem',
      reactionsLayout: 'merged',
      reactionNames: 'restricted',
      repeatedReaction: 'once',
      attachments: 'own-shape',
      active: 'ever',
      touchOnMessage: true,
      readOnRetrieve: true,
      deletedConversationList: 'empty',
      unknownKeys: 'ignore',
      normalizePhone: true,
    },
  },
  {
    name: 'numeric ids, hash order, links in the body',
    options: {
      seed: 44,
      seedContacts: 45,
      seedMessages: 200,
      order: 'hash',
      paging: 'link-body',
      defaultLimit: 8,
      overLimit: 'clamp',
      ids: 'numeric',
      malformedId: 'not-found',
      timestamps: 'milliseconds',
      createStatus: 200,
      deleteAnswer: '202-deleted',
      goneStatus: 410,
      invalidStatus: 422,
      errorShape: 'list',
      reactionsLayout: 'merged',
      reactionNames: 'any',
      repeatedReaction: 'twice',
      attachments: 'as-sent',
      active: 'recent',
      touchOnMessage: false,
      readOnRetrieve: true,
      deletedConversationList: 'refuse',
      unknownKeys: 'ignore',
      normalizePhone: false,
    },
  },
  {
    name: 'uuids, alphabetical, Link header',
    options: {
      seed: 55,
      seedContacts: 33,
      seedMessages: 110,
      order: 'alpha',
      paging: 'link-header',
      defaultLimit: 6,
      overLimit: 'refuse',
      ids: 'uuid',
      malformedId: 'invalid',
      timestamps: 'milliseconds',
      createStatus: 201,
      deleteAnswer: '200-object',
      goneStatus: 404,
      invalidStatus: 422,
      errorShape: 'nested',
      reactionsLayout: 'merged',
      reactionNames: 'restricted',
      repeatedReaction: 'twice',
      attachments: 'own-shape',
      active: 'has-messages',
      touchOnMessage: true,
      readOnRetrieve: true,
      deletedConversationList: 'refuse',
      unknownKeys: 'ignore',
      normalizePhone: true,
    },
  },
];

const variantOptions = (name: string): Partial<StagingOptions> => {
  const variant = STAGING_VARIANTS.find((v) => v.name === name);
  if (!variant) throw new Error(`No staging variant ${JSON.stringify(name)}.`);
  return variant.options;
};

/**
 * The flaky edge of the variant behind one: one GET in 15 answered by the edge, one in 37
 * dropped, about 9% of the GETs, under the share of transient answers past which a run stops
 * judging (contract-tests/http/transients.ts).
 */
export const FLAKY_EDGE: FlakyEdge = { gatewayEvery: 15, resetEvery: 37 };

/**
 * Honest variants that are harder to test against: each is one of STAGING_VARIANTS (another seed)
 * with one of the options that STAGING_VARIANTS leave off: strict input formats, gzip answers, a
 * rate limit, a path prefix, numeric ids repeated across kinds, lists that settle late, and a flaky
 * edge in front (502/503/504 and dropped connections that are none of the server's answers).
 */
export const STAGING_HARD_VARIANTS: { name: string; options: Partial<StagingOptions> }[] = [
  {
    name: 'strict input formats',
    options: {
      ...variantOptions('hex ids of varying length, hash order, page=N'),
      seed: 66,
      formats: 'strict',
    },
  },
  {
    name: 'gzip answers',
    options: { ...variantOptions('uuids, alphabetical, offset=N'), seed: 77, gzip: true },
  },
  {
    name: 'rate limited with Retry-After',
    options: {
      ...variantOptions('prefixed ids, oldest first, page_token'),
      seed: 88,
      rateLimit: { requests: 40, windowMs: 1000 },
    },
  },
  {
    name: 'under a path prefix /api',
    options: {
      ...variantOptions('numeric ids, hash order, links in the body'),
      seed: 99,
      paging: 'link-body',
      prefix: '/api',
    },
  },
  {
    name: 'ids repeat across kinds',
    options: {
      ...variantOptions('hex ids of varying length, hash order, page=N'),
      seed: 111,
      ids: 'numeric',
      sharedIds: true,
    },
  },
  {
    name: 'lists settle after 300 ms',
    options: { ...variantOptions('uuids, alphabetical, Link header'), seed: 122, settleMs: 300 },
  },
  {
    name: 'newest first, ties in insertion order',
    options: {
      ...variantOptions('hex ids of varying length, hash order, page=N'),
      seed: 155,
      order: 'recent',
      ties: 'older-first',
    },
  },
  {
    name: 'own fields on records, pages and errors',
    options: { ...variantOptions('uuids, alphabetical, Link header'), seed: 144, ownFields: true },
  },
  {
    name: 'behind a flaky edge',
    options: {
      ...variantOptions('numeric ids, hash order, links in the body'),
      seed: 133,
      flakyEdge: FLAKY_EDGE,
    },
  },
];

type Json = Record<string, unknown>;
type Kind = 'contact' | 'conversation' | 'message' | 'attachment';
/** A total sort key: a primary value and a unique tie-breaker. */
type Key = [string | number, string | number];

const DAY = 86_400_000;
const MAX_LIMIT = 50;
const ACTIVE_WINDOW = 30 * DAY;
const ALLOWED_RESTRICTED = ['thumbs_up', 'like'];
const REACTION_NAME = /^[a-z_]+$/;
/** The formats of 'strict'. */
const E164 = /^\+[1-9][0-9]{6,14}$/;
const USERNAME = /^[A-Za-z0-9_.-]{1,40}$/;
const STRICT_REACTION_NAME = /^[a-z0-9_]{1,32}$/;
const STRICT_ATTACHMENT_KEYS = ['url', 'name', 'content_type', 'size'];
const CONTROL = /\p{Cc}/u;
const MAX_DISPLAY_NAME = 100;
const MAX_MESSAGE = 4000;

/** Code points, as the length limits count them. */
const charCount = (text: string) => [...text].length;

/** An absolute http(s) URL with a host, and no white space. */
function isWebUrl(text: string): boolean {
  if (!/^https?:\/\/\S+$/i.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

interface ContactRecord {
  id: string;
  seq: number;
  username: string;
  phone_number: string;
  avatar_url: string;
  display_name: string | null;
  conversation_id: string;
  /** Milliseconds, like every stored time; rendered in the variant's unit. */
  last_active_at: number | null;
  created_at: number;
}

interface MessageRecord {
  id: string;
  seq: number;
  conversation_id: string;
  message: string;
  /** Reaction name → usernames, names in order of first use. */
  reactions: Map<string, string[]>;
  attachments: Json[];
  read_at: number | null;
  created_at: number;
  updated_at: number | null;
}

/** A refusal: status, a machine code, a sentence, the parameter at fault, and headers of its own. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PREFIX: Record<Kind, string> = {
  contact: 'ct_',
  conversation: 'conv_',
  message: 'msg_',
  attachment: 'att_',
};
const NUMERIC_BASE: Record<Kind, number> = {
  contact: 1000,
  conversation: 2000,
  message: 1000,
  attachment: 0,
};
/** sharedIds: every addressable kind counts from the same number. */
const SHARED_BASE: Record<Kind, number> = {
  contact: 1000,
  conversation: 1000,
  message: 1000,
  attachment: 0,
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function compareValues(a: string | number, b: string | number): number {
  if (typeof a !== typeof b) return typeof a < typeof b ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareKeys(a: Key, b: Key): number {
  return compareValues(a[0], b[0]) || compareValues(a[1], b[1]);
}

const FIRST = [
  'mara',
  'tomas',
  'ines',
  'kwame',
  'yuki',
  'lena',
  'omar',
  'priya',
  'jonas',
  'aisha',
  'felix',
  'sofia',
  'dmitri',
  'nia',
  'pablo',
  'hana',
  'ravi',
  'elif',
  'noah',
  'zara',
  'ivan',
  'mei',
  'lucas',
  'amara',
  'theo',
];
const LAST = [
  'okafor',
  'silva',
  'novak',
  'mensah',
  'tanaka',
  'berg',
  'haddad',
  'raman',
  'weber',
  'bello',
  'costa',
  'ito',
  'petrov',
  'adeyemi',
  'ruiz',
  'kim',
  'shah',
  'demir',
  'larsen',
  'osei',
];
const PHRASES = [
  'See you at eight?',
  'Running ten minutes late, sorry',
  'Did you get the invoice?',
  'ok',
  'Thanks!',
  'Can you send me the address again',
  'Happy birthday 🎉',
  'The meeting moved to Thursday',
  'call me when you can',
  'Photos from the weekend attached',
  'Sounds good',
  'Where did you park?',
  'Boarding now, talk later',
  'ok',
  'I left the keys with the neighbour',
  'Lunch tomorrow?',
];
const SEEDED_REACTIONS = ['thumbs_up', 'like', 'heart', 'laugh', 'party_popper'];
const capital = (word: string) => word[0]!.toUpperCase() + word.slice(1);

const copyContact = (c: ContactRecord): ContactRecord => ({ ...c });
const copyMessage = (m: MessageRecord): MessageRecord => ({
  ...m,
  reactions: new Map([...m.reactions].map(([name, users]) => [name, [...users]])),
  attachments: m.attachments.map((a) => ({ ...a })),
});

/**
 * The recent versions of each record of one kind, (time, state) with null for deleted, for lists
 * that show each record as it was a while ago. Only the versions that a list can still show are
 * kept: the last one at or before the horizon (now - settleMs) and those after it.
 */
class History<T> {
  private readonly versions = new Map<string, { t: number; state: T | null }[]>();

  constructor(
    private readonly settleMs: number,
    private readonly copy: (state: T) => T,
  ) {}

  record(id: string, state: T | null, t: number): void {
    const list = this.versions.get(id) ?? [];
    list.push({ t, state: state === null ? null : this.copy(state) });
    this.versions.set(id, list);
    this.prune(id, list, Date.now() - this.settleMs);
  }

  /** Every record that existed at `at`, as it was then. */
  asOf(at: number): T[] {
    const horizon = Date.now() - this.settleMs;
    const seen: T[] = [];
    for (const [id, list] of [...this.versions]) {
      let visible: T | null = null;
      for (const version of list) {
        if (version.t > at) break;
        visible = version.state;
      }
      if (visible !== null) seen.push(visible);
      this.prune(id, list, horizon);
    }
    return seen;
  }

  private prune(id: string, list: { t: number; state: T | null }[], horizon: number): void {
    let last = -1;
    for (let i = 0; i < list.length && list[i]!.t <= horizon; i++) last = i;
    if (last > 0) list.splice(0, last);
    if (list.length === 1 && list[0]!.state === null && list[0]!.t <= horizon) this.versions.delete(id);
  }
}

/** What the lists show: every record, or with settleMs each record as it was then. */
interface ListView {
  contacts: ContactRecord[];
  messages: MessageRecord[];
  /** Conversation id → its contact. */
  conversations: Map<string, ContactRecord>;
  /** Conversation id → its messages. */
  byConversation: Map<string, MessageRecord[]>;
}

/** One token's account: its contacts, their conversations and the messages in them. */
class Account {
  readonly contacts = new Map<string, ContactRecord>();
  /** Conversation id → contact id. */
  readonly conversations = new Map<string, string>();
  readonly messages = new Map<string, MessageRecord>();
  /** Conversation id → its message ids. */
  readonly byConversation = new Map<string, Set<string>>();
  readonly gone = { contact: new Set<string>(), conversation: new Set<string>(), message: new Set<string>() };
  private seq = 0;
  private readonly counters: Record<Kind, number>;
  private readonly rng: () => number;
  /** The versions the lists show, when they settle late (settleMs). */
  private readonly history?: { contact: History<ContactRecord>; message: History<MessageRecord> };
  /** While seeding: versions from before any list was read. */
  private seeding = false;

  constructor(readonly options: StagingOptions) {
    this.counters = { ...(options.sharedIds ? SHARED_BASE : NUMERIC_BASE) };
    this.rng = mulberry32(options.seed);
    const settle = options.settleMs ?? 0;
    if (settle > 0)
      this.history = {
        contact: new History(settle, copyContact),
        message: new History(settle, copyMessage),
      };
    this.seeding = true;
    this.seed(Date.now());
    this.seeding = false;
  }

  /** Keeps the contact's current state for the lists (after any change to it). */
  savedContact(contact: ContactRecord, t = Date.now()): void {
    this.history?.contact.record(contact.id, contact, this.seeding ? -Infinity : t);
  }

  /** Keeps the message's current state for the lists (after any change to it). */
  savedMessage(message: MessageRecord, t = Date.now()): void {
    this.history?.message.record(message.id, message, this.seeding ? -Infinity : t);
  }

  /** The records the lists show now. */
  listView(): ListView {
    let contacts: ContactRecord[];
    let messages: MessageRecord[];
    if (this.history) {
      const at = Date.now() - (this.options.settleMs ?? 0);
      contacts = this.history.contact.asOf(at);
      messages = this.history.message.asOf(at);
    } else {
      contacts = [...this.contacts.values()];
      messages = [...this.messages.values()];
    }
    const conversations = new Map(contacts.map((c) => [c.conversation_id, c]));
    const byConversation = new Map(contacts.map((c) => [c.conversation_id, [] as MessageRecord[]]));
    // A message shows with its conversation's contact as it was then (always there: the contact
    // was created before the message and is deleted with it, at the same instant).
    messages = messages.filter((m) => conversations.has(m.conversation_id));
    for (const m of messages) byConversation.get(m.conversation_id)!.push(m);
    return { contacts, messages, conversations, byConversation };
  }

  nextSeq(): number {
    return ++this.seq;
  }

  newId(kind: Kind): string {
    switch (this.options.ids) {
      case 'numeric':
        return String(++this.counters[kind]);
      case 'uuid': {
        const hex = Array.from({ length: 32 }, () => Math.floor(this.rng() * 16).toString(16));
        hex[12] = '4';
        hex[16] = '89ab'[Math.floor(this.rng() * 4)]!;
        const h = hex.join('');
        return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
      }
      case 'hex':
        return Array.from({ length: 8 + Math.floor(this.rng() * 5) }, () =>
          Math.floor(this.rng() * 16).toString(16),
        ).join('');
      case 'prefixed':
        return PREFIX[kind] + Array.from({ length: 14 }, () => BASE62[Math.floor(this.rng() * 62)]).join('');
    }
  }

  wellFormed(kind: Kind, id: string): boolean {
    switch (this.options.ids) {
      case 'numeric':
        return /^[1-9][0-9]{0,15}$/.test(id);
      case 'hex':
        return /^[0-9a-f]{8,12}$/.test(id);
      case 'uuid':
        return UUID.test(id);
      case 'prefixed':
        return id.startsWith(PREFIX[kind]) && /^[A-Za-z0-9]{14}$/.test(id.slice(PREFIX[kind].length));
    }
  }

  phone(text: string): string {
    return this.options.normalizePhone ? text.replace(/(?!^\+)[^0-9]/g, '') : text;
  }

  /** A seeded number as it was taken: E.164 where formats are strict. */
  private seedPhone(text: string): string {
    return this.options.formats === 'strict' ? text.replace(/(?!^\+)[^0-9]/g, '') : this.phone(text);
  }

  addContact(fields: Omit<ContactRecord, 'id' | 'seq' | 'conversation_id'>): ContactRecord {
    const contact: ContactRecord = {
      id: this.newId('contact'),
      seq: this.nextSeq(),
      conversation_id: this.newId('conversation'),
      ...fields,
    };
    this.contacts.set(contact.id, contact);
    this.conversations.set(contact.conversation_id, contact.id);
    this.byConversation.set(contact.conversation_id, new Set());
    this.savedContact(contact);
    return contact;
  }

  addMessage(fields: Omit<MessageRecord, 'id' | 'seq'>): MessageRecord {
    const message: MessageRecord = { id: this.newId('message'), seq: this.nextSeq(), ...fields };
    this.messages.set(message.id, message);
    this.byConversation.get(message.conversation_id)!.add(message.id);
    this.savedMessage(message);
    return message;
  }

  deleteMessage(id: string, t = Date.now()): void {
    const message = this.messages.get(id);
    if (!message) return;
    this.messages.delete(id);
    this.byConversation.get(message.conversation_id)?.delete(id);
    this.gone.message.add(id);
    this.history?.message.record(id, null, t);
  }

  deleteContact(id: string): void {
    const contact = this.contacts.get(id);
    if (!contact) return;
    // The cascade at one instant: the lists lose the contact and its messages together.
    const t = Date.now();
    for (const messageId of [...(this.byConversation.get(contact.conversation_id) ?? [])])
      this.deleteMessage(messageId, t);
    this.byConversation.delete(contact.conversation_id);
    this.conversations.delete(contact.conversation_id);
    this.contacts.delete(id);
    this.gone.contact.add(id);
    this.gone.conversation.add(contact.conversation_id);
    this.history?.contact.record(id, null, t);
  }

  attachment(fields: Json): Json {
    return { id: this.newId('attachment'), ...fields };
  }

  /** A staging account as it looks after months of use: every state the document allows. */
  private seed(now: number): void {
    const { seedContacts, seedMessages } = this.options;
    const rng = this.rng;
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
    const taken = new Set<string>();
    const contacts: ContactRecord[] = [];
    for (let i = 0; i < seedContacts; i++) {
      const first = FIRST[i % FIRST.length]!;
      const last = LAST[(i * 7) % LAST.length]!;
      let username = i % 4 === 3 ? `${first}${last[0]}${(i * 37) % 100}` : `${first}_${last}`;
      while (taken.has(username)) username += String(Math.floor(rng() * 10));
      taken.add(username);
      const created = now - (seedContacts - i) * 10 * DAY - Math.floor(rng() * DAY);
      const display = i % 3 === 0 ? `${capital(first)} ${capital(last)}` : i % 3 === 1 ? username : null;
      let lastActive: number | null = null;
      if (i % 4 === 1 || i % 4 === 3) lastActive = now - Math.floor(rng() * 20 * DAY);
      else if (i % 4 === 2 && created < now - 45 * DAY)
        lastActive = created + Math.floor(rng() * (now - 40 * DAY - created));
      contacts.push(
        this.addContact({
          username,
          phone_number: this.seedPhone(`+44 7700 9${String(i).padStart(5, '0')}`),
          avatar_url: `https://cdn.staging.example/avatars/${username}.jpg`,
          display_name: display,
          last_active_at: lastActive,
          created_at: created,
        }),
      );
    }
    // Every seventh contact, from the sixth on, has never been written to.
    const writers = contacts.filter((_, i) => i % 7 !== 5);
    const names = this.options.reactionNames === 'restricted' ? ALLOWED_RESTRICTED : SEEDED_REACTIONS;
    const people = ['me', ...contacts.map((c) => c.username)];
    const drafts: Omit<MessageRecord, 'id' | 'seq'>[] = [];
    for (let j = 0; j < seedMessages; j++) {
      const contact = writers.length > 0 ? pick(writers) : contacts[0]!;
      const created = contact.created_at + Math.floor(rng() * (now - 3_600_000 - contact.created_at));
      const full = j === 0; // the first one has every optional state at once
      const readAt = full || rng() < 0.6 ? Math.min(now, created + Math.floor(rng() * 2 * DAY)) : null;
      const updatedAt = full || rng() < 0.2 ? Math.min(now, created + Math.floor(rng() * DAY)) : null;
      const reactions = new Map<string, string[]>();
      if (full || rng() < 0.35) {
        const count = full ? names.length : 1 + Math.floor(rng() * names.length);
        for (const name of names.slice(0, count)) {
          const users = new Set<string>();
          const many = full ? 3 : 1 + Math.floor(rng() * 3);
          while (users.size < many) users.add(pick(people));
          reactions.set(name, [...users]);
        }
      }
      const attachments: Json[] = [];
      if (full || rng() < 0.15) {
        const count = full ? 2 : 1 + Math.floor(rng() * 2);
        for (let k = 0; k < count; k++) {
          const name = `IMG_${2000 + Math.floor(rng() * 8000)}.jpg`;
          const url = `https://files.staging.example/${contact.conversation_id}/${name}`;
          attachments.push(
            this.attachment(
              this.options.attachments === 'own-shape'
                ? { name, url, content_type: 'image/jpeg', size: 20_000 + Math.floor(rng() * 2_000_000) }
                : this.options.formats === 'strict'
                  ? { name, url, content_type: 'image/jpeg' }
                  : { filename: name, file_url: url, file_type: 'image/jpeg' },
            ),
          );
        }
      }
      drafts.push({
        conversation_id: contact.conversation_id,
        message: pick(PHRASES),
        reactions,
        attachments,
        read_at: readAt,
        created_at: created,
        updated_at: updatedAt,
      });
    }
    // Stored in the order they were written.
    drafts.sort((a, b) => a.created_at - b.created_at);
    for (const draft of drafts) this.addMessage(draft);
  }
}

/** The same bytes for every token: enough to make tokens opaque, not to make them secret. */
const TOKEN_MASK = (() => {
  const rng = mulberry32(0x7ab1e);
  return Buffer.from(Array.from({ length: 512 }, () => Math.floor(rng() * 256)));
})();

/**
 * An opaque paging token: the cursor as JSON behind a two-byte nonce (a hash of it), masked from
 * the nonce on, in base64 or base64url; so tokens look random, like encrypted ones do.
 */
function sealToken(cursor: unknown, flavor: 'base64' | 'base64url'): string {
  const json = JSON.stringify(cursor);
  const nonce = fnv1a(json) & 0xffff;
  const bytes = Buffer.concat([Buffer.from([nonce >> 8, nonce & 0xff]), Buffer.from(json, 'utf8')]);
  for (let i = 2; i < bytes.length; i++) bytes[i]! ^= TOKEN_MASK[(nonce + i) % TOKEN_MASK.length]!;
  return bytes.toString(flavor);
}

/** The cursor in a token (either flavor; a '+' that arrived as a space is taken back). Throws when it is none. */
function openToken(text: string): unknown {
  const bytes = Buffer.from(text.replace(/ /g, '+'), 'base64');
  if (bytes.length < 3) throw new Error('too short');
  const nonce = (bytes[0]! << 8) | bytes[1]!;
  for (let i = 2; i < bytes.length; i++) bytes[i]! ^= TOKEN_MASK[(nonce + i) % TOKEN_MASK.length]!;
  const json = bytes.subarray(2).toString('utf8');
  if ((fnv1a(json) & 0xffff) !== nonce) throw new Error('not ours');
  return JSON.parse(json);
}

/** The body of a form request, parsed with bracket keys; GETs take only the query. */
function formOf(req: Request): Json {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (raw.length === 0) return {};
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new Refusal(
      415,
      'unsupported_media_type',
      'Send the parameters as application/x-www-form-urlencoded.',
    );
  }
  return qs.parse(raw.toString('utf8'), {
    depth: 4,
    arrayLimit: 100,
    parameterLimit: 500,
  }) as Json;
}

/** Whether an Accept-Encoding header takes gzip (by name or by `*`, with a weight above 0). */
function takesGzip(header: string | undefined): boolean {
  if (!header) return false;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)).find(Boolean);
    weights.set(name.trim(), q ? Number(q[1]) : 1);
  }
  const gzip = weights.get('gzip') ?? weights.get('x-gzip') ?? weights.get('*');
  return gzip !== undefined && gzip > 0;
}

/** Answers gzip-compressed when the request takes it: every answer is written by one `end`. */
function gzipAnswers(req: Request, res: Response, next: NextFunction): void {
  res.vary('Accept-Encoding');
  if (!takesGzip(req.headers['accept-encoding'])) {
    next();
    return;
  }
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) => {
    const body =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.isBuffer(chunk)
          ? chunk
          : undefined;
    if (!body || body.length === 0 || res.headersSent || req.method === 'HEAD')
      return end(chunk, encoding, callback);
    const packed = gzipSync(body);
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Content-Length', packed.length);
    return end(packed, typeof encoding === 'function' ? encoding : callback);
  }) as Response['end'];
  next();
}

function queryOf(req: Request): URLSearchParams {
  const at = req.originalUrl.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : req.originalUrl.slice(at + 1));
}

/** Starts a staging server on 127.0.0.1, on a free port. */
export async function startStaging(options: Partial<StagingOptions> = {}): Promise<Running> {
  const o: StagingOptions = { ...STAGING_DEFAULTS, ...options };
  const strict = o.formats === 'strict';
  /** The path prefix, '' or '/name' (no trailing slash). */
  const base = o.prefix ? `/${o.prefix.replace(/^\/+|\/+$/g, '')}`.replace(/^\/$/, '') : '';
  const accounts = new Map<string, Account>();
  /** Token → its rate-limit window: when it started and the requests taken in it. */
  const windows = new Map<string, { start: number; count: number }>();
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  if (o.flakyEdge) app.use(flakyEdge(o.flakyEdge));
  if (o.gzip) app.use(gzipAnswers);

  const time = (ms: number | null): number | null =>
    ms === null ? null : o.timestamps === 'seconds' ? Math.floor(ms / 1000) : ms;

  const errorBody = (status: number, code: string, message: string, param?: string): Json => {
    switch (o.errorShape) {
      case 'nested':
        return {
          error: {
            status,
            message,
            ...(param ? { param } : {}),
            ...(o.ownFields ? { doc_url: 'https://staging.example/docs/errors' } : {}),
          },
        };
      case 'list':
        return { errors: [{ code, detail: message, ...(param ? { source: { parameter: param } } : {}) }] };
      case 'problem':
        return {
          type: `https://staging.example/problems/${code.replace(/_/g, '-')}`,
          title: code.replace(/_/g, ' '),
          status,
          detail: message,
          ...(param ? { invalid_params: [{ name: param }] } : {}),
        };
    }
  };

  const refuse = (res: Response, refusal: Refusal) => {
    res.status(refusal.status);
    if (refusal.status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="staging"');
    for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
    const body = errorBody(refusal.status, refusal.code, refusal.message, refusal.param);
    if (o.errorShape === 'problem') {
      res.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
      res.end(JSON.stringify(body));
    } else {
      res.json(body);
    }
  };

  const invalid = (param: string, message: string) =>
    new Refusal(o.invalidStatus, 'invalid_parameter', message, param);

  const tokenOf = (req: Request): string => {
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer +([^\s]+)$/i.exec(header.trim()) : null;
    if (!match) {
      throw new Refusal(
        401,
        header ? 'invalid_authorization' : 'missing_authorization',
        'Send the header Authorization: Bearer <token>.',
      );
    }
    return match[1]!;
  };

  /** Takes one request from the token's window, or refuses it (429) before anything happens. */
  const takeRequest = (token: string): void => {
    if (!o.rateLimit) return;
    const { requests, windowMs } = o.rateLimit;
    const now = Date.now();
    let window = windows.get(token);
    if (!window || now >= window.start + windowMs) {
      window = { start: now, count: 0 };
      windows.set(token, window);
    }
    if (window.count >= requests) {
      const seconds = Math.max(1, Math.ceil((window.start + windowMs - now) / 1000));
      throw new Refusal(
        429,
        'rate_limited',
        `At most ${requests} requests per ${windowMs} ms for a token; retry in ${seconds} s.`,
        undefined,
        { 'Retry-After': String(seconds) },
      );
    }
    window.count++;
  };

  const accountOf = (token: string): Account => {
    let account = accounts.get(token);
    if (!account) {
      account = new Account(o);
      accounts.set(token, account);
    }
    return account;
  };

  /** The record behind a path id, or the refusal that fits: malformed, gone, or unknown. */
  const find = <T>(account: Account, kind: 'contact' | 'message', id: string, store: Map<string, T>): T => {
    const found = store.get(id);
    if (found) return found;
    if (!account.wellFormed(kind, id) && o.malformedId === 'invalid')
      throw invalid('id', `${JSON.stringify(id)} is not a ${kind} id.`);
    if (account.gone[kind].has(id)) throw new Refusal(o.goneStatus, 'gone', `The ${kind} ${id} was deleted.`);
    throw new Refusal(404, 'not_found', `No ${kind} has the id ${id}.`);
  };

  /** The live conversation named by a parameter, or why there is none. */
  const conversationOf = (account: Account, id: string, param: string): ContactRecord => {
    const contactId = account.conversations.get(id);
    if (contactId) return account.contacts.get(contactId)!;
    if (!account.wellFormed('conversation', id) && o.malformedId === 'invalid')
      throw invalid(param, `${JSON.stringify(id)} is not a conversation id.`);
    if (account.gone.conversation.has(id))
      throw new Refusal(o.goneStatus, 'gone', `The conversation ${id} was deleted with its contact.`, param);
    throw new Refusal(404, 'not_found', `No conversation has the id ${id}.`, param);
  };

  const strictKeys = (form: Json, allowed: readonly string[]) => {
    if (o.unknownKeys === 'ignore') return;
    const extra = Object.keys(form).filter((key) => !allowed.includes(key));
    if (extra.length > 0)
      throw invalid(extra[0]!, `Not accepted here: ${extra.join(', ')}. Accepted: ${allowed.join(', ')}.`);
  };

  const text = (form: Json, key: string, required: boolean): string | undefined => {
    const value = form[key];
    if (value === undefined) {
      if (required) throw invalid(key, `${key} is required.`);
      return undefined;
    }
    if (typeof value !== 'string') throw invalid(key, `${key} must be a single string.`);
    if (required && value === '') throw invalid(key, `${key} must not be empty.`);
    return value;
  };

  /** The formats of 'strict' (each a no-op when formats are loose). */
  const check = {
    username(value: string, param = 'username') {
      if (strict && !USERNAME.test(value))
        throw invalid(param, `${param} is 1 to 40 of A-Z, a-z, 0-9, '_', '.' and '-'.`);
    },
    phone(value: string) {
      if (strict && !E164.test(value))
        throw invalid(
          'phone_number',
          'phone_number is E.164: + and 7 to 15 digits, no spaces, e.g. +15550102783.',
        );
    },
    url(param: string, value: string) {
      if (strict && !isWebUrl(value)) throw invalid(param, `${param} must be an absolute http(s) URL.`);
    },
    displayName(value: string) {
      if (!strict) return;
      if (charCount(value) < 1 || charCount(value) > MAX_DISPLAY_NAME)
        throw invalid('display_name', `display_name is 1 to ${MAX_DISPLAY_NAME} characters.`);
      if (CONTROL.test(value))
        throw invalid('display_name', 'display_name must not hold control characters.');
    },
    message(value: string) {
      if (strict && (charCount(value) < 1 || charCount(value) > MAX_MESSAGE))
        throw invalid('message', `message is 1 to ${MAX_MESSAGE} characters.`);
    },
  };

  const own = (object: string, link: Json): Json => (o.ownFields ? { object, ...link } : {});
  const renderContact = (c: ContactRecord): Json => ({
    ...own('contact', { url: `${o.prefix ?? ''}/v1/contacts/${c.id}` }),
    id: c.id,
    username: c.username,
    phone_number: c.phone_number,
    avatar_url: c.avatar_url,
    display_name: c.display_name,
    conversation_id: c.conversation_id,
    last_active_at: time(c.last_active_at),
    created_at: time(c.created_at),
  });

  const renderSender = (c: ContactRecord): Json => ({
    ...own('contact', {}),
    id: c.id,
    username: c.username,
    phone_number: c.phone_number,
    avatar_url: c.avatar_url,
    last_active_at: time(c.last_active_at),
    created_at: time(c.created_at),
  });

  const renderReactions = (reactions: Map<string, string[]>): Json[] => {
    if (o.reactionsLayout === 'per-name')
      return [...reactions].map(([name, users]) => ({ [name]: [...users] }));
    if (reactions.size === 0) return [];
    return [Object.fromEntries([...reactions].map(([name, users]) => [name, [...users]]))];
  };

  /** A message with its conversation's contact (the current one, or the one a list shows). */
  const renderMessage = (m: MessageRecord, contact: ContactRecord): Json => {
    return {
      ...own('message', { links: { self: `${o.prefix ?? ''}/v1/messages/${m.id}` } }),
      id: m.id,
      conversation_id: m.conversation_id,
      contact: renderSender(contact),
      message: m.message,
      reactions: renderReactions(m.reactions),
      attachments: m.attachments.map((a) => ({ ...a })),
      read_at: time(m.read_at),
      created_at: time(m.created_at),
      updated_at: time(m.updated_at),
    };
  };
  const senderOf = (account: Account, m: MessageRecord): ContactRecord =>
    account.contacts.get(account.conversations.get(m.conversation_id)!)!;
  const renderCurrent = (account: Account, m: MessageRecord): Json => renderMessage(m, senderOf(account, m));

  /** Attachments from the form (`attachments[<i>][<field>]`), checked, in the server's shape;
   * ids are given only once all of them are taken. */
  const attachmentsOf = (account: Account, value: unknown): Json[] => {
    if (value === undefined) return [];
    const items = Array.isArray(value)
      ? value
      : value && typeof value === 'object'
        ? Object.values(value)
        : [value];
    const drafts = items.map((item, i): Json => {
      const param = `attachments[${i}]`;
      if (!item || typeof item !== 'object' || Array.isArray(item))
        throw invalid(
          param,
          `${param} must be an object of fields, e.g. ${param}[${strict ? 'url' : 'filename'}].`,
        );
      const fields = item as Json;
      for (const [key, field] of Object.entries(fields))
        if (typeof field !== 'string')
          throw invalid(`${param}[${key}]`, `${param}[${key}] must be a string.`);
      if (strict) return strictAttachment(param, fields as Record<string, string>);
      const get = (...keys: string[]) =>
        keys.map((k) => fields[k]).find((v): v is string => typeof v === 'string' && v !== '');
      if (o.attachments === 'as-sent') {
        if (Object.keys(fields).length === 0) throw invalid(param, `${param} has no fields.`);
        return { ...fields };
      }
      const name = get('filename', 'name');
      const url = get('file_url', 'url');
      if (!name) throw invalid(`${param}[filename]`, `${param}[filename] is required.`);
      if (!url || !/^https?:\/\//.test(url))
        throw invalid(`${param}[file_url]`, `${param}[file_url] must be an http(s) URL.`);
      const size = get('file_size', 'size');
      if (size !== undefined && !/^[0-9]+$/.test(size))
        throw invalid(`${param}[file_size]`, `${param}[file_size] must be a whole number of bytes.`);
      return {
        name,
        url,
        content_type: get('file_type', 'content_type') ?? 'application/octet-stream',
        size: size === undefined ? null : Number(size),
      };
    });
    return drafts.map((draft) => account.attachment(draft));
  };

  /** A strict attachment: `url` (absolute http(s)), and optionally name, content_type, size. */
  const strictAttachment = (param: string, fields: Record<string, string>): Json => {
    const extra = Object.keys(fields).filter((key) => !STRICT_ATTACHMENT_KEYS.includes(key));
    if (extra.length > 0)
      throw invalid(
        `${param}[${extra[0]}]`,
        `${param} takes ${STRICT_ATTACHMENT_KEYS.join(', ')}; not ${extra.join(', ')}.`,
      );
    const { url, name, content_type: contentType, size } = fields;
    if (url === undefined) throw invalid(`${param}[url]`, `${param}[url] is required.`);
    check.url(`${param}[url]`, url);
    for (const [key, field] of [
      ['name', name],
      ['content_type', contentType],
    ] as const)
      if (field === '') throw invalid(`${param}[${key}]`, `${param}[${key}] must not be empty.`);
    if (size !== undefined && !/^[0-9]+$/.test(size))
      throw invalid(`${param}[size]`, `${param}[size] must be a whole number of bytes.`);
    if (o.attachments === 'as-sent') return { ...fields };
    return {
      name: name ?? null,
      url,
      content_type: contentType ?? 'application/octet-stream',
      size: size === undefined ? null : Number(size),
    };
  };

  /** Reactions from the form (`reactions[<name>][]=<username>`, or an array of such objects). */
  const reactionsOf = (value: unknown): [string, string[]][] => {
    const objects = Array.isArray(value) ? value : [value];
    const pairs: [string, string[]][] = [];
    for (const object of objects) {
      if (!object || typeof object !== 'object' || Array.isArray(object))
        throw invalid('reactions', 'Send reactions as reactions[<name>][]=<username>.');
      for (const [name, users] of Object.entries(object as Json)) {
        const param = `reactions[${name}]`;
        if (
          o.reactionNames === 'restricted' ? !ALLOWED_RESTRICTED.includes(name) : !REACTION_NAME.test(name)
        ) {
          throw invalid(
            param,
            o.reactionNames === 'restricted'
              ? `Unknown reaction ${JSON.stringify(name)}: use ${ALLOWED_RESTRICTED.join(' or ')}.`
              : `Reaction names are lowercase letters and underscores; got ${JSON.stringify(name)}.`,
          );
        }
        if (strict && !STRICT_REACTION_NAME.test(name))
          throw invalid(
            param,
            `Reaction names are 1 to 32 of a-z, 0-9 and '_'; got ${JSON.stringify(name)}.`,
          );
        const list = Array.isArray(users) ? users : [users];
        if (list.length === 0 || list.some((u) => typeof u !== 'string' || u === ''))
          throw invalid(param, `${param}[] takes usernames.`);
        for (const user of list as string[]) check.username(user, `${param}[]`);
        pairs.push([name, list as string[]]);
      }
    }
    return pairs;
  };

  /** One page of a sorted list, by the variant's mechanism. */
  const sendPage = <T>(
    req: Request,
    res: Response,
    path: string,
    all: T[],
    keys: Key[],
    render: (item: T) => Json,
  ) => {
    const query = queryOf(req);
    const limitText = query.get('limit');
    let limit = o.defaultLimit;
    if (limitText !== null) {
      if (!/^[0-9]+$/.test(limitText) || Number(limitText) < 1)
        throw invalid('limit', `limit must be a whole number from 1 to ${MAX_LIMIT}.`);
      limit = Number(limitText);
      if (limit > MAX_LIMIT) {
        if (o.overLimit === 'refuse')
          throw invalid('limit', `limit must be a whole number from 1 to ${MAX_LIMIT}.`);
        limit = MAX_LIMIT;
      }
    }
    const whole = (param: string, min: number): number | undefined => {
      const value = query.get(param);
      if (value === null) return undefined;
      if (!/^[0-9]+$/.test(value) || Number(value) < min)
        throw invalid(param, `${param} must be a whole number of at least ${min}.`);
      return Number(value);
    };
    const cursor = (param: string): { d: 'n' | 'p'; k: Key } | undefined => {
      const value = query.get(param);
      if (value === null) return undefined;
      try {
        const c = openToken(value) as { d?: unknown; k?: unknown };
        if (
          (c.d === 'n' || c.d === 'p') &&
          Array.isArray(c.k) &&
          c.k.length === 2 &&
          c.k.every((v) => typeof v === 'string' || typeof v === 'number')
        )
          return { d: c.d, k: c.k as Key };
      } catch {
        // refused below
      }
      throw invalid(param, `${param} is not a token this server gave.`);
    };
    const encode = (d: 'n' | 'p', k: Key) =>
      sealToken({ d, k }, o.paging === 'token' ? o.tokenAlphabet : 'base64url');

    let start = 0;
    let end: number;
    const after = (k: Key) => {
      const i = keys.findIndex((key) => compareKeys(key, k) > 0);
      return i === -1 ? all.length : i;
    };
    const before = (k: Key) => {
      const i = keys.findIndex((key) => compareKeys(key, k) >= 0);
      return i === -1 ? all.length : i;
    };
    let at: { d: 'n' | 'p'; k: Key } | undefined;
    let page = 1;
    switch (o.paging) {
      case 'page':
        page = whole('page', 1) ?? 1;
        start = (page - 1) * limit;
        break;
      case 'offset':
        start = whole('offset', 0) ?? 0;
        break;
      case 'token':
        at = cursor('page_token');
        break;
      case 'link-body': {
        const a = cursor('after');
        const b = cursor('before');
        if (a && b) throw invalid('before', 'Send after or before, not both.');
        at = a ? { d: 'n', k: a.k } : b ? { d: 'p', k: b.k } : undefined;
        break;
      }
      case 'link-header':
        at = cursor('cursor');
        break;
    }
    if (at?.d === 'p') {
      end = before(at.k);
      start = Math.max(0, end - limit);
    } else {
      if (at) start = after(at.k);
      start = Math.min(start, all.length);
      end = Math.min(all.length, start + limit);
    }
    const data = all.slice(start, end).map(render);
    const hasMore = end < all.length;
    const next = hasMore && data.length > 0 ? encode('n', keys[end - 1]!) : null;
    const prev = start > 0 ? encode('p', keys[start]!) : null;
    const link = (param: string, token: string) => {
      const q = new URLSearchParams(query);
      for (const own of ['after', 'before', 'cursor']) q.delete(own);
      q.set(param, token);
      return `${path}?${q.toString()}`;
    };
    const body: Json = { ...own('list', { total_count: all.length }), has_more: hasMore, data };
    switch (o.paging) {
      case 'page':
        Object.assign(body, { page, per_page: limit });
        break;
      case 'offset':
        Object.assign(body, { offset: whole('offset', 0) ?? 0, limit, total: all.length });
        break;
      case 'token':
        Object.assign(body, { next_page_token: next, prev_page_token: prev });
        break;
      case 'link-body':
        body.links = { next: next && link('after', next), prev: prev && link('before', prev) };
        break;
      case 'link-header': {
        const origin = `${req.protocol}://${req.get('host') ?? '127.0.0.1'}`;
        const rels: string[] = [];
        if (next) rels.push(`<${origin}${link('cursor', next)}>; rel="next"`);
        if (prev) rels.push(`<${origin}${link('cursor', prev)}>; rel="prev"`);
        if (rels.length > 0) res.setHeader('Link', rels.join(', '));
        break;
      }
    }
    res.status(200).json(body);
  };

  const contactKey = (c: ContactRecord): Key =>
    o.order === 'recent'
      ? [-(c.last_active_at ?? 0), -c.seq]
      : o.order === 'hash'
        ? [fnv1a(c.id), c.id]
        : o.order === 'oldest'
          ? [c.created_at, c.seq]
          : [c.username, c.seq];
  const messageKey = (m: MessageRecord): Key =>
    o.order === 'recent'
      ? o.ties === 'older-first'
        ? [-(time(m.created_at) as number), m.seq]
        : [-m.created_at, -m.seq]
      : o.order === 'hash'
        ? [fnv1a(m.id), m.id]
        : o.order === 'oldest'
          ? [m.created_at, m.seq]
          : [m.message, m.seq];

  function sorted<T>(items: T[], keyOf: (item: T) => Key): { items: T[]; keys: Key[] } {
    const keyed = items.map((item) => ({ item, key: keyOf(item) }));
    keyed.sort((a, b) => compareKeys(a.key, b.key));
    return { items: keyed.map((k) => k.item), keys: keyed.map((k) => k.key) };
  }

  const deleted = (res: Response, id: string, rendered: Json) => {
    if (o.deleteAnswer === '200-object') res.status(200).json(rendered);
    else if (o.deleteAnswer === '202-deleted') res.status(202).json({ id, deleted: true });
    else res.status(204).end();
  };

  type Handler = (req: Request, res: Response, account: Account) => void;
  const route =
    (handler: Handler) =>
    (req: Request, res: Response): void => {
      try {
        const token = tokenOf(req);
        takeRequest(token);
        handler(req, res, accountOf(token));
      } catch (error) {
        if (error instanceof Refusal) refuse(res, error);
        else refuse(res, new Refusal(500, 'internal', 'Something went wrong on our side.'));
      }
    };
  const idParam = (req: Request) => String(req.params.id);

  app.use(express.raw({ type: () => true, limit: '100kb' }));

  const CONTACTS = `${base}/v1/contacts`;
  const MESSAGES = `${base}/v1/messages`;

  app.get(
    CONTACTS,
    route((req, res, account) => {
      const active = queryOf(req).get('active');
      const view = account.listView();
      let contacts = view.contacts;
      if (active !== null) {
        if (!['true', 'false', '1', '0'].includes(active))
          throw invalid('active', 'active is true or false.');
        const wanted = active === 'true' || active === '1';
        const now = Date.now();
        const isActive = (c: ContactRecord) =>
          o.active === 'ever'
            ? c.last_active_at !== null
            : o.active === 'recent'
              ? c.last_active_at !== null && c.last_active_at >= now - ACTIVE_WINDOW
              : (view.byConversation.get(c.conversation_id)?.length ?? 0) > 0;
        contacts = contacts.filter((c) => isActive(c) === wanted);
      }
      const { items, keys } = sorted(contacts, contactKey);
      sendPage(req, res, CONTACTS, items, keys, renderContact);
    }),
  );

  app.post(
    CONTACTS,
    route((req, res, account) => {
      const form = formOf(req);
      strictKeys(form, ['username', 'phone_number', 'avatar_url', 'display_name']);
      const username = text(form, 'username', true)!;
      const phone = text(form, 'phone_number', true)!;
      const avatar = text(form, 'avatar_url', false);
      const display = text(form, 'display_name', false);
      check.username(username);
      check.phone(phone);
      if (avatar !== undefined) check.url('avatar_url', avatar);
      if (display !== undefined) check.displayName(display);
      if (account.phone(phone) === '' || account.phone(phone) === '+')
        throw invalid('phone_number', 'phone_number must hold digits.');
      const contact = account.addContact({
        username,
        phone_number: account.phone(phone),
        avatar_url: avatar || `https://cdn.staging.example/avatars/default.png`,
        display_name: display || username,
        last_active_at: null,
        created_at: Date.now(),
      });
      res.status(o.createStatus).json(renderContact(contact));
    }),
  );

  app.get(
    `${CONTACTS}/:id`,
    route((req, res, account) => {
      res.status(200).json(renderContact(find(account, 'contact', idParam(req), account.contacts)));
    }),
  );

  app.put(
    `${CONTACTS}/:id`,
    route((req, res, account) => {
      const contact = find(account, 'contact', idParam(req), account.contacts);
      const form = formOf(req);
      strictKeys(form, ['display_name']);
      const display = text(form, 'display_name', false);
      if (display !== undefined) {
        check.displayName(display);
        // An empty display_name (loose formats) goes back to the default: the username.
        contact.display_name = display === '' ? contact.username : display;
        account.savedContact(contact);
      }
      res.status(200).json(renderContact(contact));
    }),
  );

  app.delete(
    `${CONTACTS}/:id`,
    route((req, res, account) => {
      const contact = find(account, 'contact', idParam(req), account.contacts);
      const rendered = renderContact(contact);
      account.deleteContact(contact.id);
      deleted(res, contact.id, rendered);
    }),
  );

  app.get(
    MESSAGES,
    route((req, res, account) => {
      const conversation = queryOf(req).get('conversation_id');
      const view = account.listView();
      let messages: MessageRecord[];
      if (conversation === null) {
        messages = view.messages;
      } else if (account.conversations.has(conversation) || view.conversations.has(conversation)) {
        // Live now, or still in the lists (settleMs): its messages as the lists show them.
        messages = view.byConversation.get(conversation) ?? [];
      } else {
        try {
          conversationOf(account, conversation, 'conversation_id');
        } catch (error) {
          // A deleted or unknown conversation: no messages, or refused, as the variant chooses.
          const missing = error instanceof Refusal && (error.code === 'gone' || error.code === 'not_found');
          if (!missing || o.deletedConversationList === 'refuse') throw error;
        }
        messages = [];
      }
      const { items, keys } = sorted(messages, messageKey);
      sendPage(req, res, MESSAGES, items, keys, (m) =>
        renderMessage(m, view.conversations.get(m.conversation_id)!),
      );
    }),
  );

  app.post(
    MESSAGES,
    route((req, res, account) => {
      const form = formOf(req);
      strictKeys(form, ['conversation_id', 'message', 'attachments']);
      const conversationId = text(form, 'conversation_id', true)!;
      const body = text(form, 'message', true)!;
      check.message(body);
      const contact = conversationOf(account, conversationId, 'conversation_id');
      const attachments = attachmentsOf(account, form.attachments);
      const now = Date.now();
      const message = account.addMessage({
        conversation_id: conversationId,
        message: body,
        reactions: new Map(),
        attachments,
        read_at: null,
        created_at: now,
        updated_at: null,
      });
      if (o.touchOnMessage) {
        contact.last_active_at = now;
        account.savedContact(contact, now);
      }
      res.status(o.createStatus).json(renderCurrent(account, message));
    }),
  );

  app.get(
    `${MESSAGES}/:id`,
    route((req, res, account) => {
      const message = find(account, 'message', idParam(req), account.messages);
      if (o.readOnRetrieve && message.read_at === null) {
        message.read_at = Date.now();
        account.savedMessage(message);
      }
      res.status(200).json(renderCurrent(account, message));
    }),
  );

  app.put(
    `${MESSAGES}/:id`,
    route((req, res, account) => {
      const message = find(account, 'message', idParam(req), account.messages);
      const form = formOf(req);
      strictKeys(form, ['message', 'reactions', 'attachments']);
      // Everything is checked before anything changes.
      const body = form.message === undefined ? undefined : text(form, 'message', true);
      if (body !== undefined) check.message(body);
      const reactions = form.reactions === undefined ? [] : reactionsOf(form.reactions);
      const attachments = attachmentsOf(account, form.attachments);
      let changed = false;
      if (body !== undefined) {
        message.message = body;
        changed = true;
      }
      for (const [name, users] of reactions) {
        const list = message.reactions.get(name) ?? [];
        for (const user of users) {
          if (o.repeatedReaction === 'once' && list.includes(user)) continue;
          list.push(user);
        }
        message.reactions.set(name, list);
        changed = true;
      }
      if (attachments.length > 0) {
        message.attachments.push(...attachments);
        changed = true;
      }
      if (changed) {
        message.updated_at = Date.now();
        account.savedMessage(message);
      }
      res.status(200).json(renderCurrent(account, message));
    }),
  );

  app.delete(
    `${MESSAGES}/:id`,
    route((req, res, account) => {
      const message = find(account, 'message', idParam(req), account.messages);
      const rendered = renderCurrent(account, message);
      account.deleteMessage(message.id);
      deleted(res, message.id, rendered);
    }),
  );

  const escaped = base.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const ALLOWED: [RegExp, string][] = [
    [new RegExp(`^${escaped}/v1/(contacts|messages)/?$`), 'GET, HEAD, POST'],
    [new RegExp(`^${escaped}/v1/(contacts|messages)/[^/]+/?$`), 'GET, HEAD, PUT, DELETE'],
  ];
  app.use((req: Request, res: Response) => {
    const allowed = ALLOWED.find(([pattern]) => pattern.test(req.path));
    if (allowed) {
      res.setHeader('Allow', allowed[1]);
      refuse(
        res,
        new Refusal(405, 'method_not_allowed', `${req.method} is not allowed here; use ${allowed[1]}.`),
      );
    } else {
      refuse(res, new Refusal(404, 'not_found', `No endpoint at ${req.method} ${req.path}.`));
    }
  });

  // Bodies that cannot be read (too large, cut short).
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: number }).status;
    if (status === 413) refuse(res, new Refusal(413, 'body_too_large', 'Bodies are at most 100 kB.'));
    else if (status && status >= 400 && status < 500)
      refuse(res, new Refusal(400, 'unreadable_body', 'The body could not be read.'));
    else refuse(res, new Refusal(500, 'internal', 'Something went wrong on our side.'));
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  if (o.flakyEdge) closeIdleSoon(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
