import { isTransientStatus } from '../../common/transient';
import { ANY_REQUEST, deleting, isObject, type PendingWrite, type Reading } from '../http/exchange';
import { CONTACT_UPDATES, formerKey, type World } from './state';
import {
  CONTACT_FIELDS,
  madeUp,
  MESSAGE_FIELDS,
  optionalOf,
  requiredOf,
  updatedWith,
} from '../rules/resources';
import { routeId, type Verdicts } from './verdicts';

/** Requests the server refused, and what a refusal of each kind keeps or breaks. */

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether a write sent a parameter: itself, or a bracket key of it (`reactions[heart][]`). */
const sends = (reading: Reading) => (param: string) =>
  Object.keys(reading.params ?? {}).some((key) => key === param || key.startsWith(`${param}[`));

/** Whether a contact update sent an attribute beyond those an update may change. */
const beyondUpdates = (reading: Reading) =>
  Object.keys(reading.params ?? {}).some((key) => !CONTACT_UPDATES.includes(key));

/** Keys that carry an error's structure, not a parameter's name (`{"message": "…"}` names no `message`). */
const ERROR_KEYS = new Set([
  'message',
  'error',
  'errors',
  'code',
  'type',
  'detail',
  'details',
  'title',
  'status',
]);

/**
 * The words of a refusal: of a JSON body its strings and its keys but those of an error's
 * structure, else its text.
 */
function refusalWords(reading: Reading): string {
  if (!isObject(reading.body) && !Array.isArray(reading.body)) return reading.text ?? '';
  const words: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') words.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (isObject(value))
      for (const [key, inner] of Object.entries(value)) {
        if (!ERROR_KEYS.has(key)) words.push(key);
        walk(inner);
      }
  };
  walk(reading.body);
  return words.join('\n');
}

