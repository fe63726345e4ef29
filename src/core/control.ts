import { errors } from '../errors';
import { FixtureError, validateFixture } from '../fixtures';
import { checkInteger, describe, isPlainRecord, refuseUnknown, type Params } from '../input/params';
import { World, type WorldOptions } from '../store/world';
import { readable } from '../store/journal';
import type { TokenSwitches, Worlds } from '../store/worlds';
import { json, noContent } from './answer';
import type { ConventionsLayer } from './conventions';
import type { Route } from './routes';
import { SWITCH_LIMITS } from '../input/limits';

/** What a control route is given: the token, its query parameters, and the body when it reads one. */
export interface ControlExchange {
  readonly token: string;
  /** The query's parameters alone, for a route whose body is not parameters (PUT /__mock/state). */
  readonly query: Params;
  /**
   * The parameters of the query and the body, read as the API reads them (C12): the same
   * encodings, bounds and refusals, and a parameter sent in both refused.
   */
  readonly params: () => Promise<Params>;
  /** The body's bytes (up to STATE_BODY_LIMIT), read when asked; for PUT /__mock/state. */
  readonly body: () => Promise<Uint8Array | undefined>;
  /** Where the request was sent, for an error message that shows the command to use. */
  readonly location: string;
}

export interface ControlOptions {
  worlds: Worlds;
  journalSize: number;
  worldOptions: WorldOptions;
  /** The token that may reset every token's world (`?all=true`). */
  adminToken: string | undefined;
  /** Told when a token's world (or every world, for `all`) was reset or replaced. */
  changed?: (token: string, all?: boolean) => void;
  /** What fills the gaps of the document: the mock's own conventions, or a server's (a twin's). */
  conventions: ConventionsLayer;
  /** Where worlds are kept beyond memory: a data dir, a Web Storage, or nowhere. */
  kept: 'data dir' | 'storage' | 'memory';
}

const SWITCH_PARAMS = ['latency_ms', 'errors'] as const;
const ERROR_SWITCH_PARAMS = ['status', 'count'] as const;

/**
 * The mock's own routes under `/__mock/`, each acting on the world of the Bearer token given:
 * reset it, read or replace it as a fixture document, see its recent requests, and set the
 * switches of its API answers (latency, the next answers forced to an error status).
 */
