import { MAX_URL_LENGTH } from '../input/params';
import { DISPLAY_NAME, MESSAGE_TEXT, PHONE_NUMBER, REACTION_NAME, USERNAME } from '../resources/formats';
import { RULED_FIELDS, VALUE_FORMS, type ValueForm } from './value-forms.generated';

/**
 * A server profile as the mock reads it (`--conventions FILE`, the `conventions` option): the
 * choices a real server made where the document says "not shown", observed by the contract kit
 * (`messaging-contract --profile-out`). The file's format is the kit's; the mock keeps its own
 * reading of it here (src/ never imports the kit), takes the choices it can mirror and says which
 * it cannot. Every choice is `{value, seen}` or `{unknown}`; an unknown choice keeps the mock's own.
 */

export interface Conventions {
  pathPrefix: string;
  ids: Partial<Record<'contact' | 'message' | 'conversation', IdFormat>>;
  contentType?: string;
  successStatus: Partial<Record<Operation, number>>;
  deleteAnswer: Partial<Record<Kind, DeleteAnswer>>;
  timestampUnit?: 'seconds' | 'milliseconds' | 'microseconds';
  order: Partial<Record<Kind, ListOrder>>;
  paging?: Paging;
  limit?: { default: number; max?: number; overMax?: 'refuse' | 'clamp' };
  errorBody?: {
    contentType: string;
    messageAt: string;
    codeAt?: string;
    keys: string[];
    /** The keys beside a message nested in an object of its own (`error.status`), that the twin fills. */
    placeKeys?: string[];
  };
  errorStatus: Partial<Record<ErrorCase, number>>;
  avatarDefault?: { kind: 'null' | 'empty' | 'url' | 'absent'; template?: string };
  reactionsLayout?: 'per-name' | 'merged';
  attachments?: { sent: string[]; answered: string[] };
  /**
   * The fields the server adds to records, pages and refusals, and how the twin fills each; a
   * message's `contact.…` ones are its sender's (`sender`, their paths inside the contact).
   */
  ownFields?: Record<OwnWhere | 'sender', OwnField[]>;
  /** A sent message sets its contact's last_active_at to its created_at. */
  touchOnSend?: boolean;
  /** The server reads forms, and refuses a JSON body (with `errorStatus.refusedBody`). */
  refusesJson?: boolean;
  /** The only reaction names the server takes, when it refused some the kit tried. */
  reactionNames?: string[];
  /**
   * The values the server refuses (with `errorStatus.refusedValue`), by resource and parameter:
   * longer than `maxLength` characters, or of a form it refused and never took.
   */
  inputRules?: Partial<Record<Kind, Record<string, { maxLength?: number; refused: ValueForm[] }>>>;
  /** Texts the server takes longer than the mock's own limits (C14), by resource and parameter. */
  longest?: Partial<Record<Kind, Record<string, number>>>;
}

/**
 * A field beyond the document, as the kit explained it (the profile's `ownFields`): a constant,
 * the record's own URL (`self`), a copy of one of its fields, the request's parameter, the items
 * of the whole list, the previous page, the parameter a refusal is about, or an example value.
 */
export type OwnField = { path: string } & (
  | { as: 'constant' | 'example'; value: unknown }
  | { as: 'self'; template: string }
  | { as: 'copy'; of: string }
  | { as: 'param'; param: string; absent: unknown }
  | { as: 'count' | 'prev' | 'param-refused' | 'status' }
);
type OwnWhere = 'contact' | 'message' | 'page' | 'error';
const OWN_AS = [
  'constant',
  'example',
  'self',
  'copy',
  'param',
  'count',
  'prev',
  'param-refused',
  'status',
] as const;

export type Kind = 'contacts' | 'messages';
export interface IdFormat {
  kind: 'numeric' | 'hex' | 'uuid' | 'alphanumeric';
  prefix: string;
  /** The length after the prefix, or the range of lengths (not of UUIDs). */
  length?: number;
  minLength?: number;
  maxLength?: number;
  /** The version digit of UUIDs. */
  version?: number;
}

