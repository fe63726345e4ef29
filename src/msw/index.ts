import { HttpResponse, http, type HttpHandler } from 'msw';
import { createCore, type Core, type CoreAnswer, type CoreOptions } from '../create-core';

export interface HandlersOptions extends CoreOptions {
  /**
   * Where the API is served: an absolute URL (`https://api.example.com`, `http://localhost:4010`)
   * or, in a browser, a path of the page's own origin (`/api`). Requests to the API's paths
   * under it (`/v1/…`, `/__mock/…`, `/openapi.json`) are answered; others pass through.
   */
  baseUrl: string;
}

/** MSW request handlers for the whole API, with the mock's worlds behind them. */
export interface MockHandlers extends Array<HttpHandler> {
  /** Puts every token's world back to the seeded (or fixture) world, and forgets kept worlds. */
  reset(): void;
  /** Cancels what is pending (simulated replies). */
  stop(): void;
  /**
   * Settles once the seeded world is loaded (at once with `data`). Requests wait for it by
   * themselves; await it in a `beforeAll` to have the first request's wait there instead.
   */
  readonly ready: Promise<void>;
  /** The core that answers: its worlds, for tests that look inside (once `ready` has settled). */
  readonly core: Core;
}

/**
 * The mock inside Mock Service Worker: the same core as `npm start` (worlds per token, rules,
 * paging, errors, switches, control routes), with no server to start.
 *
 *   // Node (Jest, Vitest):
 *   const handlers = createHandlers({ baseUrl: 'https://api.example.com', seed: 42 });
 *   const server = setupServer(...handlers);   // from 'msw/node'
 *   server.listen(); handlers.reset(); server.close();
 *
 *   // Browser (Storybook, a demo build): setupWorker(...handlers).start(), from 'msw/browser'.
 */
export function createHandlers(options: HandlersOptions): MockHandlers {
  const core = createCore(options);
  const base = options.baseUrl.replace(/\/+$/, '');
  // The path under which the API lives, to take off each request's path.
  const basePath = /^[a-z][a-z0-9+.-]*:/i.test(base) ? new URL(base).pathname.replace(/\/+$/, '') : base;
  const origin = (url: URL) => (/^[a-z][a-z0-9+.-]*:/i.test(base) ? base : `${url.origin}${base}`);
  // A predicate rather than a path pattern: MSW would percent-decode a pattern's wildcard, and
  // throw on a path that is not valid percent-encoding, which the core answers 400 itself.
  const ours = ({ request }: { request: Request }) => {
    const { pathname } = new URL(request.url);
    return request.url.startsWith(origin(new URL(request.url))) && pathname.startsWith(`${basePath}/`);
  };
  const handler = http.all(ours, async ({ request }) => {
    const url = new URL(request.url);
    const answer = await core.handle({
      method: request.method,
      url: (url.pathname.slice(basePath.length) || '/') + url.search,
      origin: origin(url),
      headers: Object.fromEntries(request.headers),
      // A body of no bytes is no body, as an empty Content-Length is to a server.
      body:
        request.body === null
          ? undefined
          : async () => {
              const bytes = new Uint8Array(await request.arrayBuffer());
              return bytes.length === 0 ? undefined : bytes;
            },
    });
    return toResponse(request.method, answer);
  });
  return Object.assign([handler], {
    reset: () => core.reset(),
    stop: () => core.stop(),
    ready: core.ready,
    core,
  });
}

/** The core's answer as a Fetch API response; no body for HEAD and 204, as a server sends none. */
function toResponse(method: string, answer: CoreAnswer): Response {
  const headers = new Headers(answer.headers);
  if (answer.status !== 204)
    headers.set('Content-Length', String(new TextEncoder().encode(answer.body).length));
  const empty = method.toUpperCase() === 'HEAD' || answer.status === 204;
  return new HttpResponse(empty ? null : answer.body, { status: answer.status, headers });
}
