import { config } from '../http/config';
import { CONTACT_FIELDS } from '../rules/resources';

/**
 * Values the server accepts where the document leaves formats open (2.5: "Length limits and
 * format rules of username, phone_number, avatar_url, display_name and message: not shown";
 * the attachment's fields and the reaction names: not shown). The bin finds them before the rules
 * run (probes/discover.ts) and hands them to jest's workers through CONTRACT_FOUND_SAMPLES; the user may
 * give some (`--sample key=value`, `--samples file.json`, CONTRACT_SAMPLES), which are tried first.
 */
export const SAMPLE_KEYS = [
  'contact.username',
  'contact.phone_number',
  'contact.avatar_url',
  'contact.display_name',
  'message.message',
  'message.attachment',
  'reaction.name',
] as const;
export type SampleKey = (typeof SAMPLE_KEYS)[number];
export type UserSamples = Partial<Record<SampleKey, string[]>>;

/** How the kit makes unique usernames: a separator between its parts, and a length cap. */
export interface UsernameStyle {
  separator: '_' | '.' | '-' | '';
  max: number;
}

export interface Found {
  /** The values a contact was created with; undefined when no contact could be created. */
  contact?: {
    username: UsernameStyle;
    /** A phone number whose last four digits the kit varies. */
    phone: string;
    /** Undefined: the server took no avatar_url the kit tried, so it sends none. */
    avatar?: string;
    displayName?: string;
  };
  /** A text the server took; undefined when no message could be sent. */
  message?: string;
  /** The keys of an attachment object the server took, e.g. ["url", "name"]. */
  attachment?: string[];
  /** Reaction names the server took, in the order found. */
  reactions: string[];
  /** Why a value was not found, by sample key. */
  missing: Partial<Record<SampleKey, string>>;
}

export const USERNAME_STYLES: UsernameStyle[] = [
  { separator: '_', max: 32 },
  { separator: '', max: 24 },
  { separator: '.', max: 32 },
  { separator: '-', max: 32 },
  { separator: '', max: 15 },
  { separator: '', max: 8 },
];

/** Below this length a username has no room for its label or counter: see usernameFor. */
const COMPACT = 15;
export const PHONES = ['+15550102783', '+1 555 010 2783', '+1-555-010-2783', '(555) 010-2783', '15550102783'];
export const AVATARS = [
  'https://example.com/avatars/kit.png',
  'https://www.example.com/images/avatar.jpg',
  'http://example.com/avatars/kit.png',
];
export const DISPLAY_NAMES = ['Kit Contact', 'KitContact', 'kit'];
/** Attachment shapes seen in real APIs, tried in this order. */
export const ATTACHMENT_SHAPES: string[][] = [
  ['filename', 'file_url', 'file_type'],
  ['url', 'name'],
  ['url'],
  ['url', 'filename', 'content_type'],
  ['file_url', 'filename'],
  ['file_url', 'file_name'],
  ['name', 'url', 'content_type', 'size'],
  ['link', 'title'],
];
export const REACTIONS = ['heart', 'thumbs_up', 'like', 'smile', 'laugh', '+1', '👍'];

export function readUserSamples(text: string | undefined): UserSamples {
  if (!text) return {};
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const samples: UserSamples = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!(SAMPLE_KEYS as readonly string[]).includes(key))
      throw new Error(`unknown sample key "${key}" (known: ${SAMPLE_KEYS.join(', ')})`);
    const values = Array.isArray(value) ? value : [value];
    samples[key as SampleKey] = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  }
  return samples;
}

/** The style of a username the user gave: its separator, and room for the kit's suffix. */
export function styleOf(username: string): UsernameStyle {
  const separator = (['_', '.', '-'] as const).find((s) => username.includes(s)) ?? '';
  // As long as the name given: the server takes that length. Six at least, for a unique name.
  return { separator, max: Math.max(username.length, 6) };
}

/** The keys of an attachment the user gave as a JSON object. */
export function attachmentKeysOf(sample: string): string[] {
  const parsed = JSON.parse(sample) as unknown;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('message.attachment must be a JSON object, e.g. {"url":"https://…","name":"a.pdf"}');
  return Object.keys(parsed);
}

const DEFAULT_FOUND: Found = {
  contact: {
    username: USERNAME_STYLES[0]!,
    phone: PHONES[0]!,
    avatar: AVATARS[0],
    displayName: DISPLAY_NAMES[0],
  },
  message: 'sample',
  attachment: ATTACHMENT_SHAPES[0],
  reactions: REACTIONS.slice(0, 4),
  missing: {},
};

/** What the bin found; without a discovery (a test run inside jest alone), the first guesses. */
function found(): Found {
  const text = process.env.CONTRACT_FOUND_SAMPLES;
  return text ? (JSON.parse(text) as Found) : DEFAULT_FOUND;
}

