import type { ApiErrorBody } from './types';

/**
 * The one catalogue of error codes (convention C2/C3). Each code has one HTTP status; the store
 * throws codes, the error middleware turns them into statuses, so the store knows nothing of HTTP.
 */
export const ERROR_STATUS = {
  missing_token: 401,
  invalid_token: 401,
  forbidden: 403,
  not_found: 404,
  parameter_missing: 400,
  parameter_invalid: 400,
  parameter_unknown: 400,
  too_many_parameters: 400,
  nesting_too_deep: 400,
  malformed_body: 400,
  malformed_url: 400,
  /** Refused by Node's HTTP parser before any route: see express/client-errors.ts answerClientError. */
  malformed_request: 400,
  request_timeout: 408,
  expectation_failed: 417,
  headers_too_large: 431,
  route_not_found: 404,
  method_not_allowed: 405,
  world_full: 409,
  body_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  /** A write the data dir could not keep (a full disk): nothing of it is applied. */
  insufficient_storage: 507,
  service_unavailable: 503,
  /** Any other status asked for with `Prefer: code=…`; it carries its own status. */
  simulated_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The header by which a refusal says its id was deleted (`errors.deleted`): the twin's answer
 * (src/twin/answers.ts) turns it into its server's status and takes it off.
 */
export const DELETED_MARK = 'X-Mock-Deleted';

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  /** Extra response headers that belong to this refusal (`WWW-Authenticate`, `Allow`). */
  readonly headers: Readonly<Record<string, string>>;

  readonly #status: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    param?: string,
    headers: Record<string, string> = {},
    status?: number,
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.param = param;
    this.headers = headers;
    this.#status = status;
  }

  get status(): number {
    return this.#status ?? ERROR_STATUS[this.code];
  }

  toJSON(): ApiErrorBody {
    const body: ApiErrorBody = {
      type: this.status >= 500 ? 'api_error' : 'invalid_request',
      code: this.code,
      message: this.message,
    };
    if (this.param !== undefined) body.param = this.param;
    return body;
  }
}

/** How a request sent its parameters: a hint shows a parameter as that request would send it. */
export type Encoding = 'form' | 'json' | 'multipart';

/** Parameters named as a form names them (`attachments[0][filename]`), each with a value to show. */
export type Example = readonly (readonly [name: string, value: string | number])[];

/**
 * A required parameter that was not sent. Its hint shows how to send it in the request's encoding:
 * the store, which knows no encoding, gives the form's; the core, which read the body, asks for
 * the request's with `in`.
 */
export class MissingParameter extends ApiError {
  readonly example: Example;

  constructor(param: string, example: Example, encoding: Encoding = 'form') {
    super(
      'parameter_missing',
      `Missing required parameter: ${param}. Send it as ${shown(example, encoding)}.`,
      param,
    );
    this.example = example;
  }

  in(encoding: Encoding): MissingParameter {
    return new MissingParameter(this.param!, this.example, encoding);
  }
}

/**
 * An example in an encoding: `errors[status]=503&errors[count]=2` (a form, or a query),
 * `{"errors": {"status": 503, "count": 2}}` (JSON), or the multipart fields by name.
 */
function shown(example: Example, encoding: Encoding): string {
  if (encoding === 'form') {
    // What a form value must escape; the rest stays readable.
    const escaped = (value: string | number) =>
      String(value).replace(/[%&+=#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    return example.map(([name, value]) => `${name}=${escaped(value)}`).join('&');
  }
  if (encoding === 'multipart') {
    const [names, values] = [example.map(([name]) => name), example.map(([, value]) => String(value))];
    return example.length === 1
      ? `a field named ${names[0]}, with a value such as ${values[0]}`
      : `fields named ${names.join(' and ')}, with values such as ${values.join(' and ')}`;
  }
  const body: JsonShape = new Map();
  for (const [name, value] of example) {
    const keys = name.split(/\]?\[|\]$/).filter((key) => key !== '');
    let node = body;
    for (const key of keys.slice(0, -1)) {
      if (!(node.get(key) instanceof Map)) node.set(key, new Map());
      node = node.get(key) as JsonShape;
    }
    node.set(keys.at(-1)!, value);
  }
  return jsonText(body);
}

/** A JSON body as the hint builds it: a key of digits is an index in a list. */
type JsonShape = Map<string, JsonShape | string | number>;

/** JSON with a space after each colon and comma, as people write it; a list item's earlier items are `…`. */
function jsonText(value: JsonShape | string | number): string {
  if (!(value instanceof Map)) return JSON.stringify(value);
  const entries = [...value];
  if (entries.length > 0 && entries.every(([key]) => /^[0-9]+$/.test(key))) {
    const items = entries.map(([, item]) => jsonText(item));
    return `[${Number(entries[0]![0]) > 0 ? '…, ' : ''}${items.join(', ')}]`;
  }
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}: ${jsonText(item)}`).join(', ')}}`;
}

