/**
 * A server profile: the choices a server made where the Messaging API document says "not shown",
 * as the contract kit observed them (`messaging-contract --profile-out FILE`), and as the mock takes
 * them on (`messaging-mock --conventions FILE`). The file's format, shared by both packages as a wire
 * format is: the kit writes it and never reads the mock, the mock reads it and never runs the kit.
 * Its JSON Schema is `server-profile.schema.json` beside this file; `docs/twin.md` explains it.
 *
 * Every choice is an `Observed`: the value with the exchange that showed it, or `unknown` with the
 * reason the run could not tell (a rule not run, an answer that said nothing about it).
 */
import type { ValueForm } from './value-forms';

export const PROFILE_VERSION = 1;

export type Observed<T> = { value: T; seen: string } | { unknown: string };

export const OPERATIONS = [
  'contacts.list',
  'contacts.create',
  'contacts.retrieve',
  'contacts.update',
  'contacts.delete',
  'messages.list',
  'messages.create',
  'messages.retrieve',
  'messages.update',
  'messages.delete',
] as const;
export type Operation = (typeof OPERATIONS)[number];

export const ID_KINDS = ['contact', 'message', 'conversation'] as const;
export type IdKind = (typeof ID_KINDS)[number];

export interface IdFormat {
  /**
   * The smallest alphabet that holds every id seen after its prefix: `numeric` digits (a JSON
   * number or a string of digits) ⊂ `hex` [0-9a-f] ⊂ `alphanumeric` [A-Za-z0-9]; `uuid` 8-4-4-4-12
   * hex; `other` anything else (or UUIDs beside ids of another form).
   */
  kind: 'numeric' | 'hex' | 'uuid' | 'alphanumeric' | 'other';
  /** A lower-case prefix with an underscore (`msg_`), or ''. */
  prefix: string;
  /** Whether the id is a JSON number (numeric ids only). */
  json: 'string' | 'number';
  /** The length after the prefix, when every id seen had the same one (not of UUIDs). */
  length?: number;
  /** The shortest and the longest length after the prefix, when the ids seen differed in length. */
  minLength?: number;
  maxLength?: number;
  /** The version digit of UUIDs, when every one seen had the same. */
  version?: number;
}

export interface DeleteAnswer {
  status: number;
  /** `empty`: no body; `object`: the deleted record; `marker`: an object of other keys (e.g. `{id, deleted}`). */
  body: 'empty' | 'object' | 'marker';
  /** The keys of a marker body. */
  keys?: string[];
}

export interface ListOrder {
  /** The field the list is sorted by; null when no field explains the order seen. */
  field: 'created_at' | 'username' | 'display_name' | 'message' | 'id' | null;
  direction?: 'asc' | 'desc';
  /**
   * Of records with the same created_at (a list by created_at): the older first (insertion order)
   * or the newer, as pages showed records the run created; absent when none showed.
   */
  ties?: 'older-first' | 'newer-first';
}

export interface Paging {
  /**
   * `after-id`: `param=<id of the last item>`; `page`: `param=<n>` counted from 1; `offset`:
   * `param=<items so far>`; `body-token`: `param=<the body's bodyKey>`; `body-url`: a next-page
   * URL in the body's `bodyKey` (`links.next` for a nested key); `link-header`: RFC 8288
   * `Link: <…>; rel="next"`.
   */
  kind: 'after-id' | 'page' | 'offset' | 'body-token' | 'body-url' | 'link-header';
  param?: string;
  bodyKey?: string;
}

export interface LimitBounds {
  /** Items on a page asked for without `limit`, when the list was longer. */
  default: number;
  /** The largest `limit` taken as asked, when a larger one was refused or cut. */
  max?: number;
  /** What a `limit` over the maximum gets: refused (4xx), or cut to the maximum. */
  overMax?: 'refuse' | 'clamp';
}

export interface ErrorBody {
  /** The answer's content type, without parameters (`application/json`, `application/problem+json`). */
  contentType: string;
  /** Where the human message sits, as a path (`message`, `error.message`, `errors.0.detail`). */
  messageAt: string;
  /** Where a machine code sits, when there is one (`code`, `errors.0.code`). */
  codeAt?: string;
  /** The keys of the top-level object, sorted: the shape at a glance. */
  keys: string[];
  /**
   * Where the message sits in an object of its own (`error.message`, `errors.0.detail`): the keys
   * of that object in any refusal seen, sorted (`message`, `param`, `status`).
   */
  placeKeys?: string[];
}

