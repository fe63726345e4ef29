import { errors } from '../errors';
import { CONTACT } from '../resources/contact';
import {
  requiredInput,
  type CreateInput,
  type Field,
  type Table,
  type UpdateInput,
} from '../resources/field';
import {
  checkHttpUrl,
  checkInteger,
  checkString,
  describe,
  isPlainRecord,
  optionalString,
  refuseUnknown,
  requiredString,
  type Params,
} from './params';
import {
  DEFAULT_FILE_TYPE,
  FILE_SIZE,
  FILE_TYPE,
  FILENAME,
  ID,
  MESSAGE_TEXT,
  REACTION_NAME,
  USERNAME,
  type IntegerRule,
  type StringRule,
} from '../resources/formats';
import { LIMITS, PAGE_SIZE } from './limits';

/**
 * The field rules of convention C14-C16, one function per operation. Each reads a request's
 * parameters, refuses anything it does not take, and returns a typed input, so that the store
 * validates everything before it changes anything. A contact's create and update are read from
 * its field table (resources/contact.ts).
 */

export type ContactCreateInput = CreateInput<typeof CONTACT>;

/** An updatable field: undefined leaves it as it is, null clears it (convention C14). */
export type ContactUpdateInput = UpdateInput<typeof CONTACT>;

export interface AttachmentInput {
  filename: string;
  file_url: string;
  file_type: string;
  file_size: number | null;
}

export interface ReactionInput {
  name: string;
  usernames: string[];
}

export interface MessageSendInput {
  conversation_id: string;
  message: string;
  attachments?: AttachmentInput[];
}

/** What an update adds: a new text, reactions, attachments; absent parts stay as they are. */
export interface MessageUpdateInput {
  message?: string;
  reactions?: ReactionInput[];
  attachments?: AttachmentInput[];
}

/** One page of a list: `limit` items, newest first, after or before a cursor (C7, C8). */
export interface PageQuery {
  limit: number;
  starting_after?: string;
  ending_before?: string;
}

export interface ContactListQuery extends PageQuery {
  active?: boolean;
}

export interface MessageListQuery extends PageQuery {
  conversation_id?: string;
}

const MESSAGE_SEND = ['conversation_id', 'message', 'attachments'] as const;
const MESSAGE_UPDATE = ['message', 'reactions', 'attachments'] as const;
const PAGE = ['limit', 'starting_after', 'ending_before'] as const;
const CONTACT_LIST = [...PAGE, 'active'] as const;
const MESSAGE_LIST = [...PAGE, 'conversation_id'] as const;
const ATTACHMENT = ['filename', 'file_url', 'file_type', 'file_size'] as const;

/** The fields a create takes, in the table's order (required ones are checked in that order too). */
export function createNames(table: Table): string[] {
  return Object.keys(table).filter((name) => table[name]!.create.by === 'input');
}

export function updateNames(table: Table): string[] {
  return Object.keys(table).filter((name) => table[name]!.update !== undefined);
}

/** One parameter's value, checked as its field's type says; null is refused here (see update). */
export function valueOf(field: Field<unknown>, raw: unknown, name: string): unknown {
  switch (field.type) {
    case 'text':
      return checkString(raw, name, field.rule as StringRule);
    case 'id':
      return checkString(raw, name, ID);
    case 'url':
      return checkHttpUrl(raw, name);
    case 'integer': {
      const rule = field.rule as IntegerRule;
      return checkInteger(raw, name, rule.min, rule.max);
    }
    case 'boolean':
      if (raw === true || raw === 'true') return true;
      if (raw === false || raw === 'false') return false;
      throw errors.invalid(name, `must be true or false, got ${describe(raw)}.`);
    default:
      throw new Error(`no request sets ${name} (a ${field.type}) as a plain parameter`);
  }
}

/**
 * The reader of a create's fields: a required one must be sent; an optional one sent empty is
 * what an HTML form sends for "not given", and is taken so.
 */
