import type { Reading } from '../http/exchange';
import { CONTACT_UPDATES, formerKey, type World } from './state';
import { CONTACT_FIELDS, MESSAGE_FIELDS, optionalOf, requiredOf, updatedWith } from '../rules/resources';
import { routeId, type Verdicts } from './verdicts';

/** Requests the server refused, and what a refusal of each kind keeps or breaks. */

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
  const keys = Object.keys(reading.params);
  const sent = (param: string) => keys.some((key) => key === param || key.startsWith(`${param}[`));
  const id = routeId(reading);
  if (id !== '' && !(operation === 'PUT contact' ? world?.contacts.has(id) : world?.messages.has(id))) return;
  const text = reading.text ?? '';
  const named = optional.params.filter((p) => !sent(p) && new RegExp(`\\b${p}\\b`).test(text));
  // Any parameter sent, documented or not, that the refusal names: the refusal is about it.
  const namedSent = keys
    .map((key) => key.replace(/\[.*$/, ''))
    .filter((key) => key !== '' && new RegExp(`\\b${escape(key)}\\b`).test(text));
  if (named.length === 0 || namedSent.length > 0) return;
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
  if (Object.keys(reading.params ?? {}).some((key) => !CONTACT_UPDATES.includes(key)))
    v.check('contacts.update.only-display-name');
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
  const lacking = REQUIRED[route.kind].some((field) => params?.[field] === undefined || params[field] === '');
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
 * The document's parameters are form parameters: a write with a form body the server takes keeps
 * api.form-parameters; one it refuses with 415, or whose very parameters it refused as a form and
 * then took as JSON, breaks it.
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
