import { errors } from '../errors';
import {
  checkHttpUrl,
  checkInteger,
  checkString,
  describe,
  isPlainRecord,
  optionalString,
  refuseUnknown,
  requiredString,
  type IntegerRule,
  type Params,
  type StringRule,
} from './params';
import { LIMITS } from './limits';

/**
 * The field rules of convention C14-C16, one function per operation. Each reads a request's
 * parameters, refuses anything it does not take, and returns a typed input, so that the store
 * validates everything before it changes anything.
 */

export const USERNAME: StringRule = { min: 1, max: 64 };
export const PHONE_NUMBER: StringRule = {
  min: 1,
  max: 32,
  pattern: /^[0-9 +\-().]+$/,
  patternText: 'digits, spaces and + - ( ) . only, e.g. +1 (555) 010-2030',
};
export const DISPLAY_NAME: StringRule = { max: 64 };
export const MESSAGE_TEXT: StringRule = { min: 1, max: 4000 };
export const REACTION_NAME: StringRule = {
  min: 1,
  max: 64,
  // "__proto__" matches C15's pattern, but form bodies cannot carry it as a key (qs drops it), so
  // it is refused everywhere, fixtures included, for every way in to agree (see core/body.ts).
  pattern: /^(?!__proto__$)[a-z0-9_+-]+$/,
  patternText: 'lowercase letters, digits and _ + - only (not "__proto__"), e.g. thumbs_up',
};
export const FILENAME: StringRule = { min: 1, max: 255 };
export const FILE_TYPE: StringRule = {
  min: 3,
  max: 127,
  pattern: /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/,
  patternText: 'a MIME type such as image/png',
};
/** An id a request names in its parameters; an unknown one is not found (404), not refused. */
export const ID: StringRule = { min: 1, max: 64 };
/** The id of a record as a fixture may bring it; generated ids (ids.ts) are 16 letters and digits. */
export const RECORD_ID = {
  min: 1,
  max: ID.max,
  pattern: /^[A-Za-z0-9_-]+$/,
  patternText: 'letters, digits, _ or -',
} as const satisfies StringRule;
/** What an attachment sent without `file_type` (or with an empty one) is stored as. */
export const DEFAULT_FILE_TYPE = 'application/octet-stream';

export const PAGE_SIZE: IntegerRule = { min: 1, max: LIMITS.pageSizeMax };
export const FILE_SIZE: IntegerRule = { min: 0, max: Number.MAX_SAFE_INTEGER };

export interface ContactCreateInput {
  username: string;
  phone_number: string;
  avatar_url?: string;
  display_name?: string;
}

/** `display_name`: undefined leaves it as it is, null clears it (convention C14). */
export interface ContactUpdateInput {
  display_name?: string | null;
}

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

const CONTACT_CREATE = ['username', 'phone_number', 'avatar_url', 'display_name'] as const;
const CONTACT_UPDATE = ['display_name'] as const;
const MESSAGE_SEND = ['conversation_id', 'message', 'attachments'] as const;
const MESSAGE_UPDATE = ['message', 'reactions', 'attachments'] as const;
const PAGE = ['limit', 'starting_after', 'ending_before'] as const;
const CONTACT_LIST = [...PAGE, 'active'] as const;
const MESSAGE_LIST = [...PAGE, 'conversation_id'] as const;
const ATTACHMENT = ['filename', 'file_url', 'file_type', 'file_size'] as const;

export function contactCreate(params: Params): ContactCreateInput {
  refuseUnknown(params, CONTACT_CREATE);
  const username = requiredString(params, 'username', USERNAME, 'alice');
  const phone_number = requiredString(params, 'phone_number', PHONE_NUMBER, '+15550102030');
  const avatar = params.get('avatar_url');
  // An empty optional field is what an HTML form sends for "not given"; treat it so.
  const avatar_url = avatar === undefined || avatar === '' ? undefined : checkHttpUrl(avatar, 'avatar_url');
  const display_name = optionalString(params, 'display_name', DISPLAY_NAME);
  return { username, phone_number, avatar_url, display_name: display_name === '' ? undefined : display_name };
}

export function contactUpdate(params: Params): ContactUpdateInput {
  refuseUnknown(params, CONTACT_UPDATE);
  const raw = params.get('display_name');
  if (raw === undefined) return { display_name: undefined };
  if (raw === null) return { display_name: null };
  const display_name = checkString(raw, 'display_name', DISPLAY_NAME);
  return { display_name: display_name === '' ? null : display_name };
}

export function messageSend(params: Params): MessageSendInput {
  refuseUnknown(params, MESSAGE_SEND);
  const conversation_id = requiredString(params, 'conversation_id', ID, '<conversation_id of a contact>');
  const message = requiredString(params, 'message', MESSAGE_TEXT, 'Hello');
  return { conversation_id, message, attachments: attachmentList(params.get('attachments')) };
}

export function messageUpdate(params: Params): MessageUpdateInput {
  refuseUnknown(params, MESSAGE_UPDATE);
  return {
    message: optionalString(params, 'message', MESSAGE_TEXT),
    reactions: reactionList(params.get('reactions')),
    attachments: attachmentList(params.get('attachments')),
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

/** A contact created without `avatar_url` still gets a working picture: its initials. */
export function defaultAvatarUrl(username: string): string {
  return `https://api.dicebear.com/9.x/initials/svg?seed=${encodeURIComponent(username)}`;
}
