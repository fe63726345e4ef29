import { ERROR_CODES } from '../rules/errors';
import { isObject, type Json, type Reading } from '../http/exchange';
import type { SessionState, World } from './session';
import { idOf } from './pages';
import { SENDER, sameValue } from '../rules/fields';
import { CONTACT_FIELDS, MESSAGE_FIELDS, parametersOf, senderStableOf } from '../rules/resources';
import { show, where, type Problem, type Verdicts } from './verdicts';

/**
 * The mock's conventions (C1–C20) in one exchange: judged in the mock rule set only. The documented
 * rules are in documented.ts, records.ts, writes.ts and lists.ts.
 */

const MOCK_DEFAULT_LIMIT = 10;
const ID = /^[A-Za-z0-9]{16}$/;
const REACTION_NAME = /^[a-z0-9_+-]{1,64}$/;
const PHONE = /^[0-9 +\-().]{1,32}$/;
/** An attachment's fields (C16), sorted as a record's keys are compared. */
const ATTACHMENT_FIELDS = 'created_at,file_size,file_type,file_url,filename,id,message_id';
const ERROR_FIELDS = ['type', 'code', 'message', 'param'];
/**
 * Parameters each operation takes (C13), from the document's table (rules/resources.ts); a POST or
 * PUT reads its query like its body (C12).
 */
export const PARAMETERS = parametersOf(CONTACT_FIELDS, MESSAGE_FIELDS);
/** What a message's contact shows that must be its contact's as the contact is (C11), its id aside. */
const SENDER_OF_CONTACT = senderStableOf(CONTACT_FIELDS).filter((field) => field !== 'id');

export function badId(id: unknown, at: string): Problem {
  return (
    id !== undefined &&
    (typeof id !== 'string' || !ID.test(id)) &&
    where(at, `the id ${show(id)} is not 16 characters of [A-Za-z0-9]`)
  );
}

/** Ids of contacts, conversations and messages never collide (C6). */
export function otherKind(
  state: SessionState,
  id: unknown,
  kind: 'contact' | 'message',
  at: string,
): Problem {
  const seen = state.kinds.get(String(id));
  return (
    seen !== undefined &&
    seen !== kind &&
    where(at, `the ${kind} id ${String(id)} is also the id of a ${seen}`)
  );
}

export function notSeconds(item: Json, fields: string[], at: string): Problem[] {
  return fields.map(
    (field) =>
      typeof item[field] === 'number' &&
      ((item[field] as number) < 0 || (item[field] as number) >= 1e11) &&
      where(at, `${field} ${item[field] as number} is not in Unix seconds`),
  );
}

export function notNow(value: unknown, reading: Reading, what: string): Problem {
  const now = reading.exchange.finishedAt / 1000;
  return (
    (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value - now) > 300) &&
    `${what}: ${show(value)} is not the current Unix second (about ${Math.round(now)})`
  );
}

/** Whether `shown` does not start with the items of `before` it holds, in the order of `before`. */
function outOfOrder(before: readonly unknown[], shown: readonly unknown[]): boolean {
  const kept = before.filter((x) => shown.includes(x));
  return kept.some((x, i) => shown[i] !== x);
}

