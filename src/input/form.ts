import qs from 'qs';
import { ApiError, errors } from '../errors';
import { BODY_LIMITS } from './limits';
import { paramsFrom, type Params } from './params';

/**
 * Form-encoded text as parameters: a URL's query, and a form body once it is text (core/body.ts
 * reads it), within the limits of C12, with `__proto__` refused in every encoding.
 */
const QS_OPTIONS: qs.IParseOptions & { throwOnLimitExceeded: boolean; strictDepth: boolean } = {
  // Null-prototype objects: a key like `constructor` is data, never a route to a prototype.
  plainObjects: true,
  depth: BODY_LIMITS.depth,
  strictDepth: true,
  parameterLimit: BODY_LIMITS.parameters,
  arrayLimit: BODY_LIMITS.arrayLength,
  throwOnLimitExceeded: true,
};

/** Where form-encoded text came from: a refusal of its encoding names the body or the URL. */
type FormSource = 'body' | 'query';

/** Parses `a=1&reactions[heart][]=bob` style text, with the limits above. */
export function parseFormText(text: string, source: FormSource = 'body'): Record<string, unknown> {
  let parsed: Record<string, unknown>;
  try {
    parsed = qs.parse(text, QS_OPTIONS) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (message.startsWith('Input depth')) throw errors.nestingTooDeep(BODY_LIMITS.depth);
    if (message.startsWith('Array limit')) {
      throw errors.listTooLong(BODY_LIMITS.arrayLength);
    }
    if (message.startsWith('Parameter limit')) throw errors.tooManyParameters(BODY_LIMITS.parameters);
    throw errors.malformedBody('the form encoding could not be decoded.');
  }
  // After qs, so that its parameter limit bounds this walk too.
  return withSilentKeys(text, parsed, source);
}

/**
 * The keys qs drops without a word, which JSON keeps as data: C13 ignores no parameter silently.
 * A `__proto__` key segment (`reactions[__proto__][]=x` arrives as nothing) is refused, here and in
 * checkJsonShape; a pair without a name (`=x`) is kept under the name '', which no operation takes,
 * so that it is refused as the unknown parameter it is, as `{"": "x"}` is.
 */
function withSilentKeys(
  text: string,
  parsed: Record<string, unknown>,
  source: FormSource,
): Record<string, unknown> {
  for (const part of text.split('&')) {
    if (part === '') continue;
    // Where qs ends a key: at `]=` when there is one, else at the first `=`.
    const bracketEquals = part.indexOf(']=');
    const end = bracketEquals === -1 ? part.indexOf('=') : bracketEquals + 1;
    const rawKey = end === -1 ? part : part.slice(0, end);
    const key = decodeFormComponent(rawKey, rawKey, source);
    // qs keeps a value it cannot decode as the text it is: refused here, naming its parameter.
    const value = end === -1 ? '' : decodeFormComponent(part.slice(end + 1), key, source);
    if (PROTO_SEGMENT.test(key)) {
      const bracket = key.indexOf('[');
      throw protoKey(bracket > 0 ? key.slice(0, bracket) : key);
    }
    if (key === '' && !('' in parsed)) parsed[''] = value;
  }
  return parsed;
}

const PROTO_SEGMENT = /(?:^|\[)__proto__(?:\]|\[|$)/;

/** A key or value of form-encoded text, decoded; broken percent-encoding is refused, naming `param`. */
function decodeFormComponent(text: string, param: string, source: FormSource): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    throw source === 'query' ? errors.malformedUrl(param) : errors.malformedBody(NOT_PERCENT_ENCODED, param);
  }
}

const NOT_PERCENT_ENCODED =
  'a form value or name is not valid percent-encoding (a % not followed by two hex digits, or bytes that are not UTF-8). Encode it with encodeURIComponent.';

export function protoKey(param: string): ApiError {
  return errors.invalid(
    param,
    '"__proto__" is reserved and cannot be a parameter name, a key or a reaction name. Choose another name.',
  );
}

/** The query string of a URL (its path and query), parsed like a form body. */
export function queryParams(url: string): Map<string, unknown> {
  const at = url.indexOf('?');
  return at === -1 ? new Map() : paramsFrom(parseFormText(url.slice(at + 1), 'query'));
}

/** A request's parameters: its URL's query and its body's; a parameter sent in both is refused. */
export function requestParams(url: string, body: Record<string, unknown> | undefined): Params {
  const params = queryParams(url);
  if (body !== undefined) {
    for (const [key, value] of paramsFrom(body)) {
      if (params.has(key))
        throw errors.invalid(key, 'was sent both in the query and in the body; send it once.');
      params.set(key, value);
    }
  }
  return params;
}
