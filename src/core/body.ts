import { errors, type Encoding } from '../errors';
import { parseFormText, protoKey } from '../input/form';
import { BODY_LIMITS } from '../input/limits';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const MULTIPART = 'multipart/form-data';

/** The media type of a Content-Type header, lower case, and its charset parameter if any. */
function mediaType(header: string): { type: string; charset: string | undefined } {
  const [type = '', ...parameters] = header.split(';');
  let charset: string | undefined;
  for (const parameter of parameters) {
    const at = parameter.indexOf('=');
    if (parameter.slice(0, at).trim().toLowerCase() === 'charset') {
      charset = parameter
        .slice(at + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase();
    }
  }
  return { type: type.trim().toLowerCase(), charset };
}

/**
 * Reads a form, JSON or multipart body into a plain object of parameters, or refuses it with
 * 400/415. `bytes` is the body as it arrived (within BODY_LIMITS), already decoded from any
 * Content-Encoding that the transport undid (a `content-encoding` still in `headers` is
 * refused); undefined when the request has none, and then so is the answer.
 */
export async function readBody(
  headers: RequestHeaders,
  bytes: Uint8Array | undefined,
): Promise<Record<string, unknown> | undefined> {
  if (bytes === undefined) return undefined;
  const encoding = header(headers, 'content-encoding')?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    throw errors.unsupportedEncoding(encoding);
  }
  const contentType = header(headers, 'content-type');
  const { type, charset } = mediaType(contentType ?? '');
  if (type !== FORM && type !== MULTIPART && type !== JSON_TYPE)
    throw errors.unsupportedMediaType(contentType ?? '(none)');
  // Every body is read as UTF-8 (`utf8` is a common spelling of it); another charset is refused.
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    throw errors.unsupportedCharset(charset);
  if (type === FORM) return parseFormText(decode(bytes));
  if (type === MULTIPART) return readMultipart(contentType!, bytes);
  return parseJsonParams(decode(bytes));
}

/** How a request sent its parameters, for the hints of its refusals: its body's type (a query is a form's). */
export function encodingOf(headers: RequestHeaders): Encoding {
  const { type } = mediaType(header(headers, 'content-type') ?? '');
  return type === JSON_TYPE ? 'json' : type === MULTIPART ? 'multipart' : 'form';
}

/** One header's value; several of the same name are joined with commas, as HTTP joins them. */
export function header(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' || value === undefined ? value : value.join(', ');
}

/** Header names in lower case, as Node and the Fetch API's Headers give them. */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Not fatal: a byte that is not UTF-8 becomes U+FFFD, as in body-parser's decoding. */
function decode(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}

/** A JSON body: an object of parameters, within the same bounds as a form. */
function parseJsonParams(text: string): Record<string, unknown> {
  // Only an object of parameters is taken; a bare `"text"`, `12` or `null` is JSON, but none.
  if (!/\S/.test(text)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw errors.malformedBody('it is not valid JSON. Check quotes, commas and brackets.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw errors.malformedBody('a JSON body must be an object of parameters, e.g. {"username": "alice"}.');
  }
  checkJsonShape(parsed);
  return parsed as Record<string, unknown>;
}

/**
 * Multipart fields (no file parts), read with the Fetch API's own parser (in Node and in
 * browsers alike), then turned into form text so that bracket keys work as in a form body.
 */
async function readMultipart(contentType: string, bytes: Uint8Array): Promise<Record<string, unknown>> {
  if (!/;\s*boundary=/i.test(contentType)) {
    throw errors.malformedBody('the multipart boundary is missing from Content-Type.');
  }
  let form: FormData;
  try {
    // A body's bytes are never in a SharedArrayBuffer, which is all that the DOM's BodyInit rules out.
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: { 'content-type': contentType },
    }).formData();
  } catch {
    throw errors.malformedBody('the multipart body is malformed.');
  }
  const pairs: string[] = [];
  for (const [name, value] of form) {
    if (typeof value !== 'string') {
      throw errors.invalid(name, 'file uploads are not supported; send a file_url in attachments instead.');
    }
    if (pairs.length === BODY_LIMITS.parameters) throw errors.tooManyParameters(BODY_LIMITS.parameters);
    pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  }
  return parseFormText(pairs.join('&'));
}
/** The same bounds for JSON as qs sets for forms: depth and number of values; no `__proto__` key. */
function checkJsonShape(root: object): void {
  let values = 0;
  // [value, depth, the top-level parameter it belongs to]
  const stack: [unknown, number, string][] = [[root, 0, '']];
  while (stack.length > 0) {
    const [value, depth, param] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > BODY_LIMITS.depth) throw errors.nestingTooDeep(BODY_LIMITS.depth);
    if (Array.isArray(value)) {
      if (value.length > BODY_LIMITS.arrayLength) {
        throw errors.listTooLong(BODY_LIMITS.arrayLength);
      }
      values += value.length;
      if (values > BODY_LIMITS.parameters) throw errors.tooManyParameters(BODY_LIMITS.parameters);
      for (const child of value) stack.push([child, depth + 1, param]);
      continue;
    }
    const entries = Object.entries(value);
    values += entries.length;
    if (values > BODY_LIMITS.parameters) throw errors.tooManyParameters(BODY_LIMITS.parameters);
    for (const [key, child] of entries) {
      if (key === '__proto__') throw protoKey(param || key);
      stack.push([child, depth + 1, param || key]);
    }
  }
}