export function createReader<T extends Table>(table: T): (params: Params) => CreateInput<T> {
  const names = createNames(table);
  return (params) => {
    refuseUnknown(params, names);
    const input: Record<string, unknown> = {};
    for (const name of names) {
      const field = table[name]!;
      const required = requiredInput(field);
      const raw = params.get(name);
      if (required && raw === undefined) throw errors.missing(name, [[name, field.create.example]]);
      input[name] = !required && (raw === undefined || raw === '') ? undefined : valueOf(field, raw, name);
    }
    return input as CreateInput<T>;
  };
}

/** The reader of an update's fields: absent stays as it is; null, or empty text, clears a nullable field. */
export function updateReader<T extends Table>(table: T): (params: Params) => UpdateInput<T> {
  const names = updateNames(table);
  return (params) => {
    refuseUnknown(params, names);
    const input: Record<string, unknown> = {};
    for (const name of names) {
      const field = table[name]!;
      const raw = params.get(name);
      if (raw === undefined || (raw === null && field.nullable)) input[name] = raw;
      else {
        const value = valueOf(field, raw, name);
        input[name] = value === '' && field.nullable ? null : value;
      }
    }
    return input as UpdateInput<T>;
  };
}

export const contactCreate = createReader(CONTACT);
export const contactUpdate = updateReader(CONTACT);

export function messageSend(params: Params, text = MESSAGE_TEXT): MessageSendInput {
  refuseUnknown(params, MESSAGE_SEND);
  const conversation_id = requiredString(params, 'conversation_id', ID, '<conversation_id of a contact>');
  const message = requiredString(params, 'message', text, 'Hello');
  return { conversation_id, message, attachments: attachmentList(params.get('attachments')) };
}

export function messageUpdate(params: Params, text = MESSAGE_TEXT): MessageUpdateInput {
  refuseUnknown(params, MESSAGE_UPDATE);
  return {
    message: optionalString(params, 'message', text),
    reactions: reactionList(params.get('reactions')),
    attachments: attachmentList(params.get('attachments')),
  };
}

/** Longer values than the mock's own limits (C14), by resource and text parameter: a twin's server's. */
export type Longest = Partial<Record<'contacts' | 'messages', Record<string, number>>>;

/**
 * The readers of the four writes, where a twin's server takes longer texts than the mock: each
 * text parameter named in `longest` takes up to that many characters (never fewer than the mock's).
 */
export function writeReaders(longest: Longest) {
  const raised = (rule: StringRule, to: number | undefined): StringRule =>
    to === undefined || to <= rule.max ? rule : { ...rule, max: to };
  const contact = Object.fromEntries(
    Object.entries(CONTACT).map(([name, field]) => {
      const to = longest.contacts?.[name];
      return [
        name,
        field.type === 'text' && to !== undefined
          ? { ...field, rule: raised(field.rule as StringRule, to) }
          : field,
      ];
    }),
  ) as typeof CONTACT;
  const text = raised(MESSAGE_TEXT, longest.messages?.message);
  return {
    contactCreate: createReader(contact),
    contactUpdate: updateReader(contact),
    messageSend: (params: Params) => messageSend(params, text),
    messageUpdate: (params: Params) => messageUpdate(params, text),
  };
}

function pageQuery(params: Params): PageQuery {
  const rawLimit = params.get('limit');
  const limit =
    rawLimit === undefined
      ? LIMITS.pageSizeDefault
      : checkInteger(rawLimit, 'limit', PAGE_SIZE.min, PAGE_SIZE.max);
  const starting_after = optionalString(params, 'starting_after', ID);
  const ending_before = optionalString(params, 'ending_before', ID);
  if (starting_after !== undefined && ending_before !== undefined) {
    throw errors.invalid('ending_before', 'send either starting_after or ending_before, not both.');
  }
  return { limit, starting_after, ending_before };
}

