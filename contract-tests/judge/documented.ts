import { isTransientStatus } from '../../common/transient';
import { recordOf, type PendingWrite, type Reading } from '../http/exchange';
import { isObject } from '../http/exchange';
import { worldOf, type SessionState, type World } from './session';
import { idOf } from './pages';
import type { RuleSet } from '../rules/rules';
import { conventionsOfAnyAnswer, PARAMETERS, preflight, requestConventions } from './conventions';
import { heldDecided, list } from './lists';
import { contactRecord, messageRecord, views } from './records';
import { createdContact, sentMessage, updatedContact, updatedMessage } from './writes';
import { routeId, show, Verdicts, type Judgement } from './verdicts';
import {
  formParameters,
  namesMadeUpId,
  owedAnswer,
  refusedForOptional,
  refusedUpdate,
  unknownId,
} from './refusals';
import { goneUnasked, refusedShown } from './traces';

/**
 * The judgment of one exchange: which rules it shows broken, given what the session learnt before
 * it. A pure function: it reads the exchange and the session state and changes neither (the proxy
 * calls `learn` afterwards). It judges only what a passive observer can know for certain: the
 * answer's own shape, what the request sent against what the answer shows, and what earlier
 * exchanges of the same token make certain. The kit's own checks share its field rules
 * (rules/fields.ts); the proxy (`messaging-contract proxy`) runs it on live traffic.
 */

/** RFC 6750 §2.1: `Bearer` 1*SP b64token, the scheme in any case (RFC 7235 §2.1). */
const TOKEN = /^Bearer +[A-Za-z0-9\-._~+/]+=* *$/i;

/**
 * `settleMs`: lists may show a write that long after it (--settle-ms); until then a list that
 * lacks a record learnt, or still shows one deleted, is no violation. Retrieve is never waited for.
 */
export function judge(
  reading: Reading,
  state: SessionState,
  ruleSet: RuleSet,
  settleMs = 0,
  pending: readonly PendingWrite[] = [],
): Judgement {
  const v = new Verdicts(reading, ruleSet);
  const { exchange, route } = reading;
  if (exchange.method === 'OPTIONS') {
    preflight(v, reading);
    return v.result();
  }
  if (v.has('mock.error-body')) conventionsOfAnyAnswer(v, reading);
  if (route.kind === 'outside' || route.kind === 'unknown-api') return v.result();
  const operation = `${exchange.method === 'HEAD' ? 'GET' : exchange.method} ${route.kind}`;
  if (!(operation in PARAMETERS)) return v.result();
  if (reading.authorization === undefined) {
    // A refusal is a 4xx; a gateway's 502–504 said nothing of the request (never judged).
    const status = exchange.status;
    v.check(
      'api.auth-required',
      reading.ok && `answered ${status} to a request without Authorization`,
      !reading.ok &&
        (status < 400 || (status >= 500 && !isTransientStatus(status))) &&
        `answered ${status} to a request without Authorization: not a refusal (a 4xx)`,
    );
    v.check(
      'mock.error-statuses',
      exchange.status !== 401 && `no Authorization: expected 401, got ${exchange.status}`,
    );
    return v.result();
  }
  if (!TOKEN.test(reading.authorization))
    v.check(
      'mock.token-isolation',
      reading.ok && `answered ${exchange.status} to a malformed Authorization header`,
    );
  if (reading.forced) return v.result();
  const world = worldOf(state, reading.authorization);
  requestConventions(v, reading, operation, state, world);
  refusedForOptional(v, reading, operation, world);
  refusedUpdate(v, reading, operation);
  formParameters(v, reading, world);
  goneUnasked(v, reading, world, pending);
  heldDecided(v, reading, state, world, settleMs);
  owedAnswer(v, reading, operation, world !== undefined && soleAndWhole(state, world), world, pending);
  unknownId(v, reading);
  servedUnderV1(v, reading);
  if (!reading.ok || namesMadeUpId(reading)) return v.result();
  v.check(
    'mock.success-codes',
    exchange.status !== expectedSuccess(exchange.method) &&
      `${exchange.method} answered ${exchange.status}, not ${expectedSuccess(exchange.method)}`,
    exchange.method === 'DELETE' &&
      reading.text !== undefined &&
      reading.text !== '' &&
      'DELETE answered a body',
  );
  if (exchange.method === 'DELETE' || exchange.method === 'HEAD') return v.result();
  if (reading.text !== undefined)
    v.check(
      'api.json-objects',
      !isObject(reading.body) && `the answer is not a JSON object: ${show(reading.text)}`,
    );
  if (!isObject(reading.body)) return v.result();
  const body = reading.body;
  switch (operation) {
    case 'GET contacts':
    case 'GET messages':
      list(v, reading, state, world, settleMs, pending);
      break;
    case 'GET contact':
      contactRecord(v, state, body, 'the contact');
      v.check(
        'contacts.retrieve',
        idOf(body) !== routeId(reading) && `asked for ${routeId(reading)}, answered ${show(body.id)}`,
      );
      break;
    case 'GET message':
      messageRecord(v, body, 'the message', state, world);
      v.check(
        'messages.retrieve',
        idOf(body) !== routeId(reading) && `asked for ${routeId(reading)}, answered ${show(body.id)}`,
      );
      break;
    case 'POST contacts':
      createdContact(v, reading, body, state, world);
      break;
    case 'PUT contact':
      contactRecord(v, state, body, 'the contact');
      updatedContact(v, reading, body, world?.contacts.get(routeId(reading)));
      break;
    case 'POST messages':
      messageRecord(v, body, 'the message', state, world);
      sentMessage(v, reading, body);
      break;
    case 'PUT message':
      messageRecord(v, body, 'the message', state, world);
      updatedMessage(v, reading, body, settledBefore(world?.messages.get(routeId(reading)), reading));
      break;
  }
  if (world) views(v, reading, world, settleMs, untouched(state, world, pending));
  refusedShown(v, reading, world, world !== undefined && sureOfSends(state, world, pending));
  return v.result();
}