export function mockMessage(
  v: Verdicts,
  item: Json,
  at: string,
  state: SessionState,
  world: World | undefined,
): void {
  const sender = isObject(item.contact) ? item.contact : undefined;
  const attachments = Array.isArray(item.attachments) ? item.attachments : [];
  v.check(
    'mock.ids',
    ...[item.id, item.conversation_id, sender?.id].map((id) => badId(id, at)),
    ...attachments.flatMap((a) => (isObject(a) ? [badId(a.id, `${at}'s attachment`)] : [])),
    otherKind(state, item.id, 'message', at),
  );
  v.check('mock.unix-seconds', ...notSeconds(item, ['created_at', 'read_at', 'updated_at'], at));
  if (sender) {
    const extra = Object.keys(sender).filter((key) => !(key in SENDER));
    const owner =
      typeof item.conversation_id === 'string' ? world?.owners.get(item.conversation_id) : undefined;
    const facts = owner === undefined ? undefined : world?.contacts.get(owner);
    v.check(
      'mock.sender-exact',
      extra.length > 0 && where(at, `its contact also carries ${extra.join(', ')}`),
      ...(facts
        ? SENDER_OF_CONTACT.map(
            (field) =>
              facts.stable[field] !== undefined &&
              !sameValue(sender[field], facts.stable[field]) &&
              where(
                at,
                `its contact's ${field} is ${show(sender[field])}, the contact's is ${show(facts.stable[field])}`,
              ),
          )
        : []),
    );
  }
  if (Array.isArray(item.reactions)) {
    const names = item.reactions.filter(isObject).flatMap((r) => Object.keys(r));
    const known = typeof item.id === 'string' ? world?.messages.get(item.id) : undefined;
    v.check(
      'mock.reactions',
      // Order of first use: the names (and each name's usernames) shown before come first, in the
      // order they came, whatever a later update added. A view older than the last shows fewer.
      known &&
        outOfOrder([...known.reactions.keys()], names) &&
        where(
          at,
          `the reactions ${show(item.reactions)} are not in the order of first use: ${[...known.reactions.keys()].join(', ')} came first`,
        ),
      ...item.reactions
        .filter(isObject)
        .flatMap((r) => Object.entries(r))
        .map(
          ([name, us]) =>
            known?.reactions.has(name) &&
            Array.isArray(us) &&
            outOfOrder([...known.reactions.get(name)!], us) &&
            where(at, `the usernames ${show(us)} under ${name} are not in the order they reacted`),
        ),
      ...item.reactions.map(
        (r, i) =>
          isObject(r) &&
          Object.keys(r).length !== 1 &&
          where(at, `reactions[${i}] holds ${Object.keys(r).length} names, not one`),
      ),
      names.length !== new Set(names).size &&
        where(at, `a reaction name appears twice in ${show(item.reactions)}`),
      ...names.map(
        (name) =>
          !REACTION_NAME.test(name) &&
          where(at, `the reaction name ${show(name)} breaks ^[a-z0-9_+-]{1,64}$`),
      ),
      ...item.reactions
        .filter(isObject)
        .flatMap((r) => Object.entries(r))
        .map(
          ([name, us]) =>
            Array.isArray(us) &&
            new Set(us).size !== us.length &&
            where(at, `a username appears twice under ${name}`),
        ),
    );
  }
  v.check(
    'mock.attachments',
    ...attachments.map((a, i) => {
      if (!isObject(a)) return where(at, `attachments[${i}] is not an object`);
      const keys = Object.keys(a).sort().join(',');
      if (keys !== ATTACHMENT_FIELDS) return where(at, `attachments[${i}] has the fields ${keys}`);
      if (a.message_id !== item.id)
        return where(at, `attachments[${i}].message_id is ${show(a.message_id)}, not the message's id`);
      if (typeof a.file_type !== 'string')
        return where(at, `attachments[${i}].file_type is ${show(a.file_type)}`);
      return (
        a.file_size !== null &&
        !(Number.isInteger(a.file_size) && (a.file_size as number) >= 0) &&
        where(at, `attachments[${i}].file_size is ${show(a.file_size)}`)
      );
    }),
  );
}

export function mockPage(v: Verdicts, reading: Reading, page: { has_more: boolean; data: Json[] }): void {
  const { query } = reading;
  const times = page.data.map((item) => item.created_at);
  const unordered = times.findIndex(
    (t, i) =>
      i > 0 && typeof t === 'number' && typeof times[i - 1] === 'number' && t > (times[i - 1] as number),
  );
  v.check(
    'mock.newest-first',
    unordered > 0 &&
      `data[${unordered}] (created_at ${show(times[unordered])}) is newer than the item before it (${show(times[unordered - 1])})`,
  );
  const limit = query.get('limit');
  const size = limit === null ? MOCK_DEFAULT_LIMIT : Number(limit);
  v.check(
    'mock.limit-bounds',
    limit !== null && !/^([1-9][0-9]?|100)$/.test(limit) && `limit=${limit} was accepted (1–100)`,
    page.has_more &&
      page.data.length !== size &&
      `has_more is true, and the page holds ${page.data.length} items, not ${size}`,
  );
  const after = query.get('starting_after');
  const before = query.get('ending_before');
  if (after !== null || before !== null)
    v.check(
      'mock.cursor-walks',
      after !== null && before !== null && 'starting_after and ending_before together were accepted',
      ...[after, before].map(
        (cursor) =>
          cursor !== null &&
          page.data.some((item) => idOf(item) === cursor) &&
          `the page holds its own cursor ${cursor}`,
      ),
    );
  const active = query.get('active');
  if (reading.route.kind === 'contacts' && active !== null)
    v.check(
      'mock.active-filter',
      active !== 'true' && active !== 'false' && `active=${active} was accepted`,
      active === 'true' &&
        page.data.some((c) => c.last_active_at === null) &&
        'active=true lists a contact never active',
      active === 'false' &&
        page.data.some((c) => c.last_active_at !== null) &&
        'active=false lists a contact that was active',
    );
}

