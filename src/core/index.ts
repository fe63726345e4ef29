import { ApiError, MissingParameter, errors, size } from '../errors';
import { openApiDocument } from '../openapi';
import { SEED_DEFAULTS, seedOf } from '../seed-options';
import { seededWorld } from '../seeded-world';
import type { Simulator } from '../simulate';
import { World, type WorldData } from '../store/world';
import { JournalBytes, type JournalDraft } from '../store/journal';
import { Worlds } from '../store/worlds';
import type { Timestamp } from '../types';
import {
  errorAnswer,
  json,
  preflight,
  toApiError,
  withCommonHeaders,
  type BodyLimit,
  type CoreAnswer,
  type CoreRequest,
} from './answer';
import { authenticator } from './auth';
import { encodingOf, header, readBody } from './body';
import { queryParams, requestParams } from '../input/form';
import { controlRoutes, type ControlExchange } from './control';
import { allowed, apiRoutes, findRoute, type Route } from './routes';
import { KeptWorlds, type WorldStorage } from './storage';
import { switchesOf, type Latency } from './switches';
import { twinAnswer } from '../twin/answers';
import { idMaker, withIds } from '../twin/ids';
import { readProfile } from '../twin/profile';
import { BODY_LIMITS, STATE_BODY_LIMIT } from '../input/limits';

export type { BodyLimit, BodyReader, CoreAnswer, CoreRequest } from './answer';
export type { WorldStorage } from './storage';

/** What a world, its tokens and its answers are made of, whatever the transport. */
export interface CoreOptions {
  /** Seed of the generated world; the same seed gives the same world. */
  seed?: number;
  /** Number of contacts of the generated world. */
  contacts?: number;
  /** Number of messages of the generated world, spread over the contacts' conversations. */
  messages?: number;
  /** A world to serve instead of a generated one (a fixture). */
  data?: WorldData;
  /** Accept only these tokens; by default any non-empty token is accepted. */
  tokens?: readonly string[];
  /** The token that may reset every token's world (`POST /__mock/reset?all=true`); none by default. */
  adminToken?: string;
  /** How many tokens keep a world at once (least recently used dropped first). Default 1,000. */
  maxWorlds?: number;
  /**
   * How many bytes one token's world may hold by its writes, counted at no less than what they
   * really hold; a write beyond is refused with 409 world_full. Default 64 MB.
   */
  maxWorldBytes?: number;
  /**
   * How many bytes all tokens together may hold beyond the seeded world they share: their
   * worlds' writes (or fixtures) and their request journals, counted at no less than what they
   * really hold. Beyond it, the least recently used tokens are shed, their journals first and
   * then their worlds, each shed logged. This is the bound of the memory that traffic can add;
   * the process holds the seeded world and its own code besides. Default 128 MB.
   */
  maxTotalBytes?: number;
  /** How many requests each token's journal keeps (`GET /__mock/requests`). Default 200. */
  journalSize?: number;
  /** Milliseconds added to every API answer. */
  latency?: Latency;
  /** Contacts answer the user's messages (`--simulate`); true, or the reply delay in ms. */
  simulate?: boolean | { replyDelayMs: { min: number; max: number } };
  /** The current time in Unix seconds; tests pass their own clock. */
  now?: () => Timestamp;
  /** Where log lines go (tokens shed to stay within the bounds, internal errors). Silent by default. */
  log?: (line: string) => void;
  /** Told how far the generation of a large world has got. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Keep each token's world here (e.g. a browser's `localStorage`), so that what a user did
   * survives a page reload. Saved after every write; a reset forgets it. Off by default.
   */
  storage?: WorldStorage;
  /**
   * Answer as a real server does where the document says "not shown": the choices of a server
   * profile the contract kit observed (`readProfile` of src/twin/profile.ts). Off by default: the
   * mock's own conventions C1–C20. The file's JSON as parsed; a profile that cannot be read
   * throws a ProfileError naming the field at fault.
   */
  conventions?: Record<string, unknown>;
}

export const CORE_DEFAULTS = {
  ...SEED_DEFAULTS,
  maxWorlds: 1000,
  journalSize: 200,
  maxWorldBytes: 64 * 2 ** 20,
  maxTotalBytes: 128 * 2 ** 20,
} as const;

