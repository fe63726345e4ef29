/**
 * The formats of the API's values (conventions C14-C16): the lengths and patterns that a
 * request's parameters and a fixture's fields are checked against, and the defaults of values
 * left out. The field tables (contact.ts, message.ts, attachment.ts) name them; the parsers
 * (input/operations.ts), the fixture validator and the OpenAPI document read them from there.
 */

export interface StringRule {
  min?: number;
  max: number;
  pattern?: RegExp;
  /** Says in words what `pattern` allows, for the error message. */
  patternText?: string;
}

/** The bounds of a whole number, as `checkInteger` takes them. */
export interface IntegerRule {
  min: number;
  max: number;
}

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

export const FILE_SIZE: IntegerRule = { min: 0, max: Number.MAX_SAFE_INTEGER };

/** UTF-16 halves that stand alone: a JSON string may carry one, and no URL can. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A stored string as a part of a URL. A string may hold a lone surrogate (JSON allows `"\ud800"`,
 * and strings are stored as sent), on which encodeURIComponent throws: U+FFFD stands in for it.
 */
export const uriComponent = (text: string): string =>
  encodeURIComponent(text.replace(LONE_SURROGATE, '\uFFFD'));

/** A contact created without `avatar_url` still gets a working picture: its initials. */
export function defaultAvatarUrl(username: string): string {
  return `https://api.dicebear.com/9.x/initials/svg?seed=${uriComponent(username)}`;
}