export interface AvatarDefault {
  /** What a contact created without `avatar_url` gets. */
  kind: 'null' | 'empty' | 'url' | 'absent';
  /** For `url`: the URL seen with the username replaced by `{username}` where it appeared. */
  template?: string;
}

export interface Attachments {
  /** The keys the server took for one attachment sent (e.g. `url`, `name`; or `file_url`, `filename`). */
  sent: string[];
  /** The keys of an attachment as answered, sorted. */
  answered: string[];
}

/**
 * How a server fills a field the document does not list (a leaf, `links.self`), as the kit could
 * explain it from every answer that carried it: `constant` the one value every answer held; `self`
 * the record's own URL, `{origin}` and `{id}` in a template; `copy` another field of the record;
 * `param` the request's parameter (`page`, `limit` as in force), `absent` when it was not sent;
 * `count` the items of the whole list; `prev` the previous page (a token or URL as the paging
 * goes; null on a first page); `param-refused` the parameter a refusal is about; `status` the
 * refusal's status; `example` a value seen, that nothing explained.
 */
export type OwnField = { path: string } & (
  | { as: 'constant'; value: unknown }
  | { as: 'self'; template: string }
  | { as: 'copy'; of: string }
  | { as: 'param'; param: string; absent: unknown }
  | { as: 'count' }
  | { as: 'prev' }
  | { as: 'param-refused' }
  | { as: 'status' }
  | { as: 'example'; value: unknown }
);

/** The fields beyond the document of each kind of answer: records, a list's page, a refusal. */
export interface OwnFields {
  contact: OwnField[];
  message: OwnField[];
  page: OwnField[];
  error: OwnField[];
}

export interface ServerProfile {
  $schema?: string;
  version: typeof PROFILE_VERSION;
  /** Where and when it was observed, and by which kit. */
  server: { baseUrl: string; pathPrefix: string; observedAt: string; by: string };
  /** The content type of a successful JSON answer, without parameters. */
  contentType: Observed<string>;
  successStatus: Record<Operation, Observed<number>>;
  deleteAnswer: Record<'contacts' | 'messages', Observed<DeleteAnswer>>;
  ids: Record<IdKind, Observed<IdFormat>>;
  timestampUnit: Observed<'seconds' | 'milliseconds' | 'microseconds'>;
  order: Record<'contacts' | 'messages', Observed<ListOrder>>;
  paging: Observed<Paging>;
  limit: Observed<LimitBounds>;
  errors: {
    body: Observed<ErrorBody>;
    status: {
      unknownId: Observed<number>;
      /** A retrieve of a record the run deleted (absent from profiles written before it: unknown). */
      deletedId?: Observed<number>;
      /**
       * A retrieve of an id not of the form of the server's ids (the kit's made-up
       * `zz0unknown0contact0id`): a server that checks the form refuses it apart from an unknown id
       * (absent from profiles written before it).
       */
      malformedId?: Observed<number>;
      missingParameter: Observed<number>;
      invalidLimit: Observed<number>;
      missingToken: Observed<number>;
    };
  };
  avatarDefault: Observed<AvatarDefault>;
  reactions: Observed<{ layout: 'per-name' | 'merged' }>;
  attachments: Observed<Attachments>;
  /**
   * The reaction names the kit sent alone in an update, those the server took and those it refused
   * (never taken); absent from profiles written before it.
   */
  reactionNames?: Observed<{ taken: string[]; refused: string[] }>;
  /**
   * Whether the server reads a JSON body as it reads a form, or refuses it (with this status);
   * absent from profiles written before it.
   */
  jsonBodies?: Observed<{ taken: true } | { taken: false; status: number }>;
  /** Absent from profiles written before it. */
  ownFields?: Observed<OwnFields>;
  /**
   * Whether sending a message sets its contact's last_active_at to the message's created_at, as
   * the send's answer shows it (absent from profiles written before it).
   */
  touchOnSend?: Observed<boolean>;
  /** Absent from profiles written before it. */
  inputRules?: Observed<InputRules>;
}

/**
 * The values the server refused that the kit can state as rules, by field (`contacts.username`,
 * `messages.message`), each sent field: the longest value taken, the longest it takes where the kit
 * found the limit to the character, and the forms (common/value-forms.ts) it refused and never took.
 */
export interface InputRules {
  fields: Record<string, { longestTaken?: number; maxLength?: number; refused: ValueForm[] }>;
  /** The status of a refused value (the first refusal seen), when any was refused. */
  status?: number;
  /** What the server refused that the kit cannot state as a rule, in words. */
  notStated: string[];
}

export const isKnown = <T>(observed: Observed<T> | undefined): observed is { value: T; seen: string } =>
  observed !== undefined && 'value' in observed;
