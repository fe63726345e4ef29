import { describe, isPlainRecord } from '../input/params';
import {
  DEFAULT_FILE_TYPE,
  DISPLAY_NAME,
  FILE_SIZE,
  FILE_TYPE,
  FILENAME,
  PHONE_NUMBER,
  REACTION_NAME,
  USERNAME,
} from '../resources/formats';
import { defaultAvatarUrl } from '../resources/formats';
import type { Attachment, Complete, Reaction } from '../types';
import type { Clock } from './clock';
import { fail, fitsRule, isHttpUrl, type Json, type Report } from './report';

/** The fields of a recorded record that a server may give otherwise than the mock, one function each. */

export function dropExtra(raw: Json, known: Set<string>, whose: string, report: Report): void {
  for (const key of Object.keys(raw))
    if (!known.has(key)) report.convert(`${whose} field \`${key}\` → left out`);
}

export function phoneNumber(raw: unknown, path: string, report: Report): string {
  if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) {
    report.convert('phone numbers as numbers → text');
    raw = String(raw);
  }
  if (typeof raw !== 'string' || raw.trim() === '')
    fail(path, `must be a phone number, got ${describe(raw)}.`);
  if (fitsRule(raw, PHONE_NUMBER)) return raw;
  // "tel:+1 555 0100", "+1 555 0100 ext. 12": the characters the mock takes, in their order.
  const kept = raw
    .replace(/^tel:/i, '')
    .replace(/[^0-9 +\-().]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
  if (!/[0-9]/.test(kept) || !fitsRule(kept, PHONE_NUMBER))
    fail(
      path,
      `must be a phone number of at most ${PHONE_NUMBER.max} digits, spaces and + - ( ) ., got ${describe(raw)}.`,
    );
  report.convert('phone numbers with other characters → digits, spaces and + - ( ) . only');
  return kept;
}

export function avatarUrl(raw: unknown, username: string, origin: string, report: Report): string {
  if (isHttpUrl(raw)) return raw as string;
  if (typeof raw === 'string' && raw.startsWith('/')) {
    const absolute = new URL(raw, `${origin}/`).href;
    if (isHttpUrl(absolute)) {
      report.convert('relative URLs → absolute, on the server’s origin');
      return absolute;
    }
  }
  report.convert(
    raw === undefined || raw === null || raw === ''
      ? 'a contact without avatar_url → the mock’s default avatar'
      : 'an avatar_url that is not an http(s) URL → the mock’s default avatar',
  );
  return defaultAvatarUrl(username);
}

export function displayName(raw: Json, username: string, path: string, report: Report): string | null {
  const value = raw.display_name;
  if (value === undefined) {
    report.convert('a contact without display_name → its username');
    return username;
  }
  if (value === null) return null;
  if (typeof value !== 'string') fail(path, `must be text or null, got ${describe(value)}.`);
  if (fitsRule(value, DISPLAY_NAME)) return value;
  report.convert(`display names longer than ${DISPLAY_NAME.max} characters → cut to ${DISPLAY_NAME.max}`);
  return [...value].slice(0, DISPLAY_NAME.max).join('');
}

// ---- reactions ----

/** Names for the reactions that servers send as the emoji itself. */
const EMOJI_NAMES: Record<string, string> = {
  '👍': 'thumbs_up',
  '👎': 'thumbs_down',
  '❤': 'heart',
  '😂': 'joy',
  '🎉': 'tada',
  '🔥': 'fire',
  '👀': 'eyes',
  '🙏': 'pray',
  '😮': 'open_mouth',
  '😢': 'cry',
  '👏': 'clap',
  '😍': 'heart_eyes',
  '✅': 'white_check_mark',
};

