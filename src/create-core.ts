import { redact, size } from './errors';
import { SEED_DEFAULTS, seedOf } from './seed-options';
import { seededWorld } from './seeded-world';
import type { Simulator } from './simulate';
import { World, type WorldData, type WorldOptions } from './store/world';
import { Worlds } from './store/worlds';
import type { Timestamp } from './types';
import { json, type CoreAnswer } from './core/answer';
import type { CoreRequest } from './core/request';
import { authenticator } from './core/auth';
import type { CoreContext, Loaded } from './core/context';
import { controlRoutes } from './core/control';
import { MOCK_CONVENTIONS, type ConventionsLayer } from './core/conventions';
import { dispatch } from './core/dispatch';
import { apiRoutes, type Route } from './core/routes';
import { KeptWorlds, type WorldKeeper, type WorldKeeperOf, type WorldStorage } from './core/storage';
import type { Latency } from './core/switches';

export type { CoreAnswer } from './core/answer';
export type { BodyLimit, BodyReader, CoreRequest } from './core/request';
export type { WorldStorage } from './core/storage';

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
   * Keep each token's world elsewhere, as this keeper does (a data dir: src/durable/data-dir.ts);
   * in place of `storage`. A world shed from memory by the bounds then stays kept, and comes back
   * on its token's next request.
   */
  keeper?: WorldKeeperOf;
  /**
   * Answer as a real server does where the document says "not shown": the choices of a server
   * profile the contract kit observed (`readProfile` of src/twin/profile.ts). Off by default: the
   * mock's own conventions C1–C20. The file's JSON as parsed; a profile that cannot be read
   * rejects `ready` with a ProfileError naming the field at fault (throws, with `conventionsOf`).
   */
  conventions?: Record<string, unknown>;
  /**
   * Makes the conventions of a profile (src/twin/layer.ts twinConventions). By default they are
   * loaded with import() when a profile is given, so that a browser bundle loads them only then; a
   * server passes it, to have the twin's world at once and a bad profile refused on creation.
   */
  conventionsOf?: (profile: Record<string, unknown>) => ConventionsLayer;
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
  /** Cancels what is pending (simulated replies), and syncs what a data dir has not synced yet. */
  stop(): void;
}

/**
 * Everything that decides an answer: authentication, the Prefer switches, parameters from the
 * query and the body, the routes of the ten operations and of the control routes, the store,
 * the error catalogue. No Node built-in is used here or in the store: this runs in a browser too.
 * This makes the worlds and the context of every answer; an answer's steps are named functions
 * of their own: dispatch.ts (which area of the mock), api.ts (the journal, the switches, the
 * operation), control.ts (the control routes).
 */
export function createCore(options: CoreOptions = {}): Core {
  const log = options.log ?? (() => {});
  // The mock's own conventions, or a server's (a twin): made now, or loaded as `ready` settles.
  let conventions: ConventionsLayer | undefined =
    options.conventions === undefined ? MOCK_CONVENTIONS : options.conventionsOf?.(options.conventions);
  const seed = options.seed ?? CORE_DEFAULTS.seed;
  const maxWorlds = options.maxWorlds ?? CORE_DEFAULTS.maxWorlds;
  const journalSize = options.journalSize ?? CORE_DEFAULTS.journalSize;
  const maxTotalBytes = options.maxTotalBytes ?? CORE_DEFAULTS.maxTotalBytes;
  // Completed with the conventions' ids (newId, keepDeleted) once they are there, before any world is made.
  const worldOptions: WorldOptions = {
    now: options.now,
    maxWrittenBytes: options.maxWorldBytes ?? CORE_DEFAULTS.maxWorldBytes,
    // Every id drawn while answering comes from the seed: the same seed and requests, the same answers.
    idSeed: `seed ${seed}`,
  };
  const inForce = (made: ConventionsLayer) => {
    conventions = made;
    Object.assign(worldOptions, { newId: made.worlds.newId, keepDeleted: made.worlds.keepDeleted });
  };
  if (conventions) inForce(conventions);
  const conventionsLoaded = conventions
    ? undefined
    : import('./twin/layer').then(({ twinConventions }) => inForce(twinConventions(options.conventions!)));
  const kept: WorldKeeper | undefined =
    options.keeper?.(worldOptions, log) ??
    (options.storage && new KeptWorlds(options.storage, worldOptions, log));
  const keptIn = kept?.durable ? 'data dir' : kept ? 'storage' : 'memory';
  const authenticate = authenticator(
    options.tokens?.length && options.adminToken !== undefined
      ? [...options.tokens, options.adminToken]
      : options.tokens,
  );
  // The document is made when it is first asked for, from a module that a browser bundle loads
  // only then: few pages ask for it, and it is the largest part of the core.
  let document: Promise<Record<string, unknown>> | undefined;
  const openApi: Route<unknown>[] = [
    {
      path: ['openapi.json'],
      methods: {
        GET: async () =>
          json(
            200,
            await (document ??= import('./openapi').then(
              ({ openApiDocument }) => current().conventions.document(openApiDocument()),
              (error: unknown) => {
                // A chunk that failed to load (the network, in a browser) is tried again next time.
                document = undefined;
                throw error;
              },
            )),
          ),
      },
    },
  ];

  let simulator: Simulator | undefined;

  /** What needs the seeded world, built once it is there. */
  function loaded(data: WorldData, c: ConventionsLayer): Loaded {
    const worlds = new Worlds(World.fromData(c.worlds.seeded(data), worldOptions), {
      restore: kept && ((token, fresh) => kept.restore(token, fresh)),
      maxWorlds,
      journalSize,
      maxTotalBytes,
      onShed: ({ token, what, bound, bytes }) =>
        log(
          `${what} of token ${redact(token)} ${what === 'world' && keptIn === 'data dir' ? 'left memory' : 'dropped'}: least recently used, and ${
            bound === 'worlds'
              ? `at most ${maxWorlds} tokens keep a world in memory`
              : `all tokens together hold at most ${size(maxTotalBytes)}`
          } (${size(bytes)} given back)${
            what === 'journal'
              ? ''
              : {
                  'data dir': '; it stays in the data dir, and comes back on its next request',
                  storage: '; its kept copy comes back on its next request',
                  memory: "; its changes are lost: --data-dir keeps every token's world on disk",
                }[keptIn]
          }`,
        ),
    });
    return {
      conventions: c,
      worlds,
      // Requests wait for `ready`, by which the simulator is loaded.
      api: apiRoutes(
        c,
        options.simulate ? (world, message) => simulator!.messageSent(world, message) : undefined,
      ),
      control: controlRoutes({
        worlds,
        kept: keptIn,
        journalSize,
        worldOptions,
        adminToken: options.adminToken,
        conventions: c,
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
  let state: Loaded | undefined =
    options.data !== undefined && conventions ? loaded(options.data, conventions) : undefined;
  let settled = state !== undefined && !options.simulate;
  const ready: Promise<void> = settled
    ? Promise.resolve()
    : Promise.all([
        state === undefined
          ? Promise.all([conventionsLoaded, options.data ?? seededWorld(seedOf(options))]).then(
              ([, data]) => (state = loaded(data, conventions!)),
            )
          : undefined,
        options.simulate
          ? import('./simulate').then(({ Simulator }) => {
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

  const context: CoreContext = {
    latency: options.latency,
    authenticate,
    log,
    kept,
    openApi,
    ready,
    settled: () => settled,
    current,
  };

  return {
    handle: (request) => dispatch(context, request),
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
    stop: () => {
      simulator?.stop();
      kept?.flush?.();
    },
  };
}