const ID_LENGTH_MAX = 60;
type Operation = `${Kind}.${'list' | 'create' | 'retrieve' | 'update' | 'delete'}`;
/** The refusals a profile gives a status: `deletedId` is an id that named a record a delete took. */
export type ErrorCase =
  | 'unknownId'
  | 'deletedId'
  | 'malformedId'
  | 'refusedBody'
  | 'missingParameter'
  | 'invalidLimit'
  | 'refusedValue'
  | 'missingToken';
interface DeleteAnswer {
  status: number;
  body: 'empty' | 'object' | 'marker';
  keys?: string[];
}
interface ListOrder {
  field: 'created_at' | 'username' | 'display_name' | 'message' | 'id' | null;
  direction?: 'asc' | 'desc';
  /** Of records with the same created_at: the older first, or the newer. */
  ties?: 'older-first' | 'newer-first';
}
export interface Paging {
  kind: 'after-id' | 'page' | 'offset' | 'body-token' | 'body-url' | 'link-header';
  param?: string;
  bodyKey?: string;
}

/** What the mock took from a profile, and what it could not mirror (each with its reason). */
export interface ReadProfile {
  conventions: Conventions;
  taken: string[];
  notMirrored: string[];
}

const OPERATIONS: Operation[] = (['contacts', 'messages'] as const).flatMap((kind) =>
  (['list', 'create', 'retrieve', 'update', 'delete'] as const).map((op) => `${kind}.${op}` as Operation),
);

/** A profile that cannot be read: names the field at fault. */
export class ProfileError extends Error {
  constructor(field: string, why: string) {
    super(`the server profile's ${field} ${why}`);
    this.name = 'ProfileError';
  }
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The value of an observed choice; undefined when unknown. Throws on anything else. */
function observed(profile: Json, path: string): unknown {
  let at: unknown = profile;
  // Operation names hold a dot themselves (successStatus.contacts.list).
  const [head, ...rest] = path.split('.');
  const keys = head === 'successStatus' ? [head, rest.join('.')] : [head!, ...rest];
  for (const key of keys) at = isObject(at) ? at[key] : undefined;
  if (at === undefined) return undefined;
  if (!isObject(at)) throw new ProfileError(path, 'must be {"value": …, "seen": …} or {"unknown": …}');
  if ('unknown' in at) return undefined;
  if (!('value' in at)) throw new ProfileError(path, 'has neither "value" nor "unknown"');
  return at.value;
}

function oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T))
    throw new ProfileError(path, `must be one of ${allowed.join(', ')}`);
  return value as T;
}

function status(value: unknown, path: string, min: number, max: number): number | undefined {
  return value === undefined ? undefined : whole(value, path, min, max, 'an HTTP status');
}

function strings(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
    throw new ProfileError(path, 'must be a list of strings');
  return value as string[];
}

function text(value: unknown, path: string): string {
  if (typeof value !== 'string' || value === '') throw new ProfileError(path, 'must be a non-empty string');
  return value;
}

