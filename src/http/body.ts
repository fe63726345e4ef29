import bodyParser from 'body-parser';
import busboy from 'busboy';
import type { NextFunction, Request, RequestHandler } from 'express';
import qs from 'qs';
import { ApiError, errors } from '../errors';
import { paramsFrom, type Params } from '../store/params';

/** Convention C12: bounds that no body, query or multipart form can exceed. */
export const BODY_LIMITS = {
  bytes: 100 * 1024,
  label: '100 kB',
  parameters: 1000,
  depth: 5,
  arrayLength: 100,
} as const;

const QS_OPTIONS: qs.IParseOptions & { throwOnLimitExceeded: boolean; strictDepth: boolean } = {
  // Null-prototype objects: a key like `constructor` is data, never a route to a prototype.
  plainObjects: true,
  depth: BODY_LIMITS.depth,
  strictDepth: true,
  parameterLimit: BODY_LIMITS.parameters,
  arrayLimit: BODY_LIMITS.arrayLength,
  throwOnLimitExceeded: true,
};

/** Parses `a=1&reactions[heart][]=bob` style text, with the limits above. */
export function parseFormText(text: string): Record<string, unknown> {
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
  refuseProtoKeys(text);
  return parsed;
}

/**
 * qs drops a `__proto__` key segment silently (`reactions[__proto__][]=x` arrives as nothing),
 * while JSON keeps it as data. Refusing it in both encodings (here and in checkJsonShape) makes
 * them agree and follows C13: no parameter is ever ignored without a word.
 */
function refuseProtoKeys(text: string): void {
  for (const part of text.split('&')) {
    // Where qs ends a key: at `]=` when there is one, else at the first `=`.
    const bracketEquals = part.indexOf(']=');
    const end = bracketEquals === -1 ? part.indexOf('=') : bracketEquals + 1;
    const key = decodeFormComponent(end === -1 ? part : part.slice(0, end));
    if (PROTO_SEGMENT.test(key)) {
      const bracket = key.indexOf('[');
      throw protoKey(bracket > 0 ? key.slice(0, bracket) : key);
    }
  }
}

