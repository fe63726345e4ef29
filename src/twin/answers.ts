import { DELETED_MARK, errors } from '../errors';
import { defaultAvatarUrl, uriComponent } from '../resources/formats';
import type { CoreAnswer } from '../core/answer';
import type { Params } from '../input/params';
import {
  errorKeyPaths,
  formInWords,
  sourceOf,
  type Conventions,
  type ErrorCase,
  type ErrorKey,
} from './profile';
import { lengthOf, VALUE_FORMS } from './value-forms.generated';
import { fillOwn, setPath } from './fields';

/**
 * The mock's answers as the twin's server writes them: its error body and statuses, its timestamp
 * unit, its default avatar, its reactions and attachments, its content type. The records and the
 * rules behind them are the mock's; only their spelling changes.
 */
type Json = Record<string, unknown>;
type InputRule = NonNullable<NonNullable<Conventions['inputRules']>['contacts']>[string];
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const TIMESTAMPS = ['created_at', 'last_active_at', 'updated_at', 'read_at'];
const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
};

/**
 * Rewrites an answer of the API (under /v1) in place. `kind` is the resource of its path; `origin`
 * the request's, for the records' own URLs.
 */
export function twinAnswer(
  c: Conventions,
  answer: CoreAnswer,
  kind: 'contacts' | 'messages' | undefined,
  origin = '',
): CoreAnswer {
  if (answer.body === '') return answer;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return answer;
  }
  if (answer.status >= 400) return errorAnswer(c, answer, body, origin);
  const record =
    kind === 'contacts'
      ? (r: Json) => own(c, 'contact', contact(c, r), origin)
      : (r: Json) => own(c, 'message', message(c, r), origin);
  if (kind !== undefined && isObject(body)) {
    if (Array.isArray(body.data)) body.data = body.data.map((item) => (isObject(item) ? record(item) : item));
    else if ('id' in body && !isMarker(c, kind, body)) body = record(body);
  }
  answer.body = JSON.stringify(body);
  if (c.contentType) answer.headers['Content-Type'] = `${c.contentType}; charset=utf-8`;
  return answer;
}

/** A delete's marker (`{id, deleted: true}`), no record: its keys are the marker's. */
function isMarker(c: Conventions, kind: 'contacts' | 'messages', body: Json): boolean {
  const keys = c.deleteAnswer[kind]?.keys;
  return keys !== undefined && Object.keys(body).every((key) => keys.includes(key));
}

/** The server's own fields of a record, and of a message's sender. */
function own(c: Conventions, where: 'contact' | 'message', record: Json, origin: string): Json {
  if (!c.ownFields) return record;
  fillOwn(c.ownFields[where], record, { record, origin });
  if (where === 'message' && isObject(record.contact))
    fillOwn(c.ownFields.sender, record.contact, { record: record.contact, origin });
  return record;
}

function scale(c: Conventions, record: Json): void {
  const factor =
    c.timestampUnit === 'milliseconds' ? 1000 : c.timestampUnit === 'microseconds' ? 1_000_000 : 1;
  if (factor === 1) return;
  for (const key of TIMESTAMPS)
    if (typeof record[key] === 'number') record[key] = (record[key] as number) * factor;
}

function contact(c: Conventions, record: Json): Json {
  scale(c, record);
  const avatar = c.avatarDefault;
  if (
    avatar &&
    typeof record.username === 'string' &&
    record.avatar_url === defaultAvatarUrl(record.username)
  ) {
    if (avatar.kind === 'absent') delete record.avatar_url;
    else
      record.avatar_url =
        avatar.kind === 'null'
          ? null
          : avatar.kind === 'empty'
            ? ''
            : avatar.template!.replace(/\{username\}/g, uriComponent(record.username));
  }
  return record;
}

function message(c: Conventions, record: Json): Json {
  scale(c, record);
  if (isObject(record.contact)) record.contact = contact(c, record.contact);
  if (c.reactionsLayout === 'merged' && Array.isArray(record.reactions))
    record.reactions =
      record.reactions.length === 0 ? [] : [Object.assign({}, ...(record.reactions as Json[]))];
  if (Array.isArray(record.attachments))
    record.attachments = record.attachments.map((item) => (isObject(item) ? attachment(c, item) : item));
  return record;
}

function attachment(c: Conventions, item: Json): Json {
  scale(c, item);
  if (!c.attachments) return item;
  const shaped: Json = {};
  for (const key of c.attachments.answered) {
    const source = sourceOf(key);
    shaped[key] = source === undefined ? null : (item[source] ?? null);
  }
  return shaped;
}

/**
 * The reactions of an update, where the twin's server takes only some names: another name is
 * refused as its server refuses it, naming the parameter (`reactions[heart]`).
 */
export function refuseReactionNames(raw: unknown, allowed: readonly string[]): void {
  for (const group of Array.isArray(raw) ? raw : [raw])
    if (isObject(group))
      for (const name of Object.keys(group))
        if (!allowed.includes(name))
          throw errors.invalid(
            `reactions[${name}]`,
            `is not a reaction name of this server; it takes ${allowed.join(', ') || 'none'}.`,
          );
}

/**
 * The free-form values of a create or update, where the twin's server refuses some: a value longer
 * than its limit, or of a form it refused and never took, is refused naming its parameter.
 */
