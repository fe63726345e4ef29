import { ApiError } from '../errors';
import { FixtureError } from '../fixtures';
import { checkHttpUrl, checkString } from '../input/params';
import type { StringRule } from '../resources/formats';

/** One kind of conversion or warning, and how often it was met (the converter's summary lines). */
export interface Tally {
  what: string;
  count: number;
  /** Where it was met first, for a warning. */
  example?: string;
}

export type Json = Record<string, unknown>;

/** What the conversion of a recorded account says about itself, for the summary. */
export class Report {
  readonly #conversions = new Map<string, number>();
  readonly #warnings = new Map<string, Tally>();
  readonly notes: string[] = [];

  convert(what: string, count = 1): void {
    if (count > 0) this.#conversions.set(what, (this.#conversions.get(what) ?? 0) + count);
  }

  warn(what: string, example: string): void {
    const tally = this.#warnings.get(what);
    if (tally) tally.count += 1;
    else this.#warnings.set(what, { what, count: 1, example });
  }

  get conversions(): Tally[] {
    return [...this.#conversions].map(([what, count]) => ({ what, count }));
  }

  get warnings(): Tally[] {
    return [...this.#warnings.values()];
  }
}

/** Where a record was met, for errors and warnings: `contacts[3] (id 1003)`. */
export const place = (list: string, index: number, id: unknown) =>
  `${list}[${index}]${typeof id === 'string' || typeof id === 'number' ? ` (id ${String(id)})` : ''}`;

export function fail(path: string, message: string): never {
  throw new FixtureError(path, message);
}

/** Whether a value passes one of the mock's field checks. */
function fits(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch (error) {
    if (error instanceof ApiError) return false;
    throw error;
  }
}

export const fitsRule = (value: unknown, rule: StringRule) => fits(() => checkString(value, 'value', rule));
export const isHttpUrl = (value: unknown) => fits(() => checkHttpUrl(value, 'value'));
