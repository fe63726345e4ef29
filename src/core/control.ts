import { errors } from '../errors';
import { FixtureError, validateFixture } from '../fixtures';
import { checkInteger, describe, refuseUnknown, type Params } from '../store/params';
import { World, type WorldOptions } from '../store/world';
import type { Worlds } from '../store/worlds';
import { json, noContent } from './answer';
import type { Route } from './routes';

/** A whole world can be far larger than an API request; this bounds `PUT /__mock/state`. */
export const STATE_BODY_LIMIT = { bytes: 64 * 1024 * 1024, label: '64 MB' } as const;

/** What a control route is given: the token, its query parameters, and the body when it reads one. */
export interface ControlExchange {
  readonly token: string;
  readonly params: Params;
  /** The body's bytes (up to STATE_BODY_LIMIT), read when asked. */
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
}

/**
 * The mock's own routes under `/__mock/`, each acting on the world of the Bearer token given:
 * reset it, read or replace it as a fixture document, and see its recent requests.
 */
export function controlRoutes(options: ControlOptions): Route<ControlExchange>[] {
  const { worlds } = options;
  return [
    {
      path: ['__mock', 'reset'],
      methods: {
        POST: ({ params, token }) => {
          refuseUnknown(params, ['all']);
          const all = params.get('all');
          if (all !== undefined && all !== 'true' && all !== 'false') {
            throw errors.invalid('all', `must be true or false, got ${describe(all)}.`);
          }
          if (all === 'true') {
            // Each token's world is its user's own: only the admin may reset them all.
            if (options.adminToken === undefined || token !== options.adminToken) throw errors.adminOnly();
            worlds.resetAll();
          } else worlds.reset(token);
          options.changed?.(token, all === 'true');
          return noContent();
        },
      },
    },
    {
      path: ['__mock', 'state'],
      methods: {
        GET: ({ params, token }) => {
          refuseUnknown(params, []);
          return json(200, worlds.of(token).toData());
        },
        PUT: async ({ body, token, location }) => {
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
          const world = World.fromData(data, options.worldOptions);
          worlds.replace(token, world, bytes.length);
          options.changed?.(token);
          return json(200, world.size);
        },
      },
    },
    {
      path: ['__mock', 'requests'],
      methods: {
        GET: ({ params, token }) => {
          refuseUnknown(params, ['limit']);
          const raw = params.get('limit');
          const limit =
            raw === undefined ? options.journalSize : checkInteger(raw, 'limit', 1, options.journalSize);
          return json(200, { data: worlds.journal(token, limit) });
        },
      },
    },
  ];
}
