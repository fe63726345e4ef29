import { Faker, base, en } from '@faker-js/faker';
import type { Attachment, ContactData, MessageData, Reaction, Timestamp } from './types';
import type { WorldData } from './store/world';

import type { SeedOptions } from './seed-options';

export { SEED_DEFAULTS, type SeedOptions } from './seed-options';

/**
 * The seeded world's "now". Fixed, so that the same seed gives byte-identical answers on every
 * start, on every machine, on every day; every seeded timestamp lies before it.
 */
export const SEED_NOW: Timestamp = Date.UTC(2026, 9, 31, 18, 0, 0) / 1000;

const DAY = 86_400;
const LINE_POOL = 5000;
const BASE62_8 = 62 ** 8;
/** Coprime with 62^8 (odd, not a multiple of 31), so the steps visit 62^8 values before one repeats. */
const WEYL_STEP = 134_941_606_358_707;
const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Every pair of base-62 digits, so that eight digits take four look-ups. */
const PAIRS = Array.from({ length: 62 * 62 }, (_, i) => DIGITS[Math.floor(i / 62)]! + DIGITS[i % 62]!);

/** Eight base-62 digits, left-padded. */
function base62(n: number): string {
  const low = n % 3844;
  n = (n - low) / 3844;
  const second = n % 3844;
  n = (n - second) / 3844;
  const third = n % 3844;
  return PAIRS[(n - third) / 3844]! + PAIRS[third]! + PAIRS[second]! + PAIRS[low]!;
}
export const REACTIONS = ['thumbs_up', 'heart', 'joy', 'tada', 'fire', 'eyes', 'pray', '+1'];

/**
 * A realistic, coherent world from a seed: every message lies in the conversation of an
 * existing contact, timestamps ascend within a conversation and lie in the past, some contacts
 * were never active (and have no messages), older messages are read, a few carry reactions,
 * attachments or edits.
 */
export function generateWorld(options: SeedOptions): WorldData {
  const f = new Faker({ locale: [en, base], seed: options.seed });
  // Eight random base-62 digits, then eight from a Weyl sequence (a step coprime with 62^8, near
  // 62^8 / golden ratio): one-to-one and well spread, so every id differs from every other
  // without a set of a million ids to check against (C6).
  let weyl = f.number.int({ max: BASE62_8 - 1 });
  const newId = (): string => {
    weyl = (weyl + WEYL_STEP) % BASE62_8;
    return base62(f.number.int({ max: BASE62_8 - 1 })) + base62(weyl);
  };
  // Chat lines come from a pool, drawn once: each line costs several faker calls.
  const lines = Array.from({ length: Math.min(options.messages, LINE_POOL) }, () => chatLine(f));

  const usernames = new Set<string>();
  const contacts: ContactData[] = [];
  for (let i = 0; i < options.contacts; i++) {
    const firstName = f.person.firstName();
    const lastName = f.person.lastName();
    let username = f.internet.username({ firstName, lastName }).slice(0, 60);
    while (usernames.has(username))
      username = `${username.slice(0, 56)}${f.number.int({ min: 1, max: 999 })}`;
    usernames.add(username);
    const created_at = SEED_NOW - f.number.int({ min: 2 * DAY, max: 730 * DAY });
    const naming = f.number.float();
    contacts.push({
      id: newId(),
      username,
      phone_number: f.phone.number({ style: 'international' }),
      avatar_url: f.image.avatar(),
      display_name: naming < 0.85 ? `${firstName} ${lastName}` : naming < 0.93 ? username : null,
      conversation_id: newId(),
      // Filled in below, from the conversation; null stays for the never-active fifth.
      last_active_at: f.datatype.boolean({ probability: 0.8 }) ? created_at : null,
      created_at,
    } satisfies ContactData);
  }

  if (options.messages > 0 && contacts.length === 0) throw new Error('messages need at least one contact.');
  // Messages need someone to talk to: with few contacts, all may have drawn "never active".
  if (options.messages > 0 && contacts.every((c) => c.last_active_at === null))
    contacts[0]!.last_active_at = 0;
  // Spread the messages over the active contacts' conversations, some long and some short.
  const active = contacts.filter((c) => c.last_active_at !== null);
  const counts = new Map<ContactData, number>(active.map((c) => [c, 0]));
  if (active.length > 0) {
    const cumulative: number[] = [];
    let total = 0;
    for (let i = 0; i < active.length; i++)
      cumulative.push((total += f.number.float({ min: 0.05, max: 1 }) ** 2));
    for (let i = 0; i < options.messages; i++) {
      const target = f.number.float({ max: total });
      let lo = 0;
      let hi = cumulative.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cumulative[mid]! < target) lo = mid + 1;
        else hi = mid;
      }
      const contact = active[lo]!;
      counts.set(contact, counts.get(contact)! + 1);
    }
  }

  const messages: MessageData[] = [];
  let done = 0;
  for (const contact of active) {
    const count = counts.get(contact)!;
    const times: number[] = [];
    for (let i = 0; i < count; i++)
      times.push(f.number.int({ min: contact.created_at + 60, max: SEED_NOW - 60 }));
    times.sort((a, b) => a - b);
    const unread = f.number.int({ min: 0, max: 3 });
    times.forEach((created_at, i) => {
      const id = newId();
      const edited = f.datatype.boolean({ probability: 0.05 });
      messages.push({
        id,
        conversation_id: contact.conversation_id,
        message: lines[f.number.int({ max: lines.length - 1 })]!,
        reactions: f.datatype.boolean({ probability: 0.08 }) ? reactions(f, contact.username) : [],
        attachments: f.datatype.boolean({ probability: 0.05 }) ? attachments(f, newId, id, created_at) : [],
        read_at:
          i < count - unread ? Math.min(SEED_NOW, created_at + f.number.int({ min: 5, max: 7200 })) : null,
        created_at,
        updated_at: edited ? Math.min(SEED_NOW, created_at + f.number.int({ min: 30, max: 3600 })) : null,
      } satisfies MessageData);
      if (++done % 50_000 === 0) options.onProgress?.(done, options.messages);
    });
    const last = times.length > 0 ? times[times.length - 1]! : contact.created_at;
    contact.last_active_at = f.number.int({ min: last, max: Math.min(SEED_NOW, last + 3 * DAY) });
  }
  options.onProgress?.(options.messages, options.messages);
  return { contacts, messages };
}