export function controlRoutes(options: ControlOptions): Route<ControlExchange>[] {
  const { worlds } = options;
  return [
    {
      path: ['__mock', 'reset'],
      methods: {
        POST: async ({ params, token }) => {
          const read = await params();
          refuseUnknown(read, ['all']);
          const given = read.get('all');
          // A form or query sends text; JSON may send a boolean.
          const all = given === true || given === 'true';
          if (given !== undefined && !all && given !== false && given !== 'false') {
            throw errors.invalid('all', `must be true or false, got ${describe(given)}.`);
          }
          if (all) {
            // Each token's world is its user's own: only the admin may reset them all.
            if (options.adminToken === undefined || token !== options.adminToken) throw errors.adminOnly();
            worlds.resetAll();
          } else worlds.reset(token);
          options.changed?.(token, all);
          return noContent();
        },
      },
    },
    {
      path: ['__mock', 'state'],
      methods: {
        GET: async ({ params, token }) => {
          refuseUnknown(await params(), []);
          return json(200, worlds.of(token).toData());
        },
        PUT: async ({ query, body, token, location }) => {
          // The body is the fixture document: the query is the only place for parameters, and none is taken.
          refuseUnknown(query, []);
          const bytes = (await body()) ?? new Uint8Array();
          // A fixture document is JSON, whatever the request says it is: curl sends a file given
          // with `-d` or `--data-binary` as a form, and one given with `-T` with no type.
          let document: unknown;
          try {
            document = bytes.length === 0 ? {} : JSON.parse(new TextDecoder().decode(bytes));
          } catch {
            throw errors.fixtureNotJson(location);
          }
          let data;
          try {
            data = validateFixture(document);
          } catch (error) {
            if (error instanceof FixtureError) throw errors.invalid(error.path, error.message);
            throw error;
          }
          const { idSeed } = options.worldOptions;
          const world = World.fromData(data, {
            ...options.worldOptions,
            idSeed: World.idStream(idSeed, token),
          });
          // A fixture's world is held by this token alone: within one world's bound, like its writes.
          const max = options.worldOptions.maxWrittenBytes;
          if (max !== undefined && world.heldBytes > max) throw errors.fixtureTooLarge(world.heldBytes, max);
          worlds.replace(token, world);
          options.changed?.(token);
          return json(200, world.size);
        },
      },
    },
    {
      path: ['__mock', 'kept'],
      methods: {
        // Whether the token's world was in memory when asked (this request loads none), and where
        // worlds are kept beyond memory.
        GET: async ({ params, token }) => {
          refuseUnknown(await params(), []);
          return json(200, {
            kept: options.kept,
            in_memory: worlds.holds(token),
            worlds_in_memory: worlds.count,
          });
        },
      },
    },
    {
      path: ['__mock', 'conventions'],
      methods: {
        // What fills the gaps of the document here: the mock's own conventions, or a server's.
        GET: async ({ params }) => {
          refuseUnknown(await params(), []);
          return json(200, options.conventions.described);
        },
      },
    },
    {
      path: ['__mock', 'requests'],
      methods: {
        GET: async ({ params: read, token }) => {
          const params = await read();
          refuseUnknown(params, ['limit', 'since']);
          const raw = params.get('limit');
          const limit =
            raw === undefined ? options.journalSize : checkInteger(raw, 'limit', 1, options.journalSize);
          const since = params.get('since');
          const entries = worlds.journal(
            token,
            limit,
            since === undefined ? 0 : checkInteger(since, 'since', 0, Number.MAX_SAFE_INTEGER),
          );
          return json(200, { data: entries.map(readable) });
        },
      },
    },
    {
      path: ['__mock', 'switches'],
      methods: {
        GET: async ({ params, token }) => {
          refuseUnknown(await params(), []);
          return json(200, worlds.switches(token));
        },
        PUT: async ({ params: read, token }) => {
          const params = await read();
          // Every parameter is checked before anything changes: a refusal changes nothing.
          const next = { ...worlds.switches(token) };
          refuseUnknown(params, SWITCH_PARAMS);
          if (params.has('latency_ms')) next.latency_ms = latencySwitch(params.get('latency_ms'));
          if (params.has('errors')) next.errors = errorSwitch(params.get('errors'));
          worlds.setSwitches(token, next);
          return json(200, next);
        },
        DELETE: async ({ params, token }) => {
          refuseUnknown(await params(), []);
          worlds.setSwitches(token, { latency_ms: null, errors: null });
          return noContent();
        },
      },
    },
  ];
}

/** A form cannot send null: an empty value (`latency_ms=`) or `null` turns a switch off there. */
function isOff(value: unknown): boolean {
  return value === null || value === '' || value === 'null';
}

function latencySwitch(value: unknown): number | null {
  if (isOff(value)) return null;
  const { min, max } = SWITCH_LIMITS.latency;
  return checkInteger(value, 'latency_ms', min, max);
}

function errorSwitch(value: unknown): TokenSwitches['errors'] {
  if (isOff(value)) return null;
  if (!isPlainRecord(value)) {
    throw errors.invalid(
      'errors',
      `must be an object with status and count, e.g. {"status": 503, "count": 2}, or null; got ${describe(value)}.`,
    );
  }
  for (const key of Object.keys(value)) {
    if (!(ERROR_SWITCH_PARAMS as readonly string[]).includes(key)) {
      throw errors.unknown(`errors[${key}]`, ERROR_SWITCH_PARAMS);
    }
  }
  for (const key of ERROR_SWITCH_PARAMS) {
    if (value[key] === undefined)
      throw errors.missing(`errors[${key}]`, [
        ['errors[status]', 503],
        ['errors[count]', 2],
      ]);
  }
  const { status, count } = SWITCH_LIMITS;
  return {
    status: checkInteger(value.status, 'errors[status]', status.min, status.max),
    remaining: checkInteger(value.count, 'errors[count]', count.min, count.max),
  };
}