const PROTO_SEGMENT = /(?:^|\[)__proto__(?:\]|\[|$)/;

function decodeFormComponent(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

function protoKey(param: string): ApiError {
  return errors.invalid(
    param,
    '"__proto__" is reserved and cannot be a parameter name, a key or a reaction name. Choose another name.',
  );
}

/** The query string of a request's URL, parsed like a form body. */
export function queryParams(req: Request): Map<string, unknown> {
  const at = req.originalUrl.indexOf('?');
  return at === -1 ? new Map() : paramsFrom(parseFormText(req.originalUrl.slice(at + 1)));
}

/** A request's parameters: its query, and for POST and PUT its body too. */
export function requestParams(req: Request): Params {
  const params = queryParams(req);
  const body: unknown = req.body;
  if (body !== undefined) {
    for (const [key, value] of paramsFrom(body)) {
      if (params.has(key))
        throw errors.invalid(key, 'was sent both in the query and in the body; send it once.');
      params.set(key, value);
    }
  }
  return params;
}

const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = 'multipart/form-data';

const readForm = bodyParser.text({ type: () => true, limit: BODY_LIMITS.bytes, defaultCharset: 'utf-8' });
const readJson = bodyParser.json({ type: () => true, limit: BODY_LIMITS.bytes, strict: true });

/**
 * Reads a form, JSON or multipart body into `req.body` as a plain object, or refuses it with
 * 400/413/415. A request without a body gets `req.body = undefined`.
 */
export const parseBody: RequestHandler = (req, res, done) => {
  req.body = undefined;
  // A refused body never stays on the request: later handlers (the journal, logs) must not see
  // a hostile shape, e.g. JSON nested 50,000 levels deep, that JSON.stringify cannot walk.
  const next: NextFunction = (error?: unknown) => {
    if (error !== undefined) req.body = undefined;
    done(error);
  };
  if (!hasBody(req)) return next();
  const declared = Number(req.headers['content-length']);
  if (declared > BODY_LIMITS.bytes) return next(errors.bodyTooLarge(BODY_LIMITS.label));
  const type = req.is([FORM, 'json', MULTIPART]);
  if (type === FORM) {
    return readForm(req, res, (error?: unknown) => {
      if (error) return next(bodyError(error));
      try {
        req.body = parseFormText(req.body as string);
        next();
      } catch (refusal) {
        next(refusal);
      }
    });
  }
  if (type === MULTIPART) return readMultipart(req, next);
  if (type) {
    return readJson(req, res, (error?: unknown) => {
      if (error) return next(bodyError(error));
      if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
        return next(
          errors.malformedBody('a JSON body must be an object of parameters, e.g. {"username": "alice"}.'),
        );
      }
      try {
        checkJsonShape(req.body);
        next();
      } catch (refusal) {
        next(refusal);
      }
    });
  }
  next(errors.unsupportedMediaType(req.headers['content-type'] ?? '(none)'));
};

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
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

/** body-parser's failures, in the catalogue's words. */
export function bodyError(error: unknown): ApiError {
  const type = (error as { type?: string }).type;
  switch (type) {
    case 'entity.too.large':
      return errors.bodyTooLarge(BODY_LIMITS.label);
    // In the catalogue's words, not the library's: its messages are not part of this API.
    case 'charset.unsupported':
      return unsupportedCharset(String((error as { charset?: unknown }).charset));
    case 'encoding.unsupported':
      return unsupportedEncoding(String((error as { encoding?: unknown }).encoding));
    case 'entity.parse.failed':
      return errors.malformedBody('it is not valid JSON. Check quotes, commas and brackets.');
    default:
      return errors.malformedBody('it ended early or did not match its Content-Length.');
  }
}

const unsupportedCharset = (charset: string) =>
  new ApiError(
    'unsupported_media_type',
    `The charset '${charset.slice(0, 40)}' is not supported. Send the body as UTF-8.`,
  );

const unsupportedEncoding = (encoding: string) =>
  new ApiError(
    'unsupported_media_type',
    `Content-Encoding '${encoding.slice(0, 40)}' is not supported here. Send the body uncompressed.`,
  );

/** Multipart fields (no file parts), turned into form text so that bracket keys work alike. */
function readMultipart(req: Request, next: NextFunction): void {
  // busboy reads the raw bytes: a compressed multipart body would only look malformed.
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') return next(unsupportedEncoding(encoding));
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: {
        fieldSize: BODY_LIMITS.bytes,
        fields: BODY_LIMITS.parameters,
        // One, so that the 'file' event names the field that we refuse.
        files: 1,
        // busboy signals 'partsLimit' on reaching the count, not on passing it: one more, so
        // that a multipart form of exactly `parameters` fields is read like a form body.
        parts: BODY_LIMITS.parameters + 1,
      },
    });
  } catch {
    return next(errors.malformedBody('the multipart boundary is missing from Content-Type.'));
  }
  const pairs: string[] = [];
  let received = 0;
  let failure: ApiError | undefined;
  const fail = (error: ApiError) => {
    if (failure) return;
    failure = error;
    req.unpipe(parser);
    req.resume();
    next(error);
  };
  req.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > BODY_LIMITS.bytes) fail(errors.bodyTooLarge(BODY_LIMITS.label));
  });
  parser.on('field', (name, value) => pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`));
  parser.on('file', (name, stream) => {
    stream.resume();
    fail(errors.invalid(name, 'file uploads are not supported; send a file_url in attachments instead.'));
  });
  parser.on('filesLimit', () =>
    fail(errors.invalid('file', 'file uploads are not supported; send a file_url in attachments instead.')),
  );
  parser.on('fieldsLimit', () => fail(errors.tooManyParameters(BODY_LIMITS.parameters)));
  parser.on('partsLimit', () => fail(errors.tooManyParameters(BODY_LIMITS.parameters)));
  parser.on('error', () => fail(errors.malformedBody('the multipart body is malformed.')));
  parser.on('close', () => {
    if (failure) return;
    try {
      req.body = parseFormText(pairs.join('&'));
      next();
    } catch (refusal) {
      fail(refusal as ApiError);
    }
  });
  req.pipe(parser);
}
