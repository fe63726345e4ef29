import { errors } from '../errors';
import type { RequestHeaders } from './body';

/**
 * A request as the core takes it, from any transport. `url` is the path and query (`/v1/contacts?limit=5`)
 * relative to where the API is served. `body` is the body's bytes or text, or a function that
 * reads it when the core asks (with the most bytes it takes) and gives undefined when there is
 * none: so that a request refused before its body matters is refused without reading it.
 */
export interface CoreRequest {
  method: string;
  url: string;
  /** Where the API is served, e.g. `http://127.0.0.1:4010`: for messages that show a URL to use. */
  origin?: string;
  headers: RequestHeaders;
  body?: Uint8Array | string | BodyReader;
}

/** Reads a request's body, at most `limit` bytes (else throws the 413 refusal); undefined when there is none. */
export type BodyReader = (limit: BodyLimit) => Promise<Uint8Array | undefined>;

export interface BodyLimit {
  bytes: number;
  /** How the limit is named in the 413 refusal, e.g. `100 kB`. */
  label: string;
}

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

/** The path of a URL given as path and query, or in absolute form (`http://host/v1/…`, the host ignored). */
export function pathOf(url: string): string {
  const at = url.indexOf('?');
  const path = at === -1 ? url : url.slice(0, at);
  if (path.startsWith('/')) return path;
  const slash = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(path);
  return slash ? path.slice(slash[0].length) || '/' : path;
}