/** Reads a parsed profile file; throws a ProfileError naming the field at fault. */
export function readProfile(profile: unknown): ReadProfile {
  if (!isObject(profile)) throw new ProfileError('file', 'must hold a JSON object');
  if (profile.version !== 1)
    throw new ProfileError('version', `must be 1, got ${JSON.stringify(profile.version)}`);
  const taken: string[] = [];
  const notMirrored: string[] = [];
  const c: Conventions = {
    pathPrefix: '',
    ids: {},
    successStatus: {},
    deleteAnswer: {},
    order: {},
    errorStatus: {},
  };
  const server = isObject(profile.server) ? profile.server : {};
  if (server.pathPrefix !== undefined && server.pathPrefix !== '') {
    if (typeof server.pathPrefix !== 'string' || !/^(\/[A-Za-z0-9._~-]+)+$/.test(server.pathPrefix))
      throw new ProfileError('server.pathPrefix', 'must be a path such as /api');
    c.pathPrefix = server.pathPrefix;
    taken.push(`the API under ${c.pathPrefix}/v1`);
  }
  const type = observed(profile, 'contentType');
  if (type !== undefined) {
    c.contentType = text(type, 'contentType');
    taken.push(`answers of type ${c.contentType}`);
  }
  for (const op of OPERATIONS) {
    const value = status(observed(profile, `successStatus.${op}`), `successStatus.${op}`, 200, 299);
    if (value !== undefined) c.successStatus[op] = value;
  }
  taken.push(
    `success statuses ${OPERATIONS.filter((op) => c.successStatus[op] !== undefined)
      .map((op) => `${op} ${c.successStatus[op]}`)
      .join(', ')}`,
  );
  for (const kind of ['contacts', 'messages'] as const) {
    const path = `deleteAnswer.${kind}`;
    const value = observed(profile, path);
    if (value === undefined) continue;
    if (!isObject(value)) throw new ProfileError(path, 'must be an object');
    const answer: DeleteAnswer = {
      status: status(value.status, `${path}.status`, 200, 299)!,
      body: oneOf(value.body, `${path}.body`, ['empty', 'object', 'marker'] as const)!,
    };
    if (answer.status === undefined || answer.body === undefined)
      throw new ProfileError(path, 'needs status and body');
    if (answer.body === 'marker') answer.keys = strings(value.keys, `${path}.keys`);
    if (answer.status === 204 && answer.body !== 'empty')
      throw new ProfileError(path, 'cannot have a body with 204');
    c.deleteAnswer[kind] = answer;
    taken.push(
      `a delete of ${kind} answered ${answer.status} ${answer.body === 'marker' ? `{${answer.keys!.join(', ')}}` : answer.body === 'object' ? 'with the deleted record' : 'with no body'}`,
    );
  }
  c.timestampUnit = oneOf(observed(profile, 'timestampUnit'), 'timestampUnit', [
    'seconds',
    'milliseconds',
    'microseconds',
  ] as const);
  if (c.timestampUnit) taken.push(`timestamps in Unix ${c.timestampUnit}`);
  for (const kind of ['contacts', 'messages'] as const) {
    const path = `order.${kind}`;
    const value = observed(profile, path);
    if (value === undefined) continue;
    if (!isObject(value)) throw new ProfileError(path, 'must be an object');
    const field =
      value.field === null
        ? null
        : oneOf(value.field, `${path}.field`, [
            'created_at',
            'username',
            'display_name',
            'message',
            'id',
          ] as const)!;
    if (field === null) {
      c.order[kind] = { field: null };
      taken.push(`${kind} in an order no field explains (by a hash of the id)`);
      continue;
    }
    if (field === 'message' && kind === 'contacts')
      throw new ProfileError(path, 'cannot order contacts by message');
    if ((field === 'username' || field === 'display_name') && kind === 'messages')
      throw new ProfileError(path, `cannot order messages by ${field}`);
    const direction = oneOf(value.direction ?? 'asc', `${path}.direction`, ['asc', 'desc'] as const)!;
    const ties =
      field === 'created_at'
        ? oneOf(value.ties, `${path}.ties`, ['older-first', 'newer-first'] as const)
        : undefined;
    c.order[kind] = { field, direction, ...(ties ? { ties } : {}) };
    taken.push(
      `${kind} listed by ${field} ${direction === 'asc' ? 'ascending' : 'descending'}${ties ? `, ties ${ties === 'older-first' ? 'the older first' : 'the newer first'}` : ''}`,
    );
  }
  const paging = observed(profile, 'paging');
  if (paging !== undefined) {
    if (!isObject(paging)) throw new ProfileError('paging', 'must be an object');
    const kind = oneOf(paging.kind, 'paging.kind', [
      'after-id',
      'page',
      'offset',
      'body-token',
      'body-url',
      'link-header',
    ] as const)!;
    const p: Paging = { kind };
    if (kind === 'after-id' || kind === 'page' || kind === 'offset' || kind === 'body-token')
      p.param = text(paging.param, 'paging.param');
    if (kind === 'body-token' || kind === 'body-url') p.bodyKey = text(paging.bodyKey, 'paging.bodyKey');
    if (p.param !== undefined && !/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(p.param))
      throw new ProfileError('paging.param', 'must be a parameter name');
    if (p.bodyKey !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(p.bodyKey))
      throw new ProfileError('paging.bodyKey', 'must be a key, or two joined by a dot');
    c.paging = p;
    taken.push(`paging by ${describePaging(p)}`);
  }
  const limit = observed(profile, 'limit');
  if (limit !== undefined) {
    if (!isObject(limit)) throw new ProfileError('limit', 'must be an object');
    const size = (value: unknown, path: string) => {
      if (value === undefined) return undefined;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 1000)
        throw new ProfileError(path, 'must be a whole number from 1 to 1000');
      return value;
    };
    c.limit = { default: size(limit.default, 'limit.default') ?? 10 };
    if (c.limit.default > 10)
      throw new ProfileError('limit.default', 'must be at most 10 (the document: ten at most)');
    const max = size(limit.max, 'limit.max');
    if (max !== undefined) c.limit.max = max;
    const over = oneOf(limit.overMax, 'limit.overMax', ['refuse', 'clamp'] as const);
    if (over !== undefined) c.limit.overMax = over;
    taken.push(
      `pages of ${c.limit.default} by default${max ? `, limit at most ${max} (${over ?? 'refuse'} above)` : ''}`,
    );
  }
  const body = observed(profile, 'errors.body');
  if (body !== undefined) {
    if (!isObject(body)) throw new ProfileError('errors.body', 'must be an object');
    c.errorBody = {
      contentType: text(body.contentType, 'errors.body.contentType'),
      messageAt: path(body.messageAt, 'errors.body.messageAt'),
      keys: strings(body.keys, 'errors.body.keys'),
    };
    if (body.codeAt !== undefined) c.errorBody.codeAt = path(body.codeAt, 'errors.body.codeAt');
    if (body.placeKeys !== undefined) {
      const place = c.errorBody.messageAt.split('.').slice(0, -1).join('.');
      const beside = strings(body.placeKeys, 'errors.body.placeKeys');
      const own = new Set([c.errorBody.messageAt, c.errorBody.codeAt].map((at) => at?.split('.').at(-1)));
      c.errorBody.placeKeys = beside.filter((key) => own.has(key) || errorKeyOf(key));
      const left = beside.filter((key) => !own.has(key) && !errorKeyOf(key));
      if (left.length > 0)
        notMirrored.push(
          `the error body's ${left.map((key) => `${place}.${key}`).join(', ')}: the twin cannot tell what the server puts there`,
        );
    }
    taken.push(
      `error bodies of type ${c.errorBody.contentType}, the message at ${c.errorBody.messageAt}${c.errorBody.codeAt ? `, the code at ${c.errorBody.codeAt}` : ''}`,
    );
  }
  for (const error of [
    'unknownId',
    'deletedId',
    'malformedId',
    'missingParameter',
    'invalidLimit',
    'missingToken',
  ] as const) {
    const value = status(observed(profile, `errors.status.${error}`), `errors.status.${error}`, 400, 499);
    if (value !== undefined) c.errorStatus[error] = value;
  }
  if (Object.keys(c.errorStatus).length > 0)
    taken.push(
      `error statuses ${Object.entries(c.errorStatus)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
  const avatar = observed(profile, 'avatarDefault');
  if (avatar !== undefined) {
    if (!isObject(avatar)) throw new ProfileError('avatarDefault', 'must be an object');
    const kind = oneOf(avatar.kind, 'avatarDefault.kind', ['null', 'empty', 'url', 'absent'] as const)!;
    // The documented rules still hold: avatar_url is a string (§2.1).
    if (kind === 'null' || kind === 'absent')
      notMirrored.push(
        `a contact created without avatar_url gets ${kind === 'null' ? 'null' : 'no avatar_url'}: the document makes avatar_url a string, so the mock keeps its own default`,
      );
    else {
      c.avatarDefault = { kind };
      if (kind === 'url') c.avatarDefault.template = text(avatar.template, 'avatarDefault.template');
      taken.push(
        `a contact created without avatar_url gets ${kind === 'url' ? c.avatarDefault.template : 'an empty string'}`,
      );
    }
  }
  const reactions = observed(profile, 'reactions');
  if (reactions !== undefined) {
    c.reactionsLayout = oneOf(isObject(reactions) ? reactions.layout : undefined, 'reactions.layout', [
      'per-name',
      'merged',
    ] as const);
    taken.push(
      `reactions ${c.reactionsLayout === 'merged' ? 'merged in one object' : 'one object per name'}`,
    );
  }
  const attachments = observed(profile, 'attachments');
  if (attachments !== undefined) {
    if (!isObject(attachments)) throw new ProfileError('attachments', 'must be an object');
    c.attachments = {
      sent: strings(attachments.sent, 'attachments.sent'),
      answered: strings(attachments.answered, 'attachments.answered'),
    };
    if (!c.attachments.sent.some((key) => /url/i.test(key)))
      throw new ProfileError('attachments.sent', 'must hold the key of the file URL');
    taken.push(
      `attachments sent as {${c.attachments.sent.join(', ')}} and answered as {${c.attachments.answered.join(', ')}}`,
    );
  }
  const bodies = observed(profile, 'jsonBodies');
  if (bodies !== undefined) {
    if (!isObject(bodies) || typeof bodies.taken !== 'boolean')
      throw new ProfileError('jsonBodies', 'must be {"taken": true} or {"taken": false, "status": …}');
    if (!bodies.taken) {
      c.refusesJson = true;
      c.errorStatus.refusedBody = status(bodies.status, 'jsonBodies.status', 400, 499) ?? 415;
      taken.push(`JSON bodies refused (${c.errorStatus.refusedBody}): forms only`);
    }
  }
  const names = observed(profile, 'reactionNames');
  if (names !== undefined) {
    if (!isObject(names)) throw new ProfileError('reactionNames', 'must be an object');
    const took = strings(names.taken, 'reactionNames.taken');
    const refused = strings(names.refused, 'reactionNames.refused');
    if (closedNames(took, refused)) {
      c.reactionNames = took;
      taken.push(
        `reaction names ${c.reactionNames.join(', ') || '(none)'} only (the server refused ${refused.join(', ')})`,
      );
    }
  }
  const touch = observed(profile, 'touchOnSend');
  if (touch !== undefined) {
    if (typeof touch !== 'boolean') throw new ProfileError('touchOnSend', 'must be true or false');
    if (touch) {
      c.touchOnSend = true;
      taken.push("a sent message sets its contact's last_active_at");
    }
  }
  const own = observed(profile, 'ownFields');
  if (own !== undefined) {
    const read = readOwnFields(own, c.errorBody);
    const said = (['contact', 'message', 'page', 'error'] as const)
      .filter((where) => read[where].length > 0)
      .map(
        (where) => `${where === 'page' ? 'pages' : `${where}s`}: ${read[where].map(ownInWords).join(', ')}`,
      );
    if (said.length > 0) taken.push(`the server's own fields, on ${said.join('; ')}`);
    const sender = (field: OwnField) => field.path.startsWith('contact.');
    c.ownFields = {
      ...read,
      message: read.message.filter((field) => !sender(field)),
      sender: read.message
        .filter(sender)
        .map((field) => ({ ...field, path: field.path.slice('contact.'.length) })),
    };
  }
  for (const kind of ['contact', 'message', 'conversation'] as const) {
    const where = `ids.${kind}`;
    const value = observed(profile, where);
    if (value === undefined) continue;
    if (!isObject(value)) throw new ProfileError(where, 'must be an object');
    const format = oneOf(value.kind, `${where}.kind`, [
      'numeric',
      'hex',
      'uuid',
      'alphanumeric',
      'other',
    ] as const)!;
    const prefix = value.prefix ?? '';
    if (typeof prefix !== 'string' || !/^([a-z]+_)?$/.test(prefix))
      throw new ProfileError(`${where}.prefix`, 'must be lower-case letters and an underscore, or empty');
    if (format === 'other' || value.json === 'number') {
      notMirrored.push(
        `the ${kind} id format (${format === 'other' ? 'other characters' : 'JSON numbers'}): ${kind} ids keep the mock's format`,
      );
      continue;
    }
    const id: IdFormat = { kind: format, prefix };
    if (format === 'uuid') {
      if (value.version !== undefined) id.version = whole(value.version, `${where}.version`, 0, 15);
    } else {
      const given = (key: 'length' | 'minLength' | 'maxLength') =>
        value[key] === undefined ? undefined : whole(value[key], `${where}.${key}`, 1, ID_LENGTH_MAX);
      const exact = given('length');
      const min = exact ?? given('minLength');
      const max = exact ?? given('maxLength');
      if ((min === undefined) !== (max === undefined) || (min !== undefined && max! < min))
        throw new ProfileError(`${where}.minLength`, 'must come with maxLength, and be no greater');
      // A short length (a counter's `1001`) is kept: a world that outgrows it gets longer ids, as
      // a counter does (src/twin/ids.ts).
      if (min === undefined) id.length = format === 'alphanumeric' ? 16 : 12;
      else if (min === max) id.length = min;
      else Object.assign(id, { minLength: min, maxLength: max });
    }
    c.ids[kind] = id;
    taken.push(`${kind} ids ${prefix ? `"${prefix}" + ` : ''}${idInWords(id)}`);
  }
  const rules = observed(profile, 'inputRules');
  if (rules !== undefined) readInputRules(rules, c, taken, notMirrored);
  notMirrored.push(
    rules === undefined
      ? "the server's input formats (which phone numbers, usernames, URLs it refuses): the mock takes what the document allows"
      : 'a value of a form the kit did not try: the mock takes it where the document allows it',
    'a delay before lists show a write, a rate limit, TLS, and ids shared across kinds',
  );
  return { conventions: c, taken, notMirrored };
}