/**
 * What the session knows of a message, if it learnt it before the update was sent: an answer that
 * came while the update was on its way may show another update sent at the same time, applied
 * after this one (whose answer then rightly lacks what that one added). An answer that ended in the
 * millisecond the update was sent came before it, as views take it (records.ts): otherwise whether
 * an update sent at once after a read is judged would hang on the clock's resolution.
 */
function settledBefore<T extends { learntAt: number }>(
  known: T | undefined,
  reading: Reading,
): T | undefined {
  return known && known.learntAt <= reading.exchange.startedAt ? known : undefined;
}

/** Whether the session is the sole writer of what the token made, and has forgotten none of it. */
function soleAndWhole(state: SessionState, world: World): boolean {
  return state.soleWriter && state.memory.forgotten.records === 0 && world.ledger.forgotAt === 0;
}

/**
 * Whether a record the session made is sure to be untouched by any update but those it saw: the
 * session is its sole writer, has forgotten nothing, and no update naming it is on its way.
 */
function untouched(state: SessionState, world: World, pending: readonly PendingWrite[]) {
  const sure = soleAndWhole(state, world);
  // An update changes the record it names alone.
  const updating = new Set(
    pending
      .filter((write) => write.method === 'PUT' || write.method === 'PATCH')
      .map((write) => recordOf(write)?.id ?? '*'),
  );
  return (id: string) => sure && !updating.has('*') && !updating.has(id) && world.ledger.created.has(id);
}

/**
 * Whether the session knows every message the token's sends made: it is their sole writer, saw
 * every create's outcome, has forgotten nothing, and no send of the token is on its way.
 */
function sureOfSends(state: SessionState, world: World, pending: readonly PendingWrite[]): boolean {
  return (
    soleAndWhole(state, world) && state.sawEveryCreate && !pending.some((write) => write.method === 'POST')
  );
}

const REDIRECTS = [301, 302, 303, 307, 308];

/** The path a Location names (undefined when there is none, or it is no URL). */
function locationPath(location: string | undefined): string | undefined {
  try {
    return location === undefined ? undefined : new URL(location, 'http://target').pathname;
  } catch {
    return undefined;
  }
}

/**
 * The endpoints are under /v1 (section 9). A list's path names nothing a server could fail to
 * find, so a list asked for with nothing and answered "not found" (404, 410), or sent to a path
 * outside /v1 (a redirect to another path under /v1, with a slash added, keeps the prefix), is
 * not served under /v1; any other answer to it (the page, or a refusal that other rules judge) is.
 */
function servedUnderV1(v: Verdicts, reading: Reading): void {
  const { exchange, route } = reading;
  if (exchange.method !== 'GET' || (route.kind !== 'contacts' && route.kind !== 'messages')) return;
  if (exchange.url !== reading.path || isTransientStatus(exchange.status)) return;
  const location = exchange.responseHeaders.location;
  const to = locationPath(location);
  const elsewhere =
    REDIRECTS.includes(exchange.status) &&
    // The target's own base path may stand before /v1.
    to !== undefined &&
    !to.includes('/v1/') &&
    `GET ${reading.path} answered ${exchange.status} to ${location}: the endpoint is not served under /v1`;
  v.check(
    'api.v1-prefix',
    [404, 410].includes(exchange.status) &&
      `GET ${reading.path} answered ${exchange.status}: the endpoint is not served under /v1`,
    elsewhere,
  );
}

function expectedSuccess(method: string): number {
  return method === 'POST' ? 201 : method === 'DELETE' ? 204 : 200;
}

export { type Judgement, type Violation } from './verdicts';
