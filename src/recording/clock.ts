import { MAX_TIMESTAMP } from '../store/order';
import { describe } from '../input/params';
import { fail, type Json, type Report } from './report';

export type TimeField =
  | 'contact.created_at'
  | 'contact.last_active_at'
  | 'message.created_at'
  | 'message.read_at'
  | 'message.updated_at'
  | 'attachment.created_at';

const UNITS = [
  { name: 'seconds', per: 1, below: 1e11 },
  { name: 'milliseconds', per: 1e3, below: 1e14 },
  { name: 'microseconds', per: 1e6, below: 1e17 },
  { name: 'nanoseconds', per: 1e9, below: Infinity },
] as const;
type Unit = (typeof UNITS)[number];

const TOO_SMALL_TO_TELL = 1e9;
const NUMERIC_TEXT = /^[0-9]{1,20}(\.[0-9]+)?$/;
const DATE_TEXT =
  /^[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?)?([Zz]|[+-][0-9]{2}:?[0-9]{2})?$/;

/**
 * The unit of each timestamp field, told from its largest value: the document says "integer" and
 * no more, and servers answer seconds, milliseconds or finer. Seconds reach 1e11 only in the year
 * 5138, milliseconds 1e14 in 5138 too, and so on. A field is told on its own, in case a server
 * mixes units, unless its values are too small to tell.
 */
export class Clock {
  readonly #largest = new Map<TimeField, number>();

  see(field: TimeField, value: unknown): void {
    const n =
      typeof value === 'number'
        ? value
        : typeof value === 'string' && NUMERIC_TEXT.test(value)
          ? Number(value)
          : NaN;
    if (Number.isFinite(n)) this.#largest.set(field, Math.max(this.#largest.get(field) ?? 0, Math.abs(n)));
  }

  #unit(field: TimeField): Unit {
    let largest = this.#largest.get(field) ?? 0;
    // Too small to tell (before 2001 in seconds, or days after 1970 in milliseconds): the unit of the other fields.
    if (largest < TOO_SMALL_TO_TELL) largest = Math.max(0, ...this.#largest.values());
    return UNITS.find((unit) => largest < unit.below)!;
  }

  /** A timestamp as precise Unix seconds (ordering needs the fraction); null for a null. */
  read(value: unknown, field: TimeField, path: string, report: Report): number | null {
    if (value === null) return null;
    let n: number;
    if (typeof value === 'number') n = value;
    else if (typeof value === 'string' && NUMERIC_TEXT.test(value)) {
      report.convert('timestamps as numeric text → numbers');
      n = Number(value);
    } else if (typeof value === 'string' && DATE_TEXT.test(value.trim())) {
      report.convert('timestamps as date text (ISO 8601) → Unix seconds');
      const seconds = dateText(value.trim());
      if (Number.isNaN(seconds)) fail(path, `is no date, got ${describe(value)}.`);
      return this.#inRange(seconds, path, value);
    } else {
      return fail(
        path,
        `is not a timestamp the recorder can read (a Unix time or ISO 8601 text), got ${describe(value)}.`,
      );
    }
    if (!Number.isFinite(n) || n < 0)
      fail(path, `is not a timestamp the recorder can read, got ${describe(value)}.`);
    const unit = this.#unit(field);
    if (unit.per !== 1) report.convert(`timestamps in ${unit.name} → seconds`);
    else if (!Number.isInteger(n)) report.convert('timestamps with a fraction of a second → whole seconds');
    return this.#inRange(n / unit.per, path, value);
  }

  #inRange(seconds: number, path: string, value: unknown): number {
    if (!(seconds >= 0 && seconds < MAX_TIMESTAMP + 1))
      fail(path, `lies outside what the mock keeps (1970 to 2106), got ${describe(value)}.`);
    return seconds;
  }
}

/** Milliseconds of ISO 8601 text, as seconds; a time without a zone is UTC, like a date alone. */
function dateText(text: string): number {
  const iso = text.replace(' ', 'T');
  const zoned = !iso.includes('T') || /([Zz]|[+-][0-9]{2}:?[0-9]{2})$/.test(iso);
  return Date.parse(zoned ? iso : `${iso}Z`) / 1000;
}

/**
 * A record's timestamp field, as precise seconds. A missing one is an error, unless the field may
 * be null: then `nullFor` names the record's kind, and it is null, said as a conversion.
 */
export function timeOf(
  clock: Clock,
  record: Json,
  key: string,
  field: TimeField,
  where: string,
  report: Report,
  nullFor?: string,
): number | null {
  const value = record[key];
  if (value === undefined && nullFor !== undefined) {
    report.convert(`${nullFor} without ${key} → null`);
    return null;
  }
  if (value === undefined || (value === null && nullFor === undefined))
    fail(`${where}.${key}`, 'is missing.');
  return clock.read(value, field, `${where}.${key}`, report);
}

export const whole = (seconds: number | null) => (seconds === null ? null : Math.floor(seconds));
