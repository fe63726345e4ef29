import { errors } from '../errors';
import { queryParams, requestParams } from '../input/form';
import { BODY_LIMITS, STATE_BODY_LIMIT } from '../input/limits';
import { errorAnswer, preflight, refusal, withCommonHeaders, type CoreAnswer } from './answer';
import { answerApi } from './api';
import { header, readBody } from './body';
import type { CoreContext } from './context';
import type { ControlExchange } from './control';
import { bodyOf, pathOf, type CoreRequest } from './request';
import { route } from './routes';

/**
 * One request to its answer: a CORS preflight, the API (under /v1, below the conventions' path
 * prefix), the control routes (under /__mock) or the OpenAPI document; every answer with the
 * headers of all answers. Never throws: a refusal is an answer, and a bug a 500.
 */
export async function dispatch(x: CoreContext, given: CoreRequest): Promise<CoreAnswer> {
  const request = { ...given, method: given.method.toUpperCase() };
  if (request.method === 'OPTIONS') return preflight();
  let answer: CoreAnswer;
  let area: string | undefined;
  try {
    if (!x.settled()) await x.ready;
    const { conventions } = x.current();
    // The API is served under the conventions' path prefix ('' for the mock's own), and only there.
    const prefix = conventions.pathPrefix;
    const prefixed = prefix === '' ? request.url : underPrefix(request.url, prefix);
    if (prefixed !== undefined) request.url = prefixed;
    const segments = pathOf(request.url).split('/').slice(1);
    area = segments[0]?.toLowerCase();
    if (area === 'v1' && prefixed === undefined)
      answer = conventions.spell(
        errorAnswer(errors.routeNotFound(request.method, pathOf(request.url))),
        undefined,
      );
    else if (area === 'v1') answer = await answerApi(x, request, segments);
    else if (area === '__mock') answer = await answerControl(x, request, segments);
    else answer = await route(x.openApi, request, segments).handler(undefined);
  } catch (error) {
    answer = refusal(error, request, x.log);
    // Refused before its world was known (a missing token): in the words of the conventions too.
    if (area === 'v1') answer = x.current().conventions.spell(answer, undefined);
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