export function contactFieldRules(
  v: Verdicts,
  params: Json,
  body: Json,
  operation: 'create' | 'update',
): void {
  const text = (key: string) => (typeof params[key] === 'string' ? (params[key] as string) : undefined);
  const username = text('username');
  const phone = text('phone_number');
  const avatar = text('avatar_url');
  const name = text('display_name');
  v.check(
    'mock.field-rules',
    operation === 'create' &&
      username !== undefined &&
      (username.length < 1 || username.length > 64) &&
      `a username of ${username.length} characters was accepted`,
    operation === 'create' &&
      phone !== undefined &&
      !PHONE.test(phone) &&
      `the phone_number ${show(phone)} was accepted`,
    operation === 'create' &&
      avatar !== undefined &&
      avatar !== '' &&
      !/^https?:\/\/\S+$/i.test(avatar) &&
      `the avatar_url ${show(avatar)} was accepted`,
    name !== undefined && name.length > 64 && `a display_name of ${name.length} characters was accepted`,
    operation === 'create' &&
      phone !== undefined &&
      body.phone_number !== phone &&
      `phone_number sent as ${show(phone)} is stored as ${show(body.phone_number)}`,
    operation === 'create' &&
      avatar &&
      body.avatar_url !== avatar &&
      `avatar_url sent as ${show(avatar)} is stored as ${show(body.avatar_url)}`,
    operation === 'create' &&
      name === '' &&
      body.display_name !== username &&
      `an empty display_name on create gave ${show(body.display_name)}, not the username`,
    operation === 'update' &&
      name === '' &&
      body.display_name !== null &&
      `an empty display_name on update gave ${show(body.display_name)}, not null`,
  );
}

/** What the mock's conventions ask of a request, whether it succeeded or not. */
export function requestConventions(
  v: Verdicts,
  reading: Reading,
  operation: string,
  state: SessionState,
  world: World | undefined,
): void {
  const { exchange, route } = reading;
  const started = exchange.startedAt;
  const conversation =
    route.kind === 'messages'
      ? exchange.method === 'POST'
        ? reading.params?.conversation_id
        : reading.query.get('conversation_id')
      : undefined;
  if (typeof conversation === 'string' && world) {
    const gone = world.goneConversations.get(conversation);
    if (gone !== undefined && gone <= started)
      v.check(
        'mock.unknown-conversation',
        exchange.status !== 404 &&
          `conversation ${conversation} was deleted with its contact; expected 404, got ${exchange.status}`,
      );
  }
  if (!reading.ok || !v.has('mock.unknown-parameters')) return;
  const allowed = PARAMETERS[operation]!;
  const given = [
    ...reading.query.keys(),
    ...(exchange.method === 'POST' || exchange.method === 'PUT' ? Object.keys(reading.params ?? {}) : []),
  ];
  const unknown = [...new Set(given.filter((key) => !allowed.includes(key)))];
  v.check(
    'mock.unknown-parameters',
    unknown.length > 0 &&
      `accepted the parameter(s) ${unknown.join(', ')} (this operation takes ${allowed.join(', ') || 'none'})`,
  );
  if ('id' in route) {
    const creator = state.creators.get(route.id);
    v.check(
      'mock.token-isolation',
      creator !== undefined &&
        creator !== reading.authorization &&
        `${route.id} was created with another token, and this one reached it (${exchange.status})`,
    );
  }
}