function reactions(f: Faker, username: string): Reaction[] {
  return f.helpers.arrayElements(REACTIONS, { min: 1, max: 2 }).map((name) => ({ [name]: [username] }));
}

function attachments(f: Faker, newId: () => string, messageId: string, created_at: Timestamp): Attachment[] {
  return Array.from({ length: f.number.int({ min: 1, max: 2 }) }, () => {
    const image = f.datatype.boolean({ probability: 0.6 });
    const extension = image ? 'jpg' : f.helpers.arrayElement(['pdf', 'docx', 'xlsx', 'zip']);
    const filename = image
      ? `IMG_${f.number.int({ min: 1000, max: 9999 })}.jpg`
      : f.system.commonFileName(extension);
    return {
      id: newId(),
      message_id: messageId,
      filename,
      file_url: image
        ? f.image.urlPicsumPhotos({ width: 1024, height: 768, grayscale: false, blur: 0 })
        : `https://files.${f.internet.domainName()}/${f.string.alphanumeric(10)}/${encodeURIComponent(filename)}`,
      file_type: image ? 'image/jpeg' : mimeTypes[extension]!,
      file_size: f.number.int({ min: 12_000, max: 4_800_000 }),
      created_at,
    } satisfies Attachment;
  });
}

const mimeTypes: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  zip: 'application/zip',
};

const SHORT = [
  'Sounds good 👍',
  'On my way!',
  'Haha 😂',
  'Thanks so much 🙏',
  'See you soon',
  'Ok, deal.',
  'Call me when you can',
  'Love it ❤️',
  'No worries!',
  'Good night 🌙',
  'Yes!!',
  'Did you get my email?',
];

const LINES: ((f: Faker) => string)[] = [
  (f) => `Are we still on for ${f.date.weekday()}?`,
  (f) => `Running ${f.number.int({ min: 5, max: 25 })} minutes late, sorry!`,
  (f) => `Can you grab some ${f.food.dish().toLowerCase()} on the way?`,
  (f) => `Let's meet at ${f.location.street()} around ${f.number.int({ min: 1, max: 11 })}pm`,
  (f) => `I'm in ${f.location.city()} until ${f.date.weekday()}, want to catch up after?`,
  (f) => `Have you heard "${f.music.songName()}"? Can't stop listening to it`,
  (f) => `Can you send me the ${f.system.commonFileName('pdf')} when you have a sec?`,
  (f) => `Just got a new ${f.commerce.product().toLowerCase()} 🎉`,
  (f) => `${f.company.name()} is hiring, thought of you`,
  (f) => `Reminder: ${f.person.firstName()}'s party is on ${f.date.weekday()}`,
  (f) => `How did the ${f.word.noun()} thing go?`,
  (f) => `Happy ${f.date.weekday()}! Any plans for the weekend?`,
  (f) => `Trying that new ${f.food.ethnicCategory()} place tonight, join us?`,
  (f) => `The ${f.vehicle.vehicle()} is back from the garage, finally`,
  (f) => `${f.hacker.phrase()}`,
  (f) => `Did you feed ${f.animal.petName()}?`,
  (f) =>
    `Flight lands at ${f.number.int({ min: 1, max: 12 })}:${f.helpers.arrayElement(['05', '20', '35', '50'])}, can you pick me up?`,
  (f) => `${f.person.firstName()} says hi 👋`,
];

export function chatLine(f: Faker): string {
  return f.datatype.boolean({ probability: 0.3 })
    ? f.helpers.arrayElement(SHORT)
    : f.helpers.arrayElement(LINES)(f);
}
