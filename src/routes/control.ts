import bodyParser from 'body-parser';
import { Router, type RequestHandler } from 'express';
import { errors } from '../errors';
import { FixtureError, validateFixture } from '../fixtures';
import { bodyError, requestParams } from '../http/body';
import { resource } from '../http/resource';
import { checkInteger, describe, refuseUnknown } from '../store/params';
import { World, type WorldOptions } from '../store/world';
import type { Worlds } from '../store/worlds';

/** A whole world can be far larger than an API request; this bounds `PUT /__mock/state`. */
export const STATE_BODY_LIMIT = { bytes: 64 * 1024 * 1024, label: '64 MB' } as const;

export interface ControlOptions {
  worlds: Worlds;
  authenticate: RequestHandler;
  journalSize: number;
  worldOptions: WorldOptions;
  /** The token that may reset every token's world (`?all=true`). */
  adminToken: string | undefined;
}

/**
 * A fixture document is JSON, whatever the request says it is: curl sends a file given with `-d`
 * or `--data-binary` as application/x-www-form-urlencoded, and one given with `-T` with no type.
 */
const readState = bodyParser.json({ limit: STATE_BODY_LIMIT.bytes, strict: true, type: () => true });

/**
 * The mock's own routes under `/__mock/`, each acting on the world of the Bearer token given:
 * reset it, read or replace it as a fixture document, and see its recent requests.
 */
export function controlRouter(options: ControlOptions): Router {
  const { worlds } = options;
  const router = Router();
  const token = (res: { locals: Record<string, unknown> }) => res.locals.token as string;
  router.use(options.authenticate);

  resource(router, '/reset', {
    POST: [
      (req, res) => {
        const params = requestParams(req);
        refuseUnknown(params, ['all']);
        const all = params.get('all');
        if (all !== undefined && all !== 'true' && all !== 'false') {
          throw errors.invalid('all', `must be true or false, got ${describe(all)}.`);
        }
        if (all === 'true') {
          // Each token's world is its user's own (issue 6): only the admin may reset them all.
          if (options.adminToken === undefined || token(res) !== options.adminToken) throw errors.adminOnly();
          worlds.resetAll();
        } else worlds.reset(token(res));
        res.status(204).end();
      },
    ],
  });

  resource(router, '/state', {
    GET: [
      (req, res) => {
        refuseUnknown(requestParams(req), []);
        res.json(worlds.of(token(res)).toData());
      },
    ],
    PUT: [
      (req, res, next) => {
        readState(req, res, (error?: unknown) => {
          if (error === undefined) return next();
          const type = (error as { type?: string }).type;
          next(
            type === 'entity.too.large'
              ? errors.bodyTooLarge(STATE_BODY_LIMIT.label)
              : type === 'entity.parse.failed'
                ? errors.fixtureNotJson(
                    `${req.protocol}://${req.headers.host ?? 'localhost:4010'}${req.originalUrl}`,
                  )
                : bodyError(error),
          );
        });
      },
      (req, res) => {
        let data;
        try {
          data = validateFixture(req.body);
        } catch (error) {
          if (error instanceof FixtureError) throw errors.invalid(error.path, error.message);
          throw error;
        }
        const world = World.fromData(data, options.worldOptions);
        worlds.replace(
          token(res),
          world,
          Number(req.headers['content-length'] ?? 0) || JSON.stringify(req.body).length,
        );
        res.json(world.size);
      },
    ],
  });

  resource(router, '/requests', {
    GET: [
      (req, res) => {
        const params = requestParams(req);
        refuseUnknown(params, ['limit']);
        const raw = params.get('limit');
        const limit =
          raw === undefined ? options.journalSize : checkInteger(raw, 'limit', 1, options.journalSize);
        res.json({ data: worlds.journal(token(res), limit) });
      },
    ],
  });
  return router;
}