/** The mock's conventions on any answer, on any path: error bodies, statuses, routing, CORS. */
export function conventionsOfAnyAnswer(v: Verdicts, reading: Reading): void {
  const { exchange, route } = reading;
  const status = exchange.status;
  if (status >= 400 && exchange.method !== 'HEAD' && reading.text !== undefined) {
    const body = reading.body;
    const extra = isObject(body) ? Object.keys(body).filter((key) => !ERROR_FIELDS.includes(key)) : [];
    v.check(
      'mock.error-body',
      !isObject(body)
        ? `the ${status} answer is not a JSON object: ${show(reading.text)}`
        : body.type !== (status >= 500 ? 'api_error' : 'invalid_request')
          ? `the ${status} answer has type ${show(body.type)}`
          : !ERROR_CODES.has(String(body.code))
            ? `the ${status} answer has the code ${show(body.code)}, which the conventions do not list`
            : typeof body.message !== 'string' || body.message === ''
              ? `the ${status} answer has no message`
              : extra.length > 0
                ? `the ${status} answer is not flat: it also has ${extra.join(', ')}`
                : /\n\s+at /.test(reading.text) && `the ${status} answer holds a stack trace`,
    );
  }
  if (status === 401 || status === 405)
    v.check(
      'mock.error-statuses',
      status === 401 &&
        !/^Bearer\b/i.test(exchange.responseHeaders['www-authenticate'] ?? '') &&
        'a 401 without WWW-Authenticate: Bearer',
      status === 405 && !exchange.responseHeaders.allow && 'a 405 without Allow',
    );
  const type = (exchange.requestHeaders['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (['application/x-www-form-urlencoded', 'application/json', 'multipart/form-data'].includes(type))
    v.check('mock.request-bodies', status === 415 && `a ${type} body was refused with 415`);
  if (exchange.requestHeaders.origin !== undefined)
    v.check(
      'mock.cors',
      !exchange.responseHeaders['access-control-allow-origin'] &&
        'an answer to a request with Origin has no Access-Control-Allow-Origin',
    );
  // One trailing slash names the same route (reading.path is without it): never route_not_found,
  // and a list is never missing.
  const slashed = exchange.url.split('?')[0]!;
  if (
    route.kind !== 'outside' &&
    route.kind !== 'unknown-api' &&
    slashed.length > 1 &&
    slashed.endsWith('/')
  ) {
    const code = isObject(reading.body) ? reading.body.code : undefined;
    v.check(
      'mock.routing',
      status === 404 &&
        (code === 'route_not_found' || route.kind === 'contacts' || route.kind === 'messages') &&
        `${slashed} ends in a slash, and was answered 404${code !== undefined ? ` ${show(code)}` : ''}: the slash is tolerated`,
    );
  }
  if (route.kind === 'outside' && !reading.path.startsWith('/__mock/') && reading.path !== '/openapi.json') {
    const code = isObject(reading.body) ? reading.body.code : undefined;
    v.check(
      'mock.routing',
      (status !== 404 ||
        (reading.text !== undefined && exchange.method !== 'HEAD' && code !== 'route_not_found')) &&
        `${reading.path} is outside /v1, and was answered ${status}${code !== undefined ? ` ${show(code)}` : ''}, not 404 route_not_found`,
    );
  }
}

export function preflight(v: Verdicts, reading: Reading): void {
  const { exchange } = reading;
  if (exchange.requestHeaders['access-control-request-method'] === undefined) return;
  const allowed = (exchange.responseHeaders['access-control-allow-headers'] ?? '')
    .toLowerCase()
    .split(/\s*,\s*/);
  v.check(
    'mock.cors',
    exchange.status !== 204 && `the preflight was answered ${exchange.status}, not 204`,
    !exchange.responseHeaders['access-control-allow-origin'] &&
      'the preflight has no Access-Control-Allow-Origin',
    ...['authorization', 'content-type'].map(
      (name) =>
        !allowed.includes(name) && allowed[0] !== '*' && `the preflight does not allow the ${name} header`,
    ),
  );
}