/** A form as a refusal says it: "left empty", "with spaces inside". */
export const formInWords = (form: ValueForm): string => (form === 'empty' ? 'left empty' : `with ${form}`);

/** The mock's own longest values (C14), which a twin keeps. */
const OWN_LIMITS: Record<string, number> = {
  'contacts.username': USERNAME.max,
  'contacts.display_name': DISPLAY_NAME.max,
  'contacts.phone_number': PHONE_NUMBER.max,
  'contacts.avatar_url': MAX_URL_LENGTH,
  'messages.message': MESSAGE_TEXT.max,
};

/** The profile's inputRules, checked: what the twin refuses, and what the kit could not state. */
function readInputRules(value: unknown, c: Conventions, taken: string[], notMirrored: string[]): void {
  if (!isObject(value) || !isObject(value.fields))
    throw new ProfileError('inputRules', 'must be an object with "fields"');
  const [said, longer]: string[][] = [[], []];
  for (const [field, rule] of Object.entries(value.fields)) {
    const at = `inputRules.fields.${field}`;
    const [kind, name] = field.split('.') as [Kind, string];
    if (!(RULED_FIELDS[kind] as readonly string[] | undefined)?.includes(name))
      throw new ProfileError(
        at,
        `must name a parameter of ${Object.keys(RULED_FIELDS).join(' or ')} the rules are about`,
      );
    if (!isObject(rule)) throw new ProfileError(at, 'must be an object');
    const refused = strings(rule.refused ?? [], `${at}.refused`);
    const unknown = refused.filter((form) => !(form in VALUE_FORMS));
    if (unknown.length > 0)
      notMirrored.push(`${field} of the forms ${unknown.join(', ')}: unknown to this mock`);
    const forms = refused.filter((form): form is ValueForm => form in VALUE_FORMS);
    const maxLength =
      rule.maxLength === undefined ? undefined : whole(rule.maxLength, `${at}.maxLength`, 0, 1e7);
    const longestTaken =
      rule.longestTaken === undefined ? undefined : whole(rule.longestTaken, `${at}.longestTaken`, 0, 1e7);
    // What the server takes: up to its limit, or at least the longest it took. Beyond the mock's
    // own, a twin takes it too (src/input/operations.ts writeReaders), but for a URL.
    const longest = maxLength ?? longestTaken;
    const own = OWN_LIMITS[field];
    if (longest !== undefined && own !== undefined && longest > own) {
      if (name === 'avatar_url')
        notMirrored.push(
          `${field} of ${own + 1} to ${longest} characters, which the server took: the mock takes at most ${own}`,
        );
      else {
        ((c.longest ??= {})[kind] ??= {})[name] = longest;
        longer.push(`${field} up to ${longest} characters (the mock's own limit: ${own})`);
      }
    }
    if (maxLength === undefined && forms.length === 0) continue;
    ((c.inputRules ??= {})[kind] ??= {})[name] = {
      ...(maxLength === undefined ? {} : { maxLength }),
      refused: forms,
    };
    said.push(
      `${field} ${[...(maxLength === undefined ? [] : [`longer than ${maxLength} characters`]), ...forms.map(formInWords)].join(' or ')}`,
    );
  }
  if (said.length > 0) {
    c.errorStatus.refusedValue = status(value.status, 'inputRules.status', 400, 499) ?? 400;
    taken.push(`values refused (${c.errorStatus.refusedValue}): ${said.join('; ')}`);
  }
  if (longer.length > 0) taken.push(`longer texts taken: ${longer.join('; ')}`);
  for (const line of Array.isArray(value.notStated) ? value.notStated : [])
    if (typeof line === 'string') notMirrored.push(`${line} (the kit could not state it as a rule)`);
}