/** The mock with no transport in it: a request in, an answer out. */
export interface Core {
  /** Answers one request; never throws (a bug is a 500 answer, and logged). */
  handle(request: CoreRequest): Promise<CoreAnswer>;
  /**
   * Settles once the seeded world (and the simulator, with `simulate`) is loaded: at once when
   * the world is given as `data`; otherwise it is loaded on creation, the default world as data
   * and any other seed through the generator, which a browser bundle loads as a chunk of its own.
   * Requests wait for it by themselves.
   */
  readonly ready: Promise<void>;
  /** Every token's world and journal; throws until `ready` has settled. */
  readonly worlds: Worlds;
  /** The simulated conversation, with `simulate`, once `ready` has settled. */
  readonly simulator: Simulator | undefined;
  /** Puts every token's world back to the seeded (or fixture) world. */
  reset(): void;
  /** Cancels what is pending (simulated replies). */
  stop(): void;
}

/**
 * Everything that decides an answer: authentication, the Prefer switches, parameters from the
 * query and the body, the routes of the ten operations and of the control routes, the store,
 * the error catalogue. No Node built-in is used here or in the store: this runs in a browser too.
 */
export function createCore(options: CoreOptions = {}): Core {
  const log = options.log ?? (() => {});
  const profile = options.conventions === undefined ? undefined : readProfile(options.conventions);
  const twin = profile?.conventions;
  const seed = options.seed ?? CORE_DEFAULTS.seed;
  const maxWorlds = options.maxWorlds ?? CORE_DEFAULTS.maxWorlds;
  const journalSize = options.journalSize ?? CORE_DEFAULTS.journalSize;
  const maxTotalBytes = options.maxTotalBytes ?? CORE_DEFAULTS.maxTotalBytes;
  const worldOptions = {
    now: options.now,
    maxWrittenBytes: options.maxWorldBytes ?? CORE_DEFAULTS.maxWorldBytes,
    newId: twin && idMaker(twin.ids),
  };
  const kept = options.storage && new KeptWorlds(options.storage, worldOptions, log);
  const authenticate = authenticator(
    options.tokens?.length && options.adminToken !== undefined
      ? [...options.tokens, options.adminToken]
      : options.tokens,
  );
  const openApi: Route<unknown>[] = [{ path: ['openapi.json'], methods: { GET: () => json(200, document) } }];
  const document = openApiDocument(profile);

  let simulator: Simulator | undefined;

  /** What needs the seeded world, built once it is there. */
  function loaded(data: WorldData): Loaded {
    const worlds = new Worlds(World.fromData(twin ? withIds(data, twin.ids) : data, worldOptions), {
      restore: kept && ((token) => kept.restore(token)),
      maxWorlds,
      journalSize,
      maxTotalBytes,
      onShed: ({ token, what, bound, bytes }) =>
        log(
          `${what} of token ${redact(token)} dropped: least recently used, and ${
            bound === 'worlds'
              ? `at most ${maxWorlds} tokens keep a world`
              : `all tokens together hold at most ${size(maxTotalBytes)}`
          } (${size(bytes)} given back)`,
        ),
    });
    return {
      worlds,
      // Requests wait for `ready`, by which the simulator is loaded.
      api: apiRoutes(
        options.simulate ? (world, message) => simulator!.messageSent(world, message) : undefined,
        twin,
      ),
      control: controlRoutes({
        worlds,
        journalSize,
        worldOptions,
        adminToken: options.adminToken,
        ...(profile ? { conventions: profile } : {}),
        changed:
          kept &&
          ((token, all) => {
            if (all) kept.forgetAll();
            else kept.save(token, worlds.of(token));
          }),
      }),
    };
  }

  // Given as data, the world is there at once; otherwise it is loaded now, and so is the
  // simulator, with `simulate`: the generator (faker) only for a seed that needs it.
  let state: Loaded | undefined = options.data === undefined ? undefined : loaded(options.data);
  let settled = state !== undefined && !options.simulate;
  const ready: Promise<void> = settled
    ? Promise.resolve()
    : Promise.all([
        state === undefined ? seededWorld(seedOf(options)).then((data) => (state = loaded(data))) : undefined,
        options.simulate
          ? import('../simulate').then(({ Simulator }) => {
              simulator = new Simulator({
                seed,
                ...(typeof options.simulate === 'object' ? options.simulate : {}),
              });
            })
          : undefined,
      ]).then(() => {
        settled = true;
      });
  // Told to every request and to whoever awaits it; never left unhandled.
  ready.catch(() => {});
  const current = (): Loaded => {
    if (state === undefined) throw new Error('The world is still loading: await core.ready first.');
    return state;
  };

  /** An API request (under /v1): journaled, switched, routed. */
  async function answerApi(request: CoreRequest, method: string, segments: string[]): Promise<CoreAnswer> {
    const token = authenticate(header(request.headers, 'authorization'));
    const { worlds } = current();
    const start = performance.now();
    const bytes = new JournalBytes();
    const entry: JournalDraft = {
      time: '',
      method,
      path: bytes.text(request.url),
      status: 0,
      duration_ms: 0,
    };
    let answer: CoreAnswer;
    try {
      answer = await switched(request, token, segments, entry);
    } catch (error) {
      answer = refusal(error, request);
    }
    if (twin) answer = twinAnswer(twin, answer, resourceOf(segments));
    entry.time = new Date().toISOString();
    entry.status = answer.status;
    entry.duration_ms = Math.round((performance.now() - start) * 100) / 100;
    // Kept as text, parsed when the journal is read (core/control.ts): off every request's path.
    const at = request.url.indexOf('?');
    if (at !== -1) entry.query = bytes.text(request.url.slice(at + 1));
    if (entry.body !== undefined) entry.body = bytes.body(entry.body);
    if (answer.body !== '') entry.answer = bytes.text(answer.body);
    worlds.record(token, entry, bytes.total);
    if (method !== 'GET' && method !== 'HEAD') {
      // A write may have grown the world: count it again against the budget of all worlds.
      worlds.refresh(token);
      kept?.save(token, worlds.of(token));
    }
    return answer;
  }

  /**
   * The latencies first (configured, the token's switch, `Prefer: delay`), then `Prefer: code`,
   * the token's error switch, or the real answer. `Prefer: code` wins over the switch, whose
   * count then waits for the next request.
   */
  async function switched(
    request: CoreRequest,
    token: string,
    segments: string[],
    entry: JournalDraft,
  ): Promise<CoreAnswer> {
    const { worlds } = current();
    const prefer = header(request.headers, 'prefer');
    const tokenSwitches = worlds.switches(token);
    if (
      prefer === undefined &&
      options.latency === undefined &&
      tokenSwitches.latency_ms === null &&
      tokenSwitches.errors === null
    )
      return routed(request, token, segments, entry);
    const { wait, code, applied } = switchesOf(prefer, options.latency);
    const total = wait + (tokenSwitches.latency_ms ?? 0);
    if (total > 0) await new Promise((done) => setTimeout(done, total));
    let answer: CoreAnswer;
    try {
      const forced = code ?? worlds.takeForcedError(token);
      if (forced !== undefined) entry.forced = code !== undefined ? 'prefer' : 'switch';
      answer =
        forced !== undefined
          ? errorAnswer(errors.simulated(forced))
          : await routed(request, token, segments, entry);
    } catch (error) {
      answer = refusal(error, request);
    }
    if (applied !== undefined) answer.headers['Preference-Applied'] = applied;
    return answer;
  }

  async function routed(
    request: CoreRequest,
    token: string,
    segments: string[],
    entry: JournalDraft,
  ): Promise<CoreAnswer> {
    const { api, worlds } = current();
    const found = route(api, request, segments);
    // Every method reads a body when one is sent, so that a GET or DELETE with parameters in
    // its body is refused like any unknown parameter (C13) rather than silently ignored.
    const body = await readBody(request.headers, await bodyOf(request, BODY_LIMITS));
    if (body !== undefined) entry.body = body;
    return found.handler({
      url: request.url,
      id: found.id,
      token,
      world: worlds.of(token),
      params: requestParams(request.url, body),
    });
  }

  function answerControl(request: CoreRequest, segments: string[]): CoreAnswer | Promise<CoreAnswer> {
    const token = authenticate(header(request.headers, 'authorization'));
    const found = route(current().control, request, segments);
    const exchange: ControlExchange = {
      token,
      params: queryParams(request.url),
      url: request.url,
      headers: request.headers,
      body: (limit = STATE_BODY_LIMIT) => bodyOf(request, limit),
      location: `${request.origin ?? 'http://localhost:4010'}${request.url}`,
    };
    return found.handler(exchange);
  }

  /** The handler of the route and method asked for, or the 404 or 405 refusal. */
  function route<X>(
    routes: readonly Route<X>[],
    request: CoreRequest,
    segments: string[],
  ): { handler: (x: X) => CoreAnswer | Promise<CoreAnswer>; id: string } {
    const found = findRoute(routes, segments);
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (found === undefined) throw errors.routeNotFound(request.method, pathOf(request.url));
    const handler = found.route.methods[method as keyof Route['methods']];
    if (handler === undefined) {
      throw errors.methodNotAllowed(
        request.method,
        pathOf(request.url),
        allowed(found.route as Route<never>),
      );
    }
    return { handler, id: found.id };
  }

  /** The answer to what was thrown; a missing parameter's hint shows it as the request sends its others. */
  function refusal(error: unknown, request: CoreRequest): CoreAnswer {
    return errorAnswer(
      logged(error instanceof MissingParameter ? error.in(encodingOf(request.headers)) : error),
    );
  }

  function logged(error: unknown): ApiError {
    const apiError = toApiError(error);
    if (apiError.code === 'internal')
      log(`internal error: ${error instanceof Error ? error.stack : String(error)}`);
    return apiError;
  }

  async function handle(given: CoreRequest): Promise<CoreAnswer> {
    const request = { ...given, method: given.method.toUpperCase() };
    if (request.method === 'OPTIONS') return preflight();
    let answer: CoreAnswer;
    // A twin serves the API under its server's path prefix, and only there.
    const prefixed = twin?.pathPrefix ? underPrefix(request.url, twin.pathPrefix) : undefined;
    if (prefixed !== undefined) request.url = prefixed;
    const segments = pathOf(request.url).split('/').slice(1);
    const area = segments[0]?.toLowerCase();
    try {
      if (!settled) await ready;
      if (area === 'v1' && twin?.pathPrefix && prefixed === undefined)
        answer = twinAnswer(
          twin,
          errorAnswer(errors.routeNotFound(request.method, pathOf(request.url))),
          undefined,
        );
      else if (area === 'v1') answer = await answerApi(request, request.method, segments);
      else if (area === '__mock') answer = await answerControl(request, segments);
      else answer = await route(openApi, request, segments).handler(undefined);
    } catch (error) {
      answer = refusal(error, request);
      // Refused before its world was known (a missing token): in the twin's words too.
      if (twin && area === 'v1') answer = twinAnswer(twin, answer, undefined);
    }
    return withCommonHeaders(answer);
  }

  return {
    handle,
    ready,
    get worlds() {
      return current().worlds;
    },
    get simulator() {
      return simulator;
    },
    reset: () => {
      // Before the world is loaded there is nothing to put back.
      state?.worlds.resetAll();
      kept?.forgetAll();
    },
    stop: () => simulator?.stop(),
  };
}