/** An id as a message quotes it: whole when it is id-sized, cut short when a client sent a novel. */
export function quoteId(id: string): string {
  return id.length <= 64 ? `'${id}'` : `'${id.slice(0, 64)}…' (${id.length} characters)`;
}

/** Enough of a token to tell tokens apart in a log, not enough to use it. */
export function redact(token: string): string {
  return token.length <= 8 ? `${token.slice(0, 2)}…` : `${token.slice(0, 4)}…`;
}

/** A size as messages and log lines say it: `146 kB`, `1.5 MB`, `128 MB`. */
export function size(bytes: number): string {
  return bytes < 2 ** 20 ? `${Math.round(bytes / 1024)} kB` : `${Math.round((bytes / 2 ** 20) * 10) / 10} MB`;
}

/** Named constructors, so every message of one kind is worded once. */
export const errors = {
  missingToken: () =>
    new ApiError(
      'missing_token',
      'No access token was sent. Send the header "Authorization: Bearer <token>".',
      undefined,
      { 'WWW-Authenticate': 'Bearer realm="messaging"' },
    ),
  invalidToken: (why: string) =>
    new ApiError('invalid_token', `${why} Send the header "Authorization: Bearer <token>".`, undefined, {
      'WWW-Authenticate': 'Bearer realm="messaging", error="invalid_token"',
    }),
  worldFull: (maxBytes: number) =>
    new ApiError(
      'world_full',
      `This token's world has grown by ${size(maxBytes)}, the most one world may. Delete records, reset it with POST /__mock/reset, or use another token.`,
    ),
  insufficientStorage: (why: string) =>
    new ApiError(
      'insufficient_storage',
      `This write could not be kept on the mock's disk (${why}), so nothing of it was applied; reads still work. Free some space, then send it again.`,
    ),
  fixtureTooLarge: (bytes: number, maxBytes: number) =>
    new ApiError(
      'world_full',
      `This fixture makes a world of ${size(bytes)}, more than one token's world may hold (${size(maxBytes)}, --max-world-mb). Serve it to every token with --fixtures instead, or start the mock with a larger --max-world-mb (and --max-total-mb).`,
    ),
  adminOnly: () =>
    new ApiError(
      'forbidden',
      "Resetting every token's world takes the admin token: start the mock with --admin-token <token> and send that token. Without all=true, this resets your own world.",
      'all',
    ),
  notFound: (resource: 'contact' | 'message' | 'conversation', id: string, param?: string) =>
    new ApiError('not_found', `No such ${resource}: ${quoteId(id)}.`, param),
  /** An id a delete took, in a twin that tells it from an unknown one: marked for the twin's status. */
  deleted: (resource: 'contact' | 'message', id: string) =>
    new ApiError('not_found', `No such ${resource}: ${quoteId(id)}; it was deleted.`, undefined, {
      [DELETED_MARK]: '1',
    }),
  missing: (param: string, example: Example) => new MissingParameter(param, example),
  invalid: (param: string, rule: string) =>
    new ApiError('parameter_invalid', `Invalid ${param}: ${rule}`, param),
  unknown: (param: string, allowed: readonly string[]) =>
    new ApiError(
      'parameter_unknown',
      `Received ${param === '' ? 'a parameter without a name' : `unknown parameter: ${param}`}. ` +
        (allowed.length > 0
          ? `This request accepts only: ${allowed.join(', ')}.`
          : 'This request takes no parameters.'),
      param,
    ),
  routeNotFound: (method: string, path: string) =>
    new ApiError('route_not_found', `Unrecognized request URL (${method}: ${path}).`),
  methodNotAllowed: (method: string, path: string, allowed: readonly string[]) =>
    new ApiError(
      'method_not_allowed',
      `${path} does not accept ${method}. Use one of: ${allowed.join(', ')}.`,
      undefined,
      { Allow: allowed.join(', ') },
    ),
  bodyTooLarge: (limit: string) =>
    new ApiError('body_too_large', `The request body is larger than ${limit}. Send a smaller body.`),
  unsupportedMediaType: (
    type: string,
    taken = 'application/x-www-form-urlencoded, application/json or multipart/form-data',
  ) =>
    new ApiError('unsupported_media_type', `Content-Type '${type}' is not supported. Send ${taken} (UTF-8).`),
  malformedBody: (why: string, param?: string) =>
    new ApiError(
      'malformed_body',
      `The request body could not be read${param === undefined ? '' : ` (parameter ${param})`}: ${why}`,
      param,
    ),
  /** PUT /__mock/state: what to send instead, as a command to paste. */
  unsupportedCharset: (charset: string) =>
    new ApiError(
      'unsupported_media_type',
      `The charset '${charset.slice(0, 40)}' is not supported. Send the body as UTF-8.`,
    ),
  unsupportedEncoding: (encoding: string) =>
    new ApiError(
      'unsupported_media_type',
      `Content-Encoding '${encoding.slice(0, 40)}' is not supported here. Send the body uncompressed.`,
    ),
  fixtureNotJson: (url: string) =>
    new ApiError(
      'malformed_body',
      `The body is not a fixture document in JSON. Send the file as it is, e.g.: curl -X PUT ${url} -H "Authorization: Bearer <token>" -H "Content-Type: application/json" --data-binary @fixtures/mine.json`,
    ),
  malformedUrl: (param?: string) =>
    new ApiError(
      'malformed_url',
      param === undefined
        ? 'The request URL is not valid percent-encoding. Encode it with encodeURIComponent.'
        : `The query parameter ${param} is not valid percent-encoding. Encode its name and value with encodeURIComponent.`,
      param,
    ),
  malformedRequest: () =>
    new ApiError(
      'malformed_request',
      'The request is not valid HTTP/1.1 (its request line, a header, or its framing). Check what your client sends.',
    ),
  requestTimeout: () =>
    new ApiError(
      'request_timeout',
      'The request did not arrive in time: its headers or body stopped coming. Send it whole.',
    ),
  expectationFailed: (expectation: string) =>
    new ApiError(
      'expectation_failed',
      `The expectation '${expectation.slice(0, 40)}' cannot be met. Send no Expect header, or "Expect: 100-continue".`,
    ),
  headersTooLarge: () =>
    new ApiError(
      'headers_too_large',
      'The request line and headers are larger than 16 kB. Send a shorter URL, fewer or shorter headers.',
    ),
  tooManyParameters: (limit: number) =>
    new ApiError('too_many_parameters', `The request has more than ${limit} parameters. Send fewer.`),
  listTooLong: (limit: number) =>
    new ApiError(
      'too_many_parameters',
      `A list in the request has more than ${limit} items, or an index beyond ${limit - 1}. Send fewer.`,
    ),
  nestingTooDeep: (limit: number) =>
    new ApiError('nesting_too_deep', `The request nests parameters deeper than ${limit} levels. Flatten it.`),
  /**
   * The answer to `Prefer: code=<status>`, or to the token's error switch (`PUT /__mock/switches`):
   * a proper error object of that status, saying which asked for it.
   */
  simulated: (status: number, by: 'prefer' | 'switch' = 'prefer') => {
    const why =
      by === 'prefer'
        ? `Simulated ${status} answer, asked for with the header "Prefer: code=${status}".`
        : `Simulated ${status} answer, asked for with the error switch of this token (PUT /__mock/switches).`;
    const retry = { 'Retry-After': '1' };
    switch (status) {
      case 401:
        return new ApiError('invalid_token', why, undefined, {
          'WWW-Authenticate': 'Bearer realm="messaging", error="invalid_token"',
        });
      case 404:
        return new ApiError('not_found', why);
      case 429:
        return new ApiError('rate_limited', why, undefined, retry);
      case 500:
        return new ApiError('internal', why);
      case 503:
        return new ApiError('service_unavailable', why, undefined, retry);
      default:
        return new ApiError('simulated_error', why, undefined, {}, status);
    }
  },
  internal: () =>
    new ApiError(
      'internal',
      'The mock failed to answer this request. This is a bug in the mock; please report it.',
    ),
};