/** The profile's ownFields, checked; an error's fields that the twin fills by their name are its own. */
function readOwnFields(value: unknown, errorBody: Conventions['errorBody']): Record<OwnWhere, OwnField[]> {
  if (!isObject(value)) throw new ProfileError('ownFields', 'must be an object');
  const read = {} as Record<OwnWhere, OwnField[]>;
  const named = new Set(errorBody ? errorKeyPaths(errorBody).map(([at]) => at.join('.')) : []);
  for (const where of ['contact', 'message', 'page', 'error'] as const) {
    const list = value[where] ?? [];
    if (!Array.isArray(list)) throw new ProfileError(`ownFields.${where}`, 'must be a list');
    read[where] = list.map((item, i) => {
      const at = `ownFields.${where}.${i}`;
      if (!isObject(item)) throw new ProfileError(at, 'must be an object');
      if (typeof item.path !== 'string' || !/^[^.]+(\.[^.]+)*$/.test(item.path))
        throw new ProfileError(`${at}.path`, 'must be keys joined by dots');
      const field = { ...item, as: oneOf(item.as, `${at}.as`, OWN_AS) };
      if (field.as === 'self') text(item.template, `${at}.template`);
      if (field.as === 'copy') text(item.of, `${at}.of`);
      if (field.as === 'param') text(item.param, `${at}.param`);
      return field as OwnField;
    });
  }
  // What the twin fills by a key's name (status, title, type, param) it fills so, unless the server's is known better.
  read.error = read.error.filter((field) => !named.has(field.path) || field.as !== 'example');
  return read;
}