export function contactList(params: Params): ContactListQuery {
  refuseUnknown(params, CONTACT_LIST);
  const raw = params.get('active');
  let active: boolean | undefined;
  if (raw === 'true' || raw === true) active = true;
  else if (raw === 'false' || raw === false) active = false;
  else if (raw !== undefined) throw errors.invalid('active', `must be true or false, got ${describe(raw)}.`);
  return { ...pageQuery(params), active };
}

export function messageList(params: Params): MessageListQuery {
  refuseUnknown(params, MESSAGE_LIST);
  return { ...pageQuery(params), conversation_id: optionalString(params, 'conversation_id', ID) };
}

/** No parameters at all (retrieve, delete). */
export function none(params: Params): void {
  refuseUnknown(params, []);
}

function attachmentList(raw: unknown): AttachmentInput[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    throw errors.invalid(
      'attachments',
      'must be a list of attachment objects, e.g. attachments[0][filename]=a.pdf&attachments[0][file_url]=https://example.com/a.pdf.',
    );
  }
  if (raw.length > LIMITS.attachmentsPerRequest) {
    throw errors.invalid('attachments', `at most ${LIMITS.attachmentsPerRequest} attachments per request.`);
  }
  return raw.map((item, i) => attachment(item, `attachments[${i}]`));
}

function attachment(raw: unknown, name: string): AttachmentInput {
  if (!isPlainRecord(raw)) {
    throw errors.invalid(name, `must be an object with filename and file_url, got ${describe(raw)}.`);
  }
  for (const key of Object.keys(raw)) {
    if (!(ATTACHMENT as readonly string[]).includes(key)) {
      throw errors.unknown(`${name}[${key}]`, ATTACHMENT);
    }
  }
  if (raw.filename === undefined) throw errors.missing(`${name}[filename]`, [[`${name}[filename]`, 'a.pdf']]);
  if (raw.file_url === undefined) {
    throw errors.missing(`${name}[file_url]`, [[`${name}[file_url]`, 'https://example.com/a.pdf']]);
  }
  const type = raw.file_type;
  const size = raw.file_size;
  return {
    filename: checkString(raw.filename, `${name}[filename]`, FILENAME),
    file_url: checkHttpUrl(raw.file_url, `${name}[file_url]`),
    file_type:
      type === undefined || type === ''
        ? DEFAULT_FILE_TYPE
        : checkString(type, `${name}[file_type]`, FILE_TYPE),
    file_size:
      size === undefined || size === null || size === ''
        ? null
        : checkInteger(size, `${name}[file_size]`, FILE_SIZE.min, FILE_SIZE.max),
  };
}

/**
 * Reactions arrive as form keys `reactions[<name>][]=<username>` (the document's shape), or in
 * JSON as `[{"<name>": ["<username>"]}]` or `{"<name>": ["<username>"]}` (convention C15).
 */
function reactionList(raw: unknown): ReactionInput[] {
  if (raw === undefined) return [];
  const groups = Array.isArray(raw) ? raw : [raw];
  const byName = new Map<string, string[]>();
  groups.forEach((group, i) => {
    const where = Array.isArray(raw) ? `reactions[${i}]` : 'reactions';
    if (!isPlainRecord(group)) {
      throw errors.invalid(
        where,
        'must map a reaction name to usernames, e.g. reactions[thumbs_up][]=alice.',
      );
    }
    for (const [name, value] of Object.entries(group)) {
      checkString(name, 'reactions', REACTION_NAME);
      const param = `reactions[${name}]`;
      const usernames = typeof value === 'string' ? [value] : value;
      if (!Array.isArray(usernames) || usernames.length === 0) {
        throw errors.invalid(param, `must be a list of usernames, e.g. ${param}[]=alice.`);
      }
      const list = byName.get(name) ?? [];
      for (const username of usernames) list.push(checkString(username, `${param}[]`, USERNAME));
      byName.set(name, list);
    }
  });
  if (byName.size === 0) {
    throw errors.invalid('reactions', 'must name at least one reaction, e.g. reactions[thumbs_up][]=alice.');
  }
  return [...byName].map(([name, usernames]) => ({ name, usernames }));
}
