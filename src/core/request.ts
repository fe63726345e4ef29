import { ApiError, MissingParameter, errors } from '../errors';
import { errorAnswer, toApiError, type BodyLimit, type CoreAnswer, type CoreRequest } from './answer';
import { encodingOf } from './body';

/** The body of a request, within `limit`: read now if the transport gives a reader. */
export async function bodyOf(request: CoreRequest, limit: BodyLimit): Promise<Uint8Array | undefined> {
  const { body } = request;
  if (body === undefined) return undefined;
  const bytes =
    typeof body === 'function'
      ? await body(limit)
      : typeof body === 'string'
        ? new TextEncoder().encode(body)
        : body;
  if (bytes !== undefined && bytes.length > limit.bytes) throw errors.bodyTooLarge(limit.label);
  return bytes;
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

/** The path of a URL given as path and query, or in absolute form (`http://host/v1/…`, the host ignored). */
export function pathOf(url: string): string {
  const at = url.indexOf('?');
  const path = at === -1 ? url : url.slice(0, at);
  if (path.startsWith('/')) return path;
  const slash = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(path);
  return slash ? path.slice(slash[0].length) || '/' : path;
}