/** The worlds and the routes that stand on them. */
interface Loaded {
  worlds: Worlds;
  api: Route[];
  control: Route<ControlExchange>[];
}

/** The body of a request, within `limit`: read now if the transport gives a reader. */
async function bodyOf(request: CoreRequest, limit: BodyLimit): Promise<Uint8Array | undefined> {
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

/** The resource of an API path (`/v1/contacts/…`), for a twin's answers. */
function resourceOf(segments: string[]): 'contacts' | 'messages' | undefined {
  const resource = segments[1]?.toLowerCase();
  return resource === 'contacts' || resource === 'messages' ? resource : undefined;
}

/** The path and query after `prefix`, when the URL is under it. */
function underPrefix(url: string, prefix: string): string | undefined {
  const path = pathOf(url);
  if (!path.toLowerCase().startsWith(`${prefix.toLowerCase()}/`)) return undefined;
  return path.slice(prefix.length) + (url.includes('?') ? url.slice(url.indexOf('?')) : '');
}

/** The path of a URL given as path and query, or in absolute form (`http://host/v1/…`, the host ignored). */
function pathOf(url: string): string {
  const at = url.indexOf('?');
  const path = at === -1 ? url : url.slice(0, at);
  if (path.startsWith('/')) return path;
  const slash = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(path);
  return slash ? path.slice(slash[0].length) || '/' : path;
}

/** Enough of a token to tell tokens apart in a log, not enough to use it. */
function redact(token: string): string {
  return token.length <= 8 ? `${token.slice(0, 2)}…` : `${token.slice(0, 4)}…`;
}
