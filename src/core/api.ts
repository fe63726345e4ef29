import { errors } from '../errors';
import { requestParams } from '../input/form';
import { BODY_LIMITS } from '../input/limits';
import { JournalBytes, type JournalDraft } from '../store/journal';
import { errorAnswer, refusal, type CoreAnswer } from './answer';
import { header, readBody } from './body';
import type { CoreContext } from './context';
import { bodyOf, type CoreRequest } from './request';
import { route } from './routes';
import { switchesOf } from './switches';

/**
 * An API request (under /v1): authenticated, journaled, switched (latency, a forced error),
 * routed to its operation, and spelled as the conventions in force write answers (core/conventions.ts).
 */
export async function answerApi(
  x: CoreContext,
  request: CoreRequest,
  segments: string[],
): Promise<CoreAnswer> {
  let token: string;
  try {
    token = x.authenticate(header(request.headers, 'authorization'));
  } catch (error) {
    // `--latency` slows every API answer, a 401 too (which no Prefer or token switch reaches).
    const { wait } = switchesOf(undefined, x.latency);
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    throw error;
  }
  const { worlds } = x.current();
  const start = performance.now();
  const bytes = new JournalBytes();
  const entry: JournalDraft = {
    time: '',
    method: request.method,
    path: bytes.text(request.url),
    status: 0,
    duration_ms: 0,
  };
  let answer: CoreAnswer;
  try {
    answer = await switched(x, request, token, entry, () => routed(x, request, token, segments, entry));
  } catch (error) {
    answer = refusal(error, request, x.log);
  }
  // A kept world keeps each write before its answer goes out; one it cannot keep (a full disk) is
  // not applied: the world is read back from where it is kept on the next request.
  if (x.kept && request.method !== 'GET' && request.method !== 'HEAD' && worlds.holds(token)) {
    try {
      x.kept.save(token, worlds.of(token));
    } catch (error) {
      worlds.evict(token);
      answer = refusal(error, request, x.log);
    }
  }
  answer = x.current().conventions.spell(answer, resourceOf(segments), request.origin);
  entry.time = new Date().toISOString();
  entry.status = answer.status;
  entry.duration_ms = Math.round((performance.now() - start) * 100) / 100;
  // Kept as text, parsed when the journal is read (store/journal.ts): off every request's path.
  // Every entry has its query and its answer: an empty query for a URL without one (a write's
  // parameters are mostly in its body), null for an answer without a body (a 204).
  const at = request.url.indexOf('?');
  entry.query = at === -1 ? '' : bytes.text(request.url.slice(at + 1));
  if (entry.body !== undefined) entry.body = bytes.body(entry.body);
  entry.answer = answer.body === '' ? null : bytes.text(answer.body);
  worlds.record(token, entry, bytes.total);
  // A write may have grown the world: count it again against the budget of all worlds.
  if (request.method !== 'GET' && request.method !== 'HEAD') worlds.refresh(token);
  return answer;
}

/**
 * The latencies first (configured, the token's switch, `Prefer: delay`), then `Prefer: code`,
 * the token's error switch, or the real answer. `Prefer: code` wins over the switch, whose
 * count then waits for the next request.
 */
async function switched(
  x: CoreContext,
  request: CoreRequest,
  token: string,
  entry: JournalDraft,
  real: () => Promise<CoreAnswer>,
): Promise<CoreAnswer> {
  const { worlds } = x.current();
  const prefer = header(request.headers, 'prefer');
  const tokenSwitches = worlds.switches(token);
  if (
    prefer === undefined &&
    x.latency === undefined &&
    tokenSwitches.latency_ms === null &&
    tokenSwitches.errors === null
  )
    return real();
  const { wait, code, applied } = switchesOf(prefer, x.latency);
  const total = wait + (tokenSwitches.latency_ms ?? 0);
  if (total > 0) await new Promise((done) => setTimeout(done, total));
  let answer: CoreAnswer;
  try {
    const forced = code ?? worlds.takeForcedError(token);
    const by = code !== undefined ? 'prefer' : 'switch';
    if (forced !== undefined) entry.forced = by;
    answer = forced !== undefined ? errorAnswer(errors.simulated(forced, by)) : await real();
  } catch (error) {
    answer = refusal(error, request, x.log);
  }
  if (applied !== undefined) answer.headers['Preference-Applied'] = applied;
  return answer;
}

/** The operation's answer: its route, its parameters (the query's and the body's), its world. */
async function routed(
  x: CoreContext,
  request: CoreRequest,
  token: string,
  segments: string[],
  entry: JournalDraft,
): Promise<CoreAnswer> {
  const { api, worlds, conventions } = x.current();
  const found = route(api, request, segments);
  // Every method reads a body when one is sent, so that a GET or DELETE with parameters in
  // its body is refused like any unknown parameter (C13) rather than silently ignored.
  const bytes = await bodyOf(request, BODY_LIMITS);
  if (bytes !== undefined) conventions.refuseBody(request.headers);
  const body = await readBody(request.headers, bytes);
  if (body !== undefined) entry.body = body;
  return found.handler({
    url: request.url,
    id: found.id,
    token,
    world: worlds.of(token),
    params: requestParams(request.url, body),
  });
}

/** The resource of an API path (`/v1/contacts/…`), for the conventions' spelling of its answers. */
function resourceOf(segments: string[]): 'contacts' | 'messages' | undefined {
  const resource = segments[1]?.toLowerCase();
  return resource === 'contacts' || resource === 'messages' ? resource : undefined;
}