function ownInWords(field: OwnField): string {
  switch (field.as) {
    case 'constant':
      return `${field.path} ${JSON.stringify(field.value)}`;
    case 'example':
      return `${field.path} (an example, ${JSON.stringify(field.value)})`;
    case 'self':
      return `${field.path} (its URL)`;
    case 'copy':
      return `${field.path} (its ${field.of})`;
    case 'param':
      return `${field.path} (the request's ${field.param})`;
    case 'count':
      return `${field.path} (the items of the list)`;
    case 'prev':
      return `${field.path} (the previous page)`;
    case 'param-refused':
      return `${field.path} (the parameter at fault)`;
    case 'status':
      return `${field.path} (the status)`;
  }
}

function path(value: unknown, where: string): string {
  const given = text(value, where);
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.([A-Za-z_][A-Za-z0-9_]*|[0-9]))*$/.test(given))
    throw new ProfileError(where, 'must be keys joined by dots, e.g. error.message or errors.0.detail');
  return given;
}

/** The kinds of characters of a name: a lower-case letter, an upper-case one, a digit, or the character itself. */
const charClasses = (name: string): string[] =>
  [...name].map((c) => (/[a-z]/.test(c) ? 'a' : /[A-Z]/.test(c) ? 'A' : /[0-9]/.test(c) ? '0' : c));