/** Whether the refusal names a parameter that was sent, documented or not: it is about that one. */
function namesSent(reading: Reading): boolean {
  const text = refusalWords(reading);
  return Object.keys(reading.params ?? {})
    .map((key) => key.replace(/\[.*$/, ''))
    .some((key) => key !== '' && new RegExp(`\\b${escape(key)}\\b`).test(text));
}

/** The documented optional parameters of each operation, and the rule a refusal for leaving one out breaks. */
const OPTIONAL: Record<
  string,
  { params: readonly string[]; rule: (sent: (p: string) => boolean) => string }
> = {
  'POST contacts': { params: optionalOf(CONTACT_FIELDS), rule: () => 'contacts.create' },
  'PUT contact': { params: CONTACT_UPDATES, rule: () => 'contacts.update.display-name' },
  'POST messages': { params: optionalOf(MESSAGE_FIELDS), rule: () => 'messages.send' },
  'PUT message': {
    params: updatedWith(MESSAGE_FIELDS),
    rule: (sent) =>
      sent('reactions')
        ? 'messages.update.add-reaction'
        : sent('attachments')
          ? 'messages.update.add-attachment'
          : 'messages.update.edit-text',
  },
};

/**
 * A request refused for leaving out what the document calls optional: the refusal names a
 * parameter that was not sent, and the record it is about is alive. (A refusal that names a
 * parameter that was sent is about its value, which a server may refuse.)
 */
export function refusedForOptional(
  v: Verdicts,
  reading: Reading,
  operation: string,
  world: World | undefined,
): void {
  const optional = OPTIONAL[operation];
  const status = reading.exchange.status;
  if (!optional || status < 400 || status >= 500 || [401, 403, 404, 405, 413, 429].includes(status)) return;
  // What was sent must be known: a body the proxy could not read may have held the parameter.
  if (reading.params === undefined) return;
  const sent = sends(reading);
  const id = routeId(reading);
  if (id !== '' && !(operation === 'PUT contact' ? world?.contacts.has(id) : world?.messages.has(id))) return;
  const text = refusalWords(reading);
  const named = optional.params.filter((p) => !sent(p) && new RegExp(`\\b${p}\\b`).test(text));
  if (named.length === 0 || namesSent(reading)) return;
  v.check(
    optional.rule(sent),
    `refused (${status}) for leaving out ${named.map((p) => `\`${p}\``).join(' and ')}, which the document calls optional`,
  );
}

/**
 * A contact update of an attribute no update may change, refused (a 4xx but 401, 403, 404, 429):
 * the refusal keeps contacts.update.only-display-name, so the exchange counts among those judged
 * against it (an accepted one is judged by `updatedContact`).
 */
export function refusedUpdate(v: Verdicts, reading: Reading, operation: string): void {
  const status = reading.exchange.status;
  if (operation !== 'PUT contact' || status < 400 || status >= 500 || [401, 403, 404, 429].includes(status))
    return;
  if (beyondUpdates(reading)) v.check('contacts.update.only-display-name');
}

const REQUIRED = { contacts: requiredOf(CONTACT_FIELDS), messages: requiredOf(MESSAGE_FIELDS) };

/** Refusals that say nothing of the request's content: they never count as the server's answer to it. */
const NOT_ABOUT_CONTENT = [401, 403, 404, 405, 408, 413, 429];

/**
 * What a trace of a refused send would show: a message in its conversation (one that lacked its
 * text leaves one of any text), or one with the text it sent. Kept in `World.refused` beside the
 * usernames of refused creates, which never start with a NUL.
 */
export function sendTraceKey(conversation: string, text?: unknown): string {
  return `\u0000${conversation}${text === undefined ? '' : `\u0000${formerKey(text)}`}`;
}

/** Whether a create or a send lacks a field the document requires (empty counts as lacking). */
function lacksRequired(reading: Reading): boolean {
  const { route, params } = reading;
  if (params === undefined || (route.kind !== 'contacts' && route.kind !== 'messages')) return false;
  return REQUIRED[route.kind].some((field) => params[field] === undefined || params[field] === '');
}

/**
 * A create the server refused for its content, and what a record it made all the same would show:
 * a contact's username, or for a send the key `sendTraceKey` makes. With whether it lacked a field
 * the document requires.
 */
export function refusedCreate(reading: Reading): { key: string; lacking: boolean } | undefined {
  const { route, exchange, params } = reading;
  if (exchange.method !== 'POST' || (route.kind !== 'contacts' && route.kind !== 'messages'))
    return undefined;
  // A 409 says the contact exists already: one shown with that username is that one.
  const status = exchange.status;
  if (status < 400 || status >= 500 || status === 409 || NOT_ABOUT_CONTENT.includes(status)) return undefined;
  const lacking = lacksRequired(reading);
  if (route.kind === 'contacts') {
    const username = params?.username;
    return typeof username !== 'string' || username === '' ? undefined : { key: username, lacking };
  }
  // A send that named no conversation names no place where its trace would show.
  const conversation = params?.conversation_id;
  if (typeof conversation !== 'string' || conversation === '') return undefined;
  return { key: sendTraceKey(conversation, lacking ? undefined : params?.message), lacking };
}

const bodyType = (reading: Reading) =>
  (reading.exchange.requestHeaders['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();

/** What a write sent, whatever its encoding: its method, path and parameters, every value as text. */
export function sentKey(reading: Reading): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value)
              .sort(([a], [b]) => (a < b ? -1 : 1))
              .map(([key, inner]) => [key, canonical(inner)]),
          )
        : String(value);
  return `${reading.exchange.method} ${reading.path} ${JSON.stringify(canonical(reading.params ?? {}))}`;
}

/** A write with a form body the server refused for its content (kept to hold a JSON twin against it). */
export function refusedForm(reading: Reading): boolean {
  const status = reading.exchange.status;
  return (
    ['POST', 'PUT', 'PATCH'].includes(reading.exchange.method) &&
    bodyType(reading) === 'application/x-www-form-urlencoded' &&
    status >= 400 &&
    status < 500 &&
    !NOT_ABOUT_CONTENT.includes(status)
  );
}

/**
 * A refusal that speaks of the body's kind (JSON, a content or media type, url-encoding) and of no
 * parameter sent: it refused the form, not a value in it.
 */
function asksForAnotherBody(reading: Reading): boolean {
  return (
    /\bjson\b|content[- _]?type|media[- _]?type|urlencoded/i.test(reading.text ?? '') && !namesSent(reading)
  );
}

/**
 * The document's parameters are form parameters: a write with a form body the server takes keeps
 * api.form-parameters; one it refuses with 415, or for being a form (`asksForAnotherBody`), or whose
 * very parameters it refused as a form and then took as JSON, breaks it.
 */
export function formParameters(v: Verdicts, reading: Reading, world: World | undefined): void {
  const { exchange, route } = reading;
  if (!['POST', 'PUT', 'PATCH'].includes(exchange.method) || route.kind === 'outside') return;
  const type = bodyType(reading);
  if (type === 'application/x-www-form-urlencoded') {
    if (exchange.status === 415 || reading.ok)
      v.check(
        'api.form-parameters',
        exchange.status === 415 && `${exchange.method} with a form body answered 415`,
      );
    else if (refusedForm(reading) && asksForAnotherBody(reading))
      v.check(
        'api.form-parameters',
        `${exchange.method} with a form body refused (${exchange.status}) for the kind of its body: ${(reading.text ?? '').slice(0, 200)}`,
      );
    return;
  }
  if (!reading.ok || !(type === 'application/json' || type.endsWith('+json'))) return;
  const refused = world?.formsRefused.get(sentKey(reading));
  if (refused !== undefined)
    v.check(
      'api.form-parameters',
      `the same parameters, refused as a form body (${refused}), were taken as JSON (${exchange.status})`,
    );
}

/**
 * The rule a list request answers to, named by the parameter it was asked for with: the filter
 * first, then the limit (judge/lists.ts `listRule` is the rule of what a list holds).
 */
function parameterRule(operation: string, query: URLSearchParams): string {
  // `active` is a parameter of the contacts' list only: on the messages' it is no documented one.
  if (
    operation === 'GET contacts' &&
    query.has('active') &&
    [...query.keys()].every((key) => key === 'active')
  )
    return 'contacts.list.active-parameter';
  if (operation === 'GET messages' && query.has('conversation_id'))
    return 'messages.list.conversation-filter';
  if (query.has('limit')) return 'lists.limit';
  return operation === 'GET contacts' ? 'contacts.list' : 'messages.list.all-conversations';
}

/** A list and one parameter of it with its value, as `listsRefused` keeps them. */
const aloneKey = (list: string, key: string, value: string) => `${list} ${key}=${value}`;

/**
 * A list asked for with one parameter and refused, as the token's `listsRefused` keeps it: a
 * refusal of a list with that parameter and more is that parameter's (`refusedAlone`).
 */
export function listRefusedAlone(reading: Reading): string | undefined {
  const { route, exchange, query } = reading;
  if (exchange.method !== 'GET' || (route.kind !== 'contacts' && route.kind !== 'messages')) return undefined;
  const status = exchange.status;
  if (status < 400 || status >= 500 || ANY_REQUEST.includes(status) || query.size !== 1) return undefined;
  const [[key, value]] = [...query];
  return aloneKey(route.kind, key!, value!);
}

/**
 * The rule of a list refused with several parameters, one of which (with the same value) the
 * server refused alone too: that parameter's, which the list asked for with it alone was charged
 * to, not the rule of the pair.
 */
function refusedAlone(operation: string, reading: Reading, world: World | undefined): string | undefined {
  const { route, query } = reading;
  if (!world || query.size < 2) return undefined;
  for (const [key, value] of query)
    if (world.listsRefused.has(aloneKey(route.kind, key, value)))
      return parameterRule(operation, new URLSearchParams([[key, value]]));
  return undefined;
}

/** The rule of each operation: the answer the document gives it is what a request of it is owed. */
function operationRule(operation: string, reading: Reading): string | undefined {
  switch (operation) {
    case 'GET contacts':
    case 'GET messages':
      return parameterRule(operation, reading.query);
    case 'GET contact':
      return 'contacts.retrieve';
    case 'GET message':
      return 'messages.retrieve';
    // A create that lacks a field the document requires is owed a refusal by that rule.
    case 'POST contacts':
      return lacksRequired(reading)
        ? 'contacts.create.requires-username-and-phone-number'
        : 'contacts.create';
    case 'POST messages':
      return lacksRequired(reading) ? 'messages.send.requires-conversation-id-and-message' : 'messages.send';
    case 'PUT contact':
      return beyondUpdates(reading) ? 'contacts.update.only-display-name' : 'contacts.update.display-name';
    case 'PUT message':
      return OPTIONAL['PUT message']!.rule(sends(reading));
    case 'DELETE contact':
      return 'contacts.delete';
    case 'DELETE message':
      return 'messages.delete.permanent';
  }
  return undefined;
}

/**
 * Whether the exchange is a retrieve, update or delete of an id the kit made up to name no record
 * (rules/resources.ts MADE_UP_IDS). HEAD, and a path with a trailing slash, are not the document's
 * requests.
 */
export function namesMadeUpId(reading: Reading): boolean {
  const { route, exchange } = reading;
  return (
    (route.kind === 'contact' || route.kind === 'message') &&
    madeUp(route.kind, route.id) &&
    ['GET', 'PUT', 'DELETE'].includes(exchange.method) &&
    exchange.url.split('?')[0] === reading.path
  );
}

/**
 * What an id the kit made up to name no record is owed: a refusal, some 4xx (the unknown-id
 * rules). A 2xx, a redirect or a 500 breaks the rule, and only it: whatever else the answer says
 * is that one fault (documented.ts judges nothing more of it, session.ts learns nothing from it).
 */
const UNKNOWN_ID_RULE = { contact: 'contacts.unknown-id', message: 'messages.unknown-id' } as const;

export function unknownId(v: Verdicts, reading: Reading): void {
  if (!namesMadeUpId(reading)) return;
  const { route, exchange } = reading;
  const status = exchange.status;
  v.check(
    UNKNOWN_ID_RULE[route.kind as 'contact' | 'message'],
    (status < 400 || status >= 500) &&
      `${exchange.method} ${reading.path} answered ${status}: ${routeId(reading)} is an id the kit made up to name no ${route.kind}, owed a refusal (some 4xx)`,
  );
}

/** A whole number the document's `limit` surely takes: it lowers the default page of ten. */
const LOWERING_LIMIT = /^(?:[1-9]|10)$/;

/**
 * What the document owes a request with nothing in it to refuse: a retrieve or a delete of a record
 * the token made and saw alive, that no delete (nor its contact's) may have taken since, with no
 * query; a list asked for with nothing, or with only a `limit` that lowers the default page (1 to
 * 10), `active` true or false (contacts), or the conversation of a contact seen alive (messages).
 * Such a request has no value the server may find wrong: a refusal (a 4xx but those any request
 * may get, and 404 or 410 for a record, which `goneUnasked` judges) breaks the operation's rule.
 * A record (or a conversation) counts only where the session is the sole writer of what it made
 * and forgot nothing (the kit's run): elsewhere another client, or a delete forgotten, may have
 * taken it. And any request of a documented operation, whatever it sent, answered a
 * 5xx that no gateway gives (a 500: the server broke on it) got neither the answer the document
 * gives nor a refusal: it breaks the operation's rule too.
 */
export function owedAnswer(
  v: Verdicts,
  reading: Reading,
  operation: string,
  soleWriter: boolean,
  world: World | undefined,
  pending: readonly PendingWrite[],
): void {
  const status = reading.exchange.status;
  // HEAD, and a path with a trailing slash, are not the document's requests: a server may refuse them.
  const url = reading.exchange.url;
  if (reading.exchange.method === 'HEAD' || url.split('?')[0] !== reading.path) return;
  // An id made up to name no record is owed a refusal (`unknownId`), not the operation's answer.
  if (namesMadeUpId(reading)) return;
  const rule = operationRule(operation, reading);
  if (!rule) return;
  // `active` alone: every such list counts among those judged against its rule.
  if (rule === 'contacts.list.active-parameter' && reading.ok) v.check(rule);
  if (reading.ok || status < 400 || isTransientStatus(status)) return;
  if (status >= 500) {
    v.check(
      rule,
      `${reading.exchange.method} ${reading.path} answered ${status}: neither the answer the document gives nor a refusal (a 4xx)`,
    );
    return;
  }
  if (ANY_REQUEST.includes(status)) return;
  // A record, or a conversation, is known alive only where the session is its sole writer.
  const alive = (kind: 'contact' | 'message', id: string) =>
    world !== undefined && soleWriter && aliveRecord(world, kind, id, reading, pending);
  const nothingToRefuse = (): string | undefined => {
    const { route, exchange, query } = reading;
    if ((route.kind === 'contacts' || route.kind === 'messages') && exchange.method === 'GET') {
      for (const [key, value] of query) {
        if (key === 'limit' && LOWERING_LIMIT.test(value)) continue;
        if (key === 'active' && route.kind === 'contacts' && (value === 'true' || value === 'false'))
          continue;
        const owner = world?.owners.get(value);
        if (key === 'conversation_id' && route.kind === 'messages' && owner && alive('contact', owner))
          continue;
        return undefined;
      }
      return query.size === 0
        ? 'a list asked for with nothing'
        : `a list asked for with ${query.toString()}, all of it the document's`;
    }
    if (route.kind !== 'contact' && route.kind !== 'message') return undefined;
    if (!['GET', 'DELETE'].includes(exchange.method) || query.size > 0 || [404, 410].includes(status))
      return undefined;
    return alive(route.kind, route.id)
      ? `the ${route.kind} ${route.id}, which the run made and saw alive, and no delete may have taken`
      : undefined;
  };
  const what = nothingToRefuse();
  if (what)
    v.check(
      refusedAlone(operation, reading, world) ?? rule,
      `refused (${status}) ${what}: such a request has nothing the server may refuse`,
    );
}

/**
 * Whether a record the token made is alive as the request is sent: the session saw it before, and
 * no delete of the token since (ended, or on its way) names it, its contact, or any record at all
 * of its conversation's contact.
 */
function aliveRecord(
  world: World,
  kind: 'contact' | 'message',
  id: string,
  reading: Reading,
  pending: readonly PendingWrite[],
): boolean {
  const known = kind === 'contact' ? world.contacts.get(id) : world.messages.get(id);
  if (!known || !world.ledger.created.has(id) || known.learntAt >= reading.exchange.startedAt) return false;
  const conversation = known.conversationId;
  const owner = typeof conversation === 'string' ? world.owners.get(conversation) : undefined;
  const deletes = [
    ...world.deletes.filter((d) => d.at > known.learntAt),
    ...pending
      .filter((w) => w.authorization === reading.authorization)
      .map(deleting)
      .filter((d) => d !== undefined),
  ];
  return !deletes.some(
    (d) => d.id === id || d.id === owner || ('conversation' in d && d.conversation === conversation),
  );
}
