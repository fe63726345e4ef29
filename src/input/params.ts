import { errors } from '../errors';
import type { StringRule } from '../resources/formats';

/**
 * The parameters of one request, as a Map so that no key (`__proto__`, `constructor`) can ever
 * reach an object's prototype. Values are strings (forms, queries) or JSON values.
 */
export type Params = ReadonlyMap<string, unknown>;

export function paramsFrom(source: unknown): Map<string, unknown> {
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return new Map();
  return new Map(Object.entries(source));
}

/** Convention C13: anything an operation does not take is refused, naming the parameter. */
export function refuseUnknown(params: Params, allowed: readonly string[]): void {
  for (const key of params.keys()) {
    if (!allowed.includes(key)) throw errors.unknown(key, allowed);
  }
}

/** Length in characters (code points), so that an emoji counts once. */
function charLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

export function checkString(value: unknown, name: string, rule: StringRule): string {
  if (typeof value !== 'string') throw errors.invalid(name, `must be a string, got ${describe(value)}.`);
  const min = rule.min ?? 0;
  // A cheap upper bound first: a string of more than 2·max UTF-16 units has more than max characters.
  const length = value.length > rule.max * 2 ? Infinity : charLength(value);
  if (length < min || length > rule.max) {
    throw errors.invalid(
      name,
      min > 0
        ? `must be ${min} to ${rule.max} characters long.`
        : `must be at most ${rule.max} characters long.`,
    );
  }
  if (rule.pattern && !rule.pattern.test(value)) {
    throw errors.invalid(name, `must be ${rule.patternText ?? `match ${rule.pattern}`}.`);
  }
  return value;
}

export function requiredString(params: Params, name: string, rule: StringRule, example: string): string {
  const value = params.get(name);
  if (value === undefined) throw errors.missing(name, [[name, example]]);
  return checkString(value, name, rule);
}

export function optionalString(params: Params, name: string, rule: StringRule): string | undefined {
  const value = params.get(name);
  return value === undefined ? undefined : checkString(value, name, rule);
}

export const MAX_URL_LENGTH = 2048;
/** The length of a URL field; `checkHttpUrl` checks the scheme besides. */
export const HTTP_URL: StringRule = { min: 1, max: MAX_URL_LENGTH };

/**
 * An absolute http(s) URL as RFC 3986 writes one: the scheme, `//` and an authority, and no space
 * or control character anywhere (the WHATWG parser would take ` https:x` by dropping what it
 * cannot use, and the value is stored as sent).
 */
const HTTP_URL_FORM = /^https?:\/\/[^\s\u0000-\u001f\u007f]+$/i;

export function checkHttpUrl(value: unknown, name: string): string {
  const text = checkString(value, name, HTTP_URL);
  const refused = () =>
    errors.invalid(name, 'must be an absolute http(s) URL without spaces, e.g. https://example.com/a.png.');
  if (!HTTP_URL_FORM.test(text)) throw refused();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refused();
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') throw refused();
  return text;
}

/** A whole number from a form string (`"12"`) or a JSON number (`12`). */
export function checkInteger(value: unknown, name: string, min: number, max: number): number {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^[0-9]{1,16}$/.test(value)) n = Number(value);
  else n = NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw errors.invalid(name, `must be a whole number from ${min} to ${max}, got ${describe(value)}.`);
  }
  return n;
}

export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A short description of a value for an error message; never echoes more than a few characters. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    const shown = value.length > 24 ? `${value.slice(0, 24)}…` : value;
    return JSON.stringify(shown);
  }
  return String(value);
}