/** A reaction name the mock takes (C15), or undefined when none can be made of it. */
function reactionName(name: string, report: Report): string | undefined {
  if (fitsRule(name, REACTION_NAME)) return name;
  // Variation selectors and zero-width joiners only change how an emoji is drawn.
  const bare = name.replace(/[\uFE0E\uFE0F\u200D]/g, '');
  if (EMOJI_NAMES[bare]) {
    report.convert('reaction names that are emoji → their names (👍 → thumbs_up)');
    return EMOJI_NAMES[bare];
  }
  const slug = bare
    .toLowerCase()
    .replace(/[^a-z0-9_+-]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (/[a-z0-9]/.test(slug) && fitsRule(slug, REACTION_NAME)) {
    report.convert('reaction names the mock cannot take → lowercase, _ for other characters');
    return slug;
  }
  const points = [...bare].map((c) => `u${c.codePointAt(0)!.toString(16)}`).join('-');
  if (points !== '' && fitsRule(points, REACTION_NAME)) {
    report.convert('reaction names that are emoji → their code points (u1f44d)');
    return points;
  }
  return undefined;
}

export function reactions(raw: unknown, path: string, report: Report): Reaction[] {
  if (raw === undefined || raw === null) {
    report.convert('a message without reactions → []');
    return [];
  }
  let groups: unknown[];
  if (Array.isArray(raw)) groups = raw;
  else if (isPlainRecord(raw)) {
    report.convert('reactions as one object → a list of one object per name');
    groups = [raw];
  } else return fail(path, `must be a list of reactions, got ${describe(raw)}.`);
  const byName = new Map<string, string[]>();
  groups.forEach((group, i) => {
    const at = Array.isArray(raw) ? `${path}[${i}]` : path;
    if (!isPlainRecord(group))
      fail(at, `must be a reaction object such as {"heart": ["alice"]}, got ${describe(group)}.`);
    let entries: [string, unknown][];
    const users = group.usernames ?? group.users;
    if (typeof group.name === 'string' && users === undefined)
      fail(at, 'names a reaction but not who reacted; the mock keeps the usernames of every reaction.');
    if (typeof group.name === 'string') {
      report.convert('reactions as {name, usernames} → {name: usernames}');
      entries = [[group.name, users]];
    } else {
      entries = Object.entries(group);
      if (entries.length > 1)
        report.convert('reactions with several names in one object → one object a name');
    }
    for (const [name, value] of entries) {
      const fixed = reactionName(name, report);
      if (fixed === undefined)
        fail(`${at}.${name}`, 'is a reaction name the recorder cannot turn into one the mock takes.');
      let list: unknown = value;
      if (typeof list === 'string') {
        report.convert('a reaction with one username as text → a list');
        list = [list];
      }
      if (!Array.isArray(list)) fail(`${at}.${name}`, `must be a list of usernames, got ${describe(list)}.`);
      if (byName.has(fixed) && byName.get(fixed)!.length > 0)
        report.convert('a reaction name met twice in one message → one, usernames together');
      const usernames = byName.get(fixed) ?? [];
      list.forEach((username: unknown, k: number) => {
        if (!fitsRule(username, USERNAME))
          fail(
            `${at}.${name}[${k}]`,
            `must be a username (1 to ${USERNAME.max} characters), got ${describe(username)}.`,
          );
        if (usernames.includes(username as string))
          report.convert('a username listed twice under one reaction → once');
        else usernames.push(username as string);
      });
      byName.set(fixed, usernames);
    }
  });
  const result: Reaction[] = [];
  for (const [name, usernames] of byName) {
    if (usernames.length === 0) report.convert('a reaction without usernames → left out');
    else result.push({ [name]: usernames });
  }
  return result;
}

// ---- attachments ----

const ATTACHMENT_ALIASES = {
  filename: ['filename', 'name', 'file_name', 'title'],
  file_url: ['file_url', 'url', 'href', 'download_url'],
  file_type: ['file_type', 'content_type', 'mime_type', 'mimetype', 'type'],
  file_size: ['file_size', 'size', 'bytes', 'byte_size'],
} as const;
const ATTACHMENT_KEYS = new Set([
  'id',
  'message_id',
  'created_at',
  ...Object.values(ATTACHMENT_ALIASES).flat(),
]);

export function attachment(
  raw: Json,
  where: string,
  messageId: string,
  messageCreated: number,
  clock: Clock,
  origin: string,
  report: Report,
): Omit<Attachment, 'id' | 'message_id'> {
  const renamed: [alias: string, field: string][] = [];
  const value = (field: keyof typeof ATTACHMENT_ALIASES): unknown => {
    for (const alias of ATTACHMENT_ALIASES[field]) {
      if (raw[alias] === undefined) continue;
      if (alias !== field) renamed.push([alias, field]);
      return raw[alias];
    }
    return undefined;
  };
  for (const key of Object.keys(raw))
    if (!ATTACHMENT_KEYS.has(key)) report.convert(`an attachment's field \`${key}\` → left out`);
  if (raw.message_id === undefined) report.convert("an attachment without message_id → its message's id");
  else if (String(raw.message_id) !== messageId)
    report.warn("an attachment whose message_id is not its message's (set to its message's)", where);
  const file_url = fileUrl(value('file_url'), `${where}.file_url`, origin, report);
  let created = messageCreated;
  if (raw.created_at === undefined || raw.created_at === null)
    report.convert("an attachment without created_at → its message's");
  else created = clock.read(raw.created_at, 'attachment.created_at', `${where}.created_at`, report)!;
  const converted = {
    filename: fileName(value('filename'), file_url, `${where}.filename`, report),
    file_url,
    file_type: fileType(value('file_type'), `${where}.file_type`, report),
    file_size: fileSize(value('file_size'), `${where}.file_size`, report),
    created_at: Math.floor(created),
  } satisfies Complete<Omit<Attachment, 'id' | 'message_id'>>;
  // One line for each shape of attachment: "`name`, `url` → filename, file_url".
  const order = Object.keys(ATTACHMENT_ALIASES);
  renamed.sort((a, b) => order.indexOf(a[1]) - order.indexOf(b[1]));
  if (renamed.length > 0)
    report.convert(
      `attachments' ${renamed.map(([alias]) => `\`${alias}\``).join(', ')} → ${renamed.map(([, field]) => field).join(', ')}`,
    );
  return converted;
}

function fileUrl(raw: unknown, path: string, origin: string, report: Report): string {
  if (raw === undefined || raw === null) fail(path, 'is missing.');
  if (typeof raw === 'string' && raw.startsWith('/')) {
    report.convert('relative URLs → absolute, on the server’s origin');
    raw = new URL(raw, `${origin}/`).href;
  }
  if (!isHttpUrl(raw)) fail(path, `must be an http(s) URL, got ${describe(raw)}.`);
  return raw as string;
}

function fileName(raw: unknown, url: string, path: string, report: Report): string {
  let name = raw;
  if (name === undefined || name === null || name === '') {
    name = lastSegment(url);
    if (name === '') fail(path, 'is missing, and the URL ends in no file name.');
    report.convert('an attachment without filename → the last part of its URL');
  }
  if (typeof name !== 'string') return fail(path, `must be text, got ${describe(name)}.`);
  if (fitsRule(name, FILENAME)) return name;
  const extension = extensionOf(name);
  report.convert(`file names longer than ${FILENAME.max} characters → cut, keeping the extension`);
  return [...name].slice(0, FILENAME.max - extension.length).join('') + extension;
}

/** The last part of a URL's path, decoded when it can be. */
export function lastSegment(url: string): string {
  const last = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** `.pdf` of `report.pdf`; '' when there is none (a leading dot is no extension). */
export function extensionOf(name: string): string {
  const match = /(\.[A-Za-z0-9]{1,10})$/.exec(name);
  return match && match.index > 0 ? match[1]! : '';
}

function fileType(raw: unknown, path: string, report: Report): string {
  if (raw === undefined || raw === null || raw === '') {
    report.convert(`an attachment without file_type → ${DEFAULT_FILE_TYPE}`);
    return DEFAULT_FILE_TYPE;
  }
  if (typeof raw !== 'string') return fail(path, `must be text, got ${describe(raw)}.`);
  if (fitsRule(raw, FILE_TYPE)) return raw;
  // "text/plain; charset=utf-8": the type without its parameters.
  const bare = raw.split(';')[0]!.trim().toLowerCase();
  if (fitsRule(bare, FILE_TYPE)) {
    report.convert('file types with parameters → without them');
    return bare;
  }
  report.convert(`file types that are no MIME type → ${DEFAULT_FILE_TYPE}`);
  return DEFAULT_FILE_TYPE;
}

function fileSize(raw: unknown, path: string, report: Report): number | null {
  if (raw === undefined) {
    report.convert('an attachment without file_size → null');
    return null;
  }
  if (raw === null) return null;
  let size = raw;
  if (typeof size === 'string' && /^[0-9]{1,16}$/.test(size)) {
    report.convert('file sizes as text → numbers');
    size = Number(size);
  }
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < FILE_SIZE.min)
    fail(path, `must be a whole number of bytes or null, got ${describe(raw)}.`);
  return size as number;
}
