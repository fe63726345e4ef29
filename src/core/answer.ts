import { ApiError, MissingParameter, errors } from '../errors';
import { encodingOf } from './body';
import type { CoreRequest } from './request';
import { toJson } from './json';

/** An answer from the core. Its body is sent for every method but HEAD; Content-Length is the transport's to set. */
export interface CoreAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON answer. */
export function json(status: number, value: unknown): CoreAnswer {
  return { status, headers: { 'Content-Type': JSON_TYPE }, body: toJson(value) ?? 'null' };
}

export function noContent(): CoreAnswer {
  return { status: 204, headers: {}, body: '' };
}

/** The one error shape of convention C2, with the headers that belong to the refusal. Never a stack trace. */
export function errorAnswer(error: ApiError): CoreAnswer {
  return {
    status: error.status,
    headers: { ...error.headers, 'Content-Type': JSON_TYPE },
    body: JSON.stringify(error),
  };
}

/** Anything thrown while answering, as an ApiError: the store's refusals as they are, anything else a bug. */
function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : errors.internal();
}

// C19: any origin, and the headers a browser page needs to read: the switches' answer
// (`Preference-Applied`), a forced 429/503's `Retry-After`, and a 401's `WWW-Authenticate`.
const EVERY_ANSWER = {
  'X-Content-Type-Options': 'nosniff',
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Preference-Applied,Retry-After,WWW-Authenticate',
} as const;

/** Adds the headers of every answer. */
export function withCommonHeaders(answer: CoreAnswer): CoreAnswer {
  const link = answer.headers.Link !== undefined;
  Object.assign(answer.headers, EVERY_ANSWER);
  // A next page in a Link header (a twin's, src/twin/lists.ts): a page of another origin reads it too.
  if (link) answer.headers['Access-Control-Expose-Headers'] += ',Link';
  return answer;
}

/**
 * C19: any OPTIONS request is a CORS preflight, answered 204 before authentication (browsers
 * send no token with it), allowing the methods, the headers of the API and of the switches.
 */
export function preflight(): CoreAnswer {
  return {
    status: 204,
    headers: {
      'X-Content-Type-Options': 'nosniff',
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'GET,HEAD,POST,PUT,DELETE',
      'Access-Control-Allow-Headers': 'Authorization,Content-Type,Prefer',
      'Access-Control-Max-Age': '600',
      'Access-Control-Expose-Headers': EVERY_ANSWER['Access-Control-Expose-Headers'],
    },
    body: '',
  };
}

/**
 * The answer to what was thrown; a missing parameter's hint shows it as the request sends its
 * others. A bug (anything but an ApiError) is a 500 answer, and logged.
 */
export function refusal(error: unknown, request: CoreRequest, log: (line: string) => void): CoreAnswer {
  const thrown = error instanceof MissingParameter ? error.in(encodingOf(request.headers)) : error;
  const apiError: ApiError = toApiError(thrown);
  if (apiError.code === 'internal')
    log(`internal error: ${thrown instanceof Error ? thrown.stack : String(thrown)}`);
  return errorAnswer(apiError);
}
