import { wordsOf, type Words } from '../ids';
import type { WorldData } from '../store/world';
import type { IdFormat } from './profile';

/**
 * Ids in a twin's server's format: new ones drawn from the world's words, and the seeded world's own turned into that
 * format once, at load, by a hash of each (so that the same seed gives the same ids, and a fixture
 * keeps its links). Kinds without a format keep the mock's ids.
 */
export type IdKind = 'contact' | 'conversation' | 'message';
export type IdFormats = Partial<Record<IdKind, IdFormat>>;

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `count` digits of `alphabet` from a source of 32-bit words. */
function chars(alphabet: string, count: number, word: () => number): string {
  let out = '';
  while (out.length < count) out += alphabet[word() % alphabet.length];
  return out;
}

/**
 * Draws of one length before one character more is tried: a world that has outgrown its server's
 * length (four digits hold 9,000 ids) gets longer ids, as a counter does, never a loop.
 */
const TRIES_PER_LENGTH = 4;

/** The length of one id: the format's, or one of its range at random; longer after `attempt` draws that were taken. */
const lengthOf = (format: IdFormat, word: () => number, attempt: number): number =>
  (format.length ??
    (format.minLength !== undefined && format.maxLength !== undefined
      ? format.minLength + (word() % (format.maxLength - format.minLength + 1))
      : 16)) + Math.floor(attempt / TRIES_PER_LENGTH);

function shaped(format: IdFormat, word: () => number, attempt = 0): string {
  switch (format.kind) {
    case 'numeric':
      // No leading zero (a number's digits).
      return (
        format.prefix +
        chars('123456789', 1, word) +
        chars('0123456789', lengthOf(format, word, attempt) - 1, word)
      );
    case 'hex':
      return format.prefix + chars('0123456789abcdef', lengthOf(format, word, attempt), word);
    case 'uuid': {
      const hex = chars('0123456789abcdef', 32, word).split('');
      hex[12] = (format.version ?? 4).toString(16);
      hex[16] = '89ab'[word() % 4]!;
      const h = hex.join('');
      return `${format.prefix}${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }
    default:
      return format.prefix + chars(BASE62, lengthOf(format, word, attempt), word);
  }
}

/** Whether `id` is of `format`: its prefix, its alphabet, its length (a UUID of its version). */
export function fitsFormat(format: IdFormat, id: string): boolean {
  if (!id.startsWith(format.prefix)) return false;
  const rest = id.slice(format.prefix.length);
  if (format.kind === 'uuid') {
    // A UUID of a version has RFC 9562's variant too: 8, 9, a or b.
    const [version, variant] =
      format.version === undefined ? ['[0-9a-f]', '[0-9a-f]'] : [format.version.toString(16), '[89ab]'];
    return new RegExp(
      `^[0-9a-f]{8}-[0-9a-f]{4}-${version}[0-9a-f]{3}-${variant}[0-9a-f]{3}-[0-9a-f]{12}$`,
      'i',
    ).test(rest);
  }
  const alphabet = { numeric: /^[0-9]+$/, hex: /^[0-9a-f]+$/, alphanumeric: /^[A-Za-z0-9]+$/ }[format.kind];
  const [min, max] = [format.length ?? format.minLength ?? 1, format.length ?? format.maxLength ?? 64];
  return alphabet.test(rest) && rest.length >= min && rest.length <= max;
}

/** The world's `newId` for these formats (attachments as messages), drawn from the world's words. */
export function idMaker(
  formats: IdFormats,
): ((kind: IdKind | 'attachment', words: Words, attempt: number) => string) | undefined {
  if (Object.keys(formats).length === 0) return undefined;
  return (kind, words, attempt) => {
    const format = formats[kind === 'attachment' ? 'message' : kind];
    return format ? shaped(format, words, attempt) : chars(BASE62, 16, words);
  };
}

/** The seeded world with its ids in the twin's formats; links (conversation_id, message_id) follow. */
export function withIds(data: WorldData, formats: IdFormats): WorldData {
  if (Object.keys(formats).length === 0) return data;
  const taken = new Set<string>();
  const maps: Record<IdKind, Map<string, string>> = {
    contact: new Map(),
    conversation: new Map(),
    message: new Map(),
  };
  const map = (kind: IdKind, id: string): string => {
    const format = formats[kind];
    if (!format) return id;
    let known = maps[kind].get(id);
    if (known === undefined) {
      const words = wordsOf(`${kind}:${id}`);
      for (let attempt = 0; taken.has((known = shaped(format, words, attempt))); attempt++);
      taken.add(known);
      maps[kind].set(id, known);
    }
    return known;
  };
  return {
    contacts: data.contacts.map((c) => ({
      ...c,
      id: map('contact', c.id),
      conversation_id: map('conversation', c.conversation_id),
    })),
    messages: data.messages.map((m) => {
      const id = map('message', m.id);
      return {
        ...m,
        id,
        conversation_id: map('conversation', m.conversation_id),
        attachments: m.attachments.map((a) => ({ ...a, message_id: id })),
      };
    }),
  };
}