let cache: Found | undefined;
const current = () => (cache ??= found());

/** The short usernames drawn in this module (a test file's own, in jest), never drawn twice. */
const compactNames = new Set<string>();

/**
 * A unique username in the accepted style; it starts with the run id, for the sweep. The style's
 * `max` is the longest the kit sends: the search for the style (`longest`) sends one that long,
 * or a server with a shorter limit would take the style's shorter names only, and refuse the run's
 * longer ones (their tail, the process and a counter, grows).
 */
export function usernameFor(
  label: string,
  n: number,
  style = current().contact?.username,
  longest = false,
): string {
  const { separator, max } = style ?? USERNAME_STYLES[0]!;
  if (longest) {
    const name = usernameFor(label, n, style);
    return `${name}${'x'.repeat(max - name.length)}`;
  }
  if (max < COMPACT) {
    // The run id's first two letters, then random letters and digits: a counter would repeat,
    // for each test file counts from one in the same process. Four of them make one in 1.7 million:
    // among a file's few hundred names two could be alike, so a name drawn before is drawn again.
    for (;;) {
      const random = Array.from({ length: Math.max(4, max - 2) }, () =>
        Math.floor(Math.random() * 36).toString(36),
      ).join('');
      const name = `${config.runId.slice(0, 2)}${random}`;
      if (compactNames.has(name)) continue;
      compactNames.add(name);
      return name;
    }
  }
  const tail = `${process.pid.toString(36)}${n}`;
  const room = max - config.runId.length - tail.length - 2 * separator.length;
  const middle = label
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, Math.max(0, room));
  return [config.runId, middle, tail]
    .filter((p) => p !== '')
    .join(separator)
    .slice(0, max);
}

/** The separator of the usernames the server takes, between the run id and the rest. */
export const usernameStyle = (): string => (current().contact?.username ?? USERNAME_STYLES[0]!).separator;

/** A phone number in the accepted form, its last four digits made from n. */
export function phoneFor(n: number, sample = current().contact?.phone ?? PHONES[0]!): string {
  const digits = String(1000 + ((n * 7919) % 9000));
  let out = '';
  let left = 4;
  for (let i = sample.length - 1; i >= 0; i--) {
    const c = sample[i]!;
    if (left > 0 && c >= '0' && c <= '9') {
      left -= 1;
      out = digits[left]! + out;
    } else out = c + out;
  }
  return out;
}

export const avatarSample = (): string | undefined => current().contact?.avatar;

/**
 * What the kit sends for an attribute of a contact that a create or an update may send
 * (rules/resources.ts): the avatar sample for avatar_url, `text` for display_name and any other
 * free text, the form's `true` for a boolean (a value a server's default is unlikely to be).
 * Undefined where the kit has no value the server takes (no avatar sample) or the field is not
 * one whose value is sent.
 */
export function contactValue(field: string, text: string): string | undefined {
  if (field === 'avatar_url') return avatarSample();
  const kind = CONTACT_FIELDS[field]?.sent;
  return kind === 'boolean' ? 'true' : kind === 'text' ? text : undefined;
}

export const reactionNames = (): string[] => {
  const names = current().reactions;
  return names.length > 0 ? names : REACTIONS;
};

/** A reaction as an update's form sends it (docs/api.md 2.3): the name in the key, the username as value. */
export function reactionPair(name: string, username: string): [string, string] {
  return [`reactions[${name}][]`, username];
}

/** An attachment in the accepted shape, made from a file name. */
export function attachmentPairs(
  index: number,
  filename: string,
  keys = current().attachment ?? ATTACHMENT_SHAPES[0]!,
): [string, string][] {
  const url = `https://example.com/files/${filename}`;
  const valueOf = (key: string): string => {
    if (/url|link/.test(key)) return url;
    if (/name|title/.test(key)) return filename;
    if (/type/.test(key)) return 'application/pdf';
    if (key === 'size') return '1024';
    return filename;
  };
  return keys.map((key) => [`attachments[${index}][${key}]`, valueOf(key)]);
}

/** Why the kit cannot make a contact or a message here, when discovery found none. */
export function cannotMake(what: 'contact' | 'message'): string | undefined {
  const f = current();
  if (what === 'contact' && !f.contact)
    return `the server refused every contact the kit tried: it ${f.missing['contact.phone_number'] ?? 'gave no reason'}. Give a value it takes with --sample contact.phone_number=… (and --sample contact.username=… when usernames are refused), or CONTRACT_SAMPLES / --samples FILE`;
  if (what === 'message' && f.message === undefined)
    return `the server refused every message the kit tried (${f.missing['message.message'] ?? 'no reason known'}); give an accepted text with --sample message.message=…`;
  return undefined;
}
