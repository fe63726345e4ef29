import type { Contact } from './api';

/**
 * Emoji for the reaction names that the seeded world uses. A reaction shows as its emoji where the
 * browser can draw it (a machine without an emoji font draws an empty box), else as `:name:`.
 */
const EMOJI: Record<string, string> = {
  thumbs_up: '👍',
  '+1': '👍',
  heart: '❤️',
  joy: '😂',
  tada: '🎉',
  fire: '🔥',
  eyes: '👀',
  pray: '🙏',
};

export function reactionLabel(reaction: string, canDrawEmoji: boolean): string {
  const emoji = EMOJI[reaction];
  return emoji !== undefined && canDrawEmoji ? emoji : `:${reaction}:`;
}

export function nameOf(contact: Pick<Contact, 'display_name' | 'username'>): string {
  return contact.display_name || contact.username;
}

/** Up to two initials: avatars are drawn, not loaded (their URLs point outside the page). */
export function initials(name: string): string {
  const words = name
    .split(/[\s._-]+/)
    .filter(Boolean)
    .map((word) => Array.from(word)[0] ?? '');
  return (words.length > 1 ? words[0]! + words[words.length - 1]! : (words[0] ?? '?')).toUpperCase();
}

/** A stable hue for an id, so that each contact keeps its avatar's colour. */
export function hue(id: string): number {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) >>> 0;
  return hash % 360;
}

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How long ago a Unix time was, shortly: `now`, `5m`, `3h`, `2d`, `4w`, `1y`. */
export function ago(seconds: number, now = Date.now() / 1000): string {
  const elapsed = Math.max(0, now - seconds);
  if (elapsed < MINUTE) return 'now';
  if (elapsed < HOUR) return `${Math.floor(elapsed / MINUTE)}m`;
  if (elapsed < DAY) return `${Math.floor(elapsed / HOUR)}h`;
  if (elapsed < 7 * DAY) return `${Math.floor(elapsed / DAY)}d`;
  if (elapsed < 365 * DAY) return `${Math.floor(elapsed / (7 * DAY))}w`;
  return `${Math.floor(elapsed / (365 * DAY))}y`;
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function clock(seconds: number): string {
  return timeFormat.format(seconds * 1000);
}

export function fullDate(seconds: number): string {
  return fullFormat.format(seconds * 1000);
}

/** The label of a day's separator: Today, Yesterday, or the date. */
export function dayLabel(seconds: number, now = new Date()): string {
  const date = new Date(seconds * 1000);
  const days = Math.round((startOfDay(now) - startOfDay(date)) / (DAY * 1000));
  if (days === 0) return 'Today';
  if (days === 1) return 'Yesterday';
  return date.toLocaleDateString(undefined, {
    weekday: 'short',
    month: 'short',
    day: 'numeric',
    year: date.getFullYear() === now.getFullYear() ? undefined : 'numeric',
  });
}

export function dayKey(seconds: number): number {
  return startOfDay(new Date(seconds * 1000));
}

function startOfDay(date: Date): number {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

export function fileSize(bytes: number | null): string {
  if (bytes === null) return '';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}