/**
 * Whether a server's reaction names are a closed list: it refused a name made of the same kinds
 * of characters as names it took (`heart` beside `thumbs_up`), and the mock would take it. Names
 * refused for their form alone (`+1` beside letters only, `Bad Name`) tell a rule of form, not a list.
 */
export function closedNames(taken: readonly string[], refused: readonly string[]): boolean {
  const kinds = new Set(taken.flatMap(charClasses));
  return (
    taken.length > 0 &&
    refused.some(
      (name) =>
        charClasses(name).every((c) => kinds.has(c)) &&
        REACTION_NAME.pattern!.test(name) &&
        name.length <= REACTION_NAME.max!,
    )
  );
}

/** How a list's next page is asked for, in words. */
export function describePaging(p: Paging): string {
  switch (p.kind) {
    case 'after-id':
      return `${p.param}=<id of the last item>`;
    case 'page':
      return `${p.param}=<page number, from 1>`;
    case 'offset':
      return `${p.param}=<items before the page>`;
    case 'body-token':
      return `${p.param}=<the answer's ${p.bodyKey}>`;
    case 'body-url':
      return `the next page's URL in the answer's ${p.bodyKey}`;
    case 'link-header':
      return 'a Link header with rel="next"';
  }
}

/** The mock's own paging (C8): what a twin pages by when its profile does not say. */
export const MOCK_PAGING: Paging = { kind: 'after-id', param: 'starting_after' };

