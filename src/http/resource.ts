import type { Request, RequestHandler, Response, Router } from 'express';
import { errors } from '../errors';
import type { Params } from '../store/params';
import * as rules from '../store/rules';
import type { World } from '../store/world';
import { parseBody, requestParams } from './body';
import { sendJson } from './send';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Registers the methods of one path, and answers any other method with 405 and an `Allow`
 * header that lists them (convention C3), so the list is written once.
 */
export function resource(
  router: Router,
  path: string,
  methods: Partial<Record<Method, RequestHandler[]>>,
): void {
  const route = router.route(path);
  const allowed: string[] = [];
  for (const [method, handlers] of Object.entries(methods) as [Method, RequestHandler[]][]) {
    route[method.toLowerCase() as 'get' | 'post' | 'put' | 'delete'](...handlers);
    allowed.push(method);
    if (method === 'GET') allowed.push('HEAD');
  }
  route.all((req, _res, next) => next(errors.methodNotAllowed(req.method, req.baseUrl + req.path, allowed)));
}

/** The world of the request's token, put there by the auth middleware. */
export function worldOf(res: Response): World {
  return res.locals.world as World;
}

/** The five operations of one resource, as store calls. */
export interface Collection<T> {
  name: 'contact' | 'message';
  list(world: World, params: Params): unknown;
  create(world: World, params: Params): T;
  retrieve(world: World, id: string): T | undefined;
  update(world: World, id: string, params: Params): T | undefined;
  remove(world: World, id: string): boolean;
}

/**
 * Every method reads a body when one is sent, so that a GET or DELETE with parameters in its
 * body is refused like any unknown parameter (C13) rather than silently ignored.
 *
 * The routes of one resource under `base`: list, create, retrieve, update, delete, with the
 * status codes of convention C1 and a 404 for an unknown id, decided here and nowhere else.
 * They are registered on the router given, with full paths, rather than on a Router of their own
 * mounted at `base`: a nested router costs Express a second dispatch on every request.
 */
export function collectionRoutes<T>(router: Router, base: string, collection: Collection<T>): void {
  const found = <V>(value: V | undefined, id: string): V => {
    if (value === undefined || value === false) throw errors.notFound(collection.name, id);
    return value;
  };
  resource(router, base, {
    GET: [parseBody, (req, res) => sendJson(res, 200, collection.list(worldOf(res), requestParams(req)))],
    POST: [parseBody, (req, res) => sendJson(res, 201, collection.create(worldOf(res), requestParams(req)))],
  });
  const idOf = (req: Request) => req.params.id as string;
  resource(router, `${base}/:id`, {
    GET: [
      parseBody,
      (req, res) => {
        rules.none(requestParams(req));
        sendJson(res, 200, found(collection.retrieve(worldOf(res), idOf(req)), idOf(req)));
      },
    ],
    PUT: [
      parseBody,
      (req, res) =>
        sendJson(res, 200, found(collection.update(worldOf(res), idOf(req), requestParams(req)), idOf(req))),
    ],
    DELETE: [
      parseBody,
      (req, res) => {
        rules.none(requestParams(req));
        found(collection.remove(worldOf(res), idOf(req)), idOf(req));
        res.status(204).end();
      },
    ],
  });
}
