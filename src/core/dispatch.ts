import { errors } from '../errors';
import { queryParams, requestParams } from '../input/form';
import { BODY_LIMITS, STATE_BODY_LIMIT } from '../input/limits';
import { twinAnswer } from './twin-answers';
import { errorAnswer, preflight, refusal, withCommonHeaders, type CoreAnswer } from './answer';
import { answerApi } from './api';
import { header, readBody } from './body';
import type { CoreContext } from './context';
import type { ControlExchange } from './control';
import { bodyOf, pathOf, type CoreRequest } from './request';
import { route } from './routes';

/**
 * One request to its answer: a CORS preflight, the API (under /v1, or under a twin's path
 * prefix), the control routes (under /__mock) or the OpenAPI document; every answer with the
 * headers of all answers. Never throws: a refusal is an answer, and a bug a 500.
 */
export async function dispatch(x: CoreContext, given: CoreRequest): Promise<CoreAnswer> {
  const request = { ...given, method: given.method.toUpperCase() };
  if (request.method === 'OPTIONS') return preflight();
  let answer: CoreAnswer;
  const { twin } = x;
  // A twin serves the API under its server's path prefix, and only there.
  const prefixed = twin?.pathPrefix ? underPrefix(request.url, twin.pathPrefix) : undefined;
  if (prefixed !== undefined) request.url = prefixed;
  const segments = pathOf(request.url).split('/').slice(1);
  const area = segments[0]?.toLowerCase();
  try {
    if (!x.settled()) await x.ready;
    if (area === 'v1' && twin?.pathPrefix && prefixed === undefined)
      answer = twinAnswer(
        twin,
        errorAnswer(errors.routeNotFound(request.method, pathOf(request.url))),
        undefined,
      );
    else if (area === 'v1') answer = await answerApi(x, request, segments);
    else if (area === '__mock') answer = await answerControl(x, request, segments);
    else answer = await route(x.openApi, request, segments).handler(undefined);
  } catch (error) {
    answer = refusal(error, request, x.log);
    // Refused before its world was known (a missing token): in the twin's words too.
    if (twin && area === 'v1') answer = twinAnswer(twin, answer, undefined);
  }
  return withCommonHeaders(answer);
}

/** A control route (under /__mock): the token's own world, switches and journal. */
function answerControl(
  x: CoreContext,
  request: CoreRequest,
  segments: string[],
): CoreAnswer | Promise<CoreAnswer> {
  const token = x.authenticate(header(request.headers, 'authorization'));
  const found = route(x.current().control, request, segments);
  const exchange: ControlExchange = {
    token,
    query: queryParams(request.url),
    params: async () =>
      requestParams(request.url, await readBody(request.headers, await bodyOf(request, BODY_LIMITS))),
    body: () => bodyOf(request, STATE_BODY_LIMIT),
    location: `${request.origin ?? 'http://localhost:4010'}${request.url}`,
  };
  return found.handler(exchange);
}

/** The path and query after `prefix`, when the URL is under it. */
function underPrefix(url: string, prefix: string): string | undefined {
  const path = pathOf(url);
  if (!path.toLowerCase().startsWith(`${prefix.toLowerCase()}/`)) return undefined;
  return path.slice(prefix.length) + (url.includes('?') ? url.slice(url.indexOf('?')) : '');
}