/** Which of the mock's attachment fields an answered key of the twin's server holds. */
export function sourceOf(key: string): string | undefined {
  if (['id', 'message_id', 'filename', 'file_url', 'file_type', 'file_size', 'created_at'].includes(key))
    return key;
  if (/url/i.test(key)) return 'file_url';
  if (/name/i.test(key)) return 'filename';
  if (/type|mime/i.test(key)) return 'file_type';
  if (/size|bytes/i.test(key)) return 'file_size';
  return undefined;
}

const ALPHABETS = { numeric: 'digits', hex: 'hex digits [0-9a-f]', alphanumeric: 'characters [A-Za-z0-9]' };

/** An id format as the start-up lines and the twin's document say it. */
export function idInWords(id: IdFormat): string {
  if (id.kind === 'uuid') return id.version === undefined ? 'a UUID' : `a UUID of version ${id.version}`;
  const length = id.length ?? `${id.minLength} to ${id.maxLength}`;
  return `${length} ${ALPHABETS[id.kind]}`;
}

function whole(value: unknown, where: string, min: number, max: number, what = 'a whole number'): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new ProfileError(where, `must be ${what} from ${min} to ${max}`);
  return value;
}

/**
 * Whether a twin refuses an id not of its server's form apart from an unknown one: its server
 * answered the kit's made-up id with another status than an id of its form that was never made.
 */
export const tellsMalformed = (c: Conventions): boolean =>
  c.errorStatus.malformedId !== undefined && c.errorStatus.malformedId !== (c.errorStatus.unknownId ?? 404);

/**
 * Whether a twin tells a deleted id from an unknown one: its server answered them with different
 * statuses (e.g. 410 and 404). Its worlds then remember the ids their deletes took.
 */
export const tellsDeleted = (c: Conventions): boolean =>
  c.errorStatus.deletedId !== undefined && c.errorStatus.deletedId !== (c.errorStatus.unknownId ?? 404);

/**
 * The paths of an error body that a twin fills besides its message and code, each with what it
 * puts there: the top-level keys, and those beside a message nested in an object of its own
 * (`error.status` for `error.message`).
 */
export function errorKeyPaths(shape: NonNullable<Conventions['errorBody']>): [string[], ErrorKey][] {
  const place = shape.messageAt.split('.').slice(0, -1);
  const paths = [
    ...(place.length === 0 ? [] : (shape.placeKeys ?? []).map((key) => [...place, key])),
    ...shape.keys.map((key) => [key]),
  ];
  return paths.flatMap((path) => {
    const key = errorKeyOf(path.at(-1)!);
    return key ? [[path, key] as [string[], ErrorKey]] : [];
  });
}

/** What a twin puts under a key of its server's error body, by the key's name. */
export type ErrorKey = 'status' | 'title' | 'type' | 'param' | 'invalidParams';

/**
 * The keys of an error body that a twin fills, at the top or beside a nested message
 * (src/twin/answers.ts, and its document src/twin/document-records.ts): the status, its reason,
 * a type, the parameter at fault, and RFC 9457's list of the parameters at fault.
 */
export function errorKeyOf(key: string): ErrorKey | undefined {
  if (key === 'status' || key === 'title' || key === 'type') return key;
  if (/^param(eter)?s?$/i.test(key)) return 'param';
  if (/^invalid[_-]?param(eter)?s$/i.test(key)) return 'invalidParams';
  return undefined;
}