export function refuseValues(rules: Record<string, InputRule>, params: Params): void {
  for (const [name, rule] of Object.entries(rules)) {
    const value = params.get(name);
    if (typeof value !== 'string') continue;
    if (rule.maxLength !== undefined && lengthOf(value) > rule.maxLength)
      throw errors.invalid(name, `is longer than ${rule.maxLength} characters.`);
    const form = rule.refused.find((refused) => VALUE_FORMS[refused](value));
    if (form !== undefined) throw errors.invalid(name, `this server takes no value ${formInWords(form)}.`);
  }
}

/** An attachment sent in the twin's server's shape, as the mock takes it (filename, file_url, …). */
export function attachmentIn(item: unknown, keys: readonly string[], name: string): unknown {
  if (!isObject(item)) return item;
  // The server's shape: another spelling of a field its shape names is refused, as it refuses it
  // (`filename` where it takes `name`); a field its shape does not name is the mock's to judge.
  const covered = new Set(keys.map(sourceOf));
  const other = Object.keys(item).filter((key) => !keys.includes(key) && covered.has(sourceOf(key)));
  if (other.length > 0)
    throw errors.invalid(name, `takes ${keys.join(', ')}; ${other.join(', ')} is not one of them.`);
  const taken: Json = {};
  for (const [key, value] of Object.entries(item)) {
    const target = sourceOf(key);
    if (target === undefined || target === 'id' || target === 'message_id' || target === 'created_at')
      taken[key] = value;
    else if (target === 'file_size' && typeof value === 'string' && /^[0-9]+$/.test(value))
      taken[target] = Number(value);
    else taken[target] = value;
  }
  if (taken.filename === undefined && typeof taken.file_url === 'string') {
    const last = taken.file_url.split(/[?#]/)[0]!.split('/').filter(Boolean).at(-1);
    taken.filename = last && last.length <= 255 ? decodeURIComponentSafe(last) : 'file';
  }
  return taken;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The case of the document's answers a refusal of the mock is, by its code. */
function caseOf(c: Conventions, code: unknown, param: unknown, status: number): ErrorCase | undefined {
  if (code === 'not_found') return 'unknownId';
  // A value of a parameter the server's input rules are about, refused by them or by the mock's own.
  if (code === 'parameter_invalid' && c.errorStatus.refusedValue !== undefined && isRuled(c, param))
    return 'refusedValue';
  if (code === 'missing_token' || code === 'invalid_token') return 'missingToken';
  if (code === 'parameter_invalid' && param === 'limit') return 'invalidLimit';
  if (code === 'parameter_invalid' && param === 'id') return 'malformedId';
  if (code === 'unsupported_media_type') return 'refusedBody';
  if (status === 400) return 'missingParameter';
  return undefined;
}

const isRuled = (c: Conventions, param: unknown): boolean =>
  typeof param === 'string' &&
  [c.inputRules, c.longest].some((by) => Object.values(by ?? {}).some((rules) => param in rules));

function errorAnswer(c: Conventions, answer: CoreAnswer, body: unknown, origin: string): CoreAnswer {
  const deleted = answer.headers[DELETED_MARK] !== undefined;
  delete answer.headers[DELETED_MARK];
  if (!isObject(body)) return answer;
  const wanted = deleted ? 'deletedId' : caseOf(c, body.code, body.param, answer.status);
  const status = (wanted && c.errorStatus[wanted]) ?? answer.status;
  answer.status = status;
  const shape = c.errorBody;
  if (!shape) {
    answer.body = JSON.stringify(body);
    return answer;
  }
  const out: Json = {};
  setPath(out, shape.messageAt, body.message);
  if (shape.codeAt) setPath(out, shape.codeAt, body.code);
  const own = c.ownFields?.error ?? [];
  for (const [path, key] of errorKeyPaths(shape)) {
    const at = path.join('.');
    // What the server puts inside it is known field by field (invalid_params.0.name): those fill it.
    if (own.some((field) => field.path === at || field.path.startsWith(`${at}.`))) continue;
    const value = errorValue(key, status, body);
    if (value !== undefined && getPath(out, at) === undefined) setPath(out, at, value);
  }
  fillOwn(own, out, { origin, status, ...(typeof body.param === 'string' ? { refused: body.param } : {}) });
  answer.body = JSON.stringify(out);
  answer.headers['Content-Type'] = `${shape.contentType}; charset=utf-8`;
  return answer;
}

/** What the twin puts under a key of its error body (profile.ts errorKeyOf), when the mock's refusal says it. */
function errorValue(key: ErrorKey, status: number, body: Json): unknown {
  if (key === 'status') return status;
  if (key === 'title') return REASONS[status] ?? 'Error';
  if (key === 'type') return 'about:blank';
  if (typeof body.param !== 'string') return undefined;
  if (key === 'param') return body.param;
  // RFC 9457's own example of an extension: the parameters at fault, each by name.
  return [{ name: body.param, reason: body.message }];
}

/** The value at `a.b.0.c` in `target`, if any. */
function getPath(target: unknown, path: string): unknown {
  let at: unknown = target;
  for (const key of path.split('.'))
    at = at !== null && typeof at === 'object' ? (at as Json)[key] : undefined;
  return at;
}
