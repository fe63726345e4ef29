import { pagingOf } from '../../common/paging';
import { config } from '../http/config';
import { ANY_REQUEST } from '../http/exchange';
import { is2xx, is4xx, onExchange, type Exchange } from '../http/http';
import { writeRecord } from '../http/records';
import { CONTACT_FIELDS, MADE_UP_IDS, MESSAGE_FIELDS, recordPath, requiredOf } from '../rules/resources';
import type { Observations, ProfileKey, ProfileRecord } from '../http/observations';
import type { Operation } from '../../common/server-profile';
import { formsOf, lengthOf, RULED_FIELDS } from '../../common/value-forms';
import { ofRefusal, ofSuccess } from './own-fields';
import {
  avatarDefaultOf,
  contentTypeOf,
  deleteAnswerOf,
  errorShapeOf,
  idFormatOf,
  isObject,
  messagesIn,
  operationOf,
  pageOrder,
  reactionsLayoutOf,
  seenOf,
  sentKeys,
  sentPairs,
  splitPath,
  unitOf,
} from './shapes';

/**
 * The server profile of `--profile-out`, observed from the kit's ordinary exchanges in every
 * process of the run (the bin and jest's workers), as ledger records that the bin reads back
 * (build.ts). Only when the run writes a profile: otherwise nothing is recorded. Each process
 * records a value once, with the first exchange that showed it.
 */
type Json = Record<string, unknown>;
const recorded = new Set<string>();

export function record<K extends ProfileKey>(key: K, value: Observations[K], seen: string): void {
  if (!config.profileOut) return;
  // Per run: a process that runs the kit twice records each run's own.
  const id = `${config.resultsDir} ${key} ${JSON.stringify(value)}`;
  if (recorded.has(id)) return;
  recorded.add(id);
  writeRecord({ kind: 'profile', key, value, seen } as ProfileRecord);
}

/**
 * A field beyond the document: each process records a field's first few distinct observations,
 * enough to tell a constant from a value that follows the record, the request or the list.
 */
const OWN_FIELD_SAMPLES = 24;
const ownFieldCounts = new Map<string, number>();

function recordOwnFields(found: Observations['own field'][], seen: string): void {
  for (const field of found) {
    const key = `${config.resultsDir} ${field.where} ${field.path}`;
    const count = ownFieldCounts.get(key) ?? 0;
    if (count >= OWN_FIELD_SAMPLES) continue;
    const before = recorded.size;
    record('own field', field, seen);
    if (recorded.size > before) ownFieldCounts.set(key, count + 1);
  }
}

/** The lists' own parameters: a page asked with nothing else is a first page without limit. */
const FILTERS = ['active', 'conversation_id'];
/** Refusals that are about the request as a whole, never about a parameter left out. */
const NOT_A_PARAMETER = [401, 403, 405, 406, 413, 415, 429];
/** A create's required parameters (rules/resources.ts): some sent without the rest is refused for the rest. */
const REQUIRED: Record<string, readonly string[]> = {
  'contacts.create': requiredOf(CONTACT_FIELDS),
  'messages.create': requiredOf(MESSAGE_FIELDS),
};

/** What a request sent: its body's parameters and its query's (a server may read both). */
const sentOf = (exchange: Exchange): string[] => [
  ...sentKeys(exchange.sent),
  ...splitPath(exchange.path).query.keys(),
];

/** The one reaction name an update sent, with a text at most: what a refusal of it is about. */
function reactionSent(exchange: Exchange): string | undefined {
  if (operationOf(exchange) !== 'messages.update') return undefined;
  const keys = sentKeys(exchange.sent).filter((key) => key !== 'message');
  return keys.length === 1 ? /^reactions\[([^\]]+)\]\[\]$/.exec(keys[0]!)?.[1] : undefined;
}

/** What a write may send beside its free-form values: a message's conversation. */
const BESIDE_VALUES: Record<string, readonly string[]> = { 'messages.create': ['conversation_id'] };

/**
 * The free-form values of a create or update that sent nothing else (and every required
 * parameter): what a refusal of it is about, for the profile's input rules.
 */
function valuesSent(
  exchange: Exchange,
  operation: Operation | undefined,
): Observations['input value']['values'] | undefined {
  const [list, name] = (operation ?? '').split('.') as [keyof typeof RULED_FIELDS, string];
  if (!RULED_FIELDS[list] || (name !== 'create' && name !== 'update')) return undefined;
  const pairs = sentPairs(exchange.sent);
  const ruled: readonly string[] = RULED_FIELDS[list];
  const keys = pairs.map(([key]) => key);
  if (
    pairs.length === 0 ||
    keys.some((key) => !ruled.includes(key) && !BESIDE_VALUES[operation!]?.includes(key))
  )
    return undefined;
  if ((REQUIRED[operation!] ?? []).some((field) => !keys.includes(field))) return undefined;
  const values: Observations['input value']['values'] = {};
  for (const [key, value] of pairs)
    if (ruled.includes(key)) values[key] = { length: lengthOf(value), forms: formsOf(value) };
  return Object.keys(values).length > 0 ? values : undefined;
}

/** The records this process created, in the order their creates were answered. */
const madeInOrder = new Map<string, number>();

/** Which of two neighbours with the same created_at came first, when this process made both. */
function tieOf(items: Json[]): 'older' | 'newer' | undefined {
  for (let i = 0; i + 1 < items.length; i++) {
    const [a, b] = [items[i]!, items[i + 1]!];
    if (typeof a.created_at !== 'number' || a.created_at !== b.created_at) continue;
    const [x, y] = [madeInOrder.get(String(a.id)), madeInOrder.get(String(b.id))];
    if (x !== undefined && y !== undefined) return x < y ? 'older' : 'newer';
  }
  return undefined;
}

function observeSuccess(exchange: Exchange): void {
  const operation = operationOf(exchange);
  const seen = seenOf(exchange);
  const type = contentTypeOf(exchange);
  if (exchange.body !== undefined && type) record('content type', type, seen);
  if (!operation) return;
  record('success status', { operation, status: exchange.status }, seen);
  const reaction = reactionSent(exchange);
  if (reaction !== undefined) record('reaction name', { name: reaction, taken: true }, seen);
  const values = valuesSent(exchange, operation);
  if (values) record('input value', { operation, values, taken: true, status: exchange.status }, seen);
  const [list, name] = operation.split('.') as ['contacts' | 'messages', string];
  const body = exchange.body;
  if (name !== 'delete') recordOwnFields(ofSuccess(exchange, list, new URL(config.baseUrl).origin), seen);
  if (name === 'delete') record('delete answer', { list, answer: deleteAnswerOf(exchange, list) }, seen);
  if (name === 'create' && isObject(body)) {
    const kind = list === 'contacts' ? 'contact' : 'message';
    const id = idFormatOf(body.id);
    if (id) record('id format', { kind, format: id }, seen);
    const conversation = idFormatOf(body.conversation_id);
    if (conversation) record('id format', { kind: 'conversation', format: conversation }, seen);
    const unit = unitOf(body.created_at, Date.now());
    if (unit !== undefined) record('timestamp unit', unit, seen);
    if (list === 'contacts' && !sentOf(exchange).includes('avatar_url')) {
      const avatar = avatarDefaultOf(body);
      if (avatar) record('avatar default', avatar, seen);
    }
  }
  if (name === 'create' && isObject(body) && (typeof body.id === 'string' || typeof body.id === 'number'))
    madeInOrder.set(String(body.id), madeInOrder.size);
  if (name === 'list' && isObject(body) && Array.isArray(body.data)) {
    const { query } = splitPath(exchange.path);
    const keys = [...query.keys()];
    const items = body.data.filter(isObject);
    const tie = tieOf(items);
    if (tie) record('list ties', { list, first: tie }, seen);
    if (!keys.some((key) => FILTERS.includes(key)) && items.length >= 3)
      record('list order', { list, ...pageOrder(list, items) }, seen);
    if (body.has_more === true && keys.every((key) => FILTERS.includes(key)))
      record('default limit', body.data.length, seen);
  }
  if (operation === 'messages.create' && isObject(body) && isObject(body.contact)) {
    const [at, created] = [body.contact.last_active_at, body.created_at];
    if (at === null || (typeof at === 'number' && typeof created === 'number'))
      record('touch on send', at !== null && (at as number) >= (created as number), seen);
  }
  if (list === 'messages') {
    for (const message of messagesIn(body)) {
      const layout = reactionsLayoutOf(message);
      if (layout) record('reactions', layout, seen);
    }
    const sent = sentKeys(exchange.sent)
      .map((key) => /^attachments\[0\]\[([^\]]+)\]$/.exec(key)?.[1])
      .filter((key): key is string => key !== undefined);
    const answered = isObject(body) && Array.isArray(body.attachments) ? body.attachments.at(-1) : undefined;
    if (sent.length > 0 && isObject(answered) && (name === 'create' || name === 'update'))
      record('attachment', { sent, answered: Object.keys(answered).sort() }, seen);
  }
}

/**
 * The record paths this process deleted (a 2xx DELETE): a retrieve of one later shows how the
 * server answers a deleted id, apart from an unknown one (profile/probe.ts).
 */
const deletedPaths = new Set<string>();
const recordRoute = /^\/v1\/(?:contacts|messages)\/[^/?]+$/;
/** The kit's made-up ids (`zz0unknown0contact0id`): of no server's form but one of letters and digits. */
const MADE_UP_PATHS = [
  recordPath('contact', MADE_UP_IDS.contact),
  recordPath('message', MADE_UP_IDS.message),
];

function observeRefusal(exchange: Exchange): void {
  const seen = seenOf(exchange);
  const shape = exchange.text.trim() === '' ? undefined : errorShapeOf(exchange);
  if (exchange.text.trim() !== '')
    record('error body', { status: exchange.status, shape: shape ?? null }, seen);
  if (shape) {
    const operation = operationOf(exchange);
    const required = (operation && REQUIRED[operation]) || [];
    // A parameter by any of its names: `reactions[heart][]`, `reactions[heart]`, `reactions`; an id in the path.
    const sent = sentOf(exchange).flatMap((key) =>
      [...key.matchAll(/\[[^\]]*\]/g)].map((bracket) => key.slice(0, bracket.index)).concat(key),
    );
    const names = [
      ...new Set([...sent, ...required, ...(recordRoute.test(splitPath(exchange.path).path) ? ['id'] : [])]),
    ];
    const skip = [shape.messageAt, ...(shape.codeAt ? [shape.codeAt] : [])];
    recordOwnFields(ofRefusal(exchange, skip, names), seen);
  }
  // A refusal of the token or of the rate says nothing of the id.
  if (exchange.method === 'GET' && deletedPaths.has(exchange.path) && !ANY_REQUEST.includes(exchange.status))
    record('deleted id', exchange.status, seen);
  const reaction = reactionSent(exchange);
  if (reaction !== undefined && ![404, 410, ...ANY_REQUEST].includes(exchange.status))
    record('reaction name', { name: reaction, taken: false }, seen);
  if (
    exchange.method === 'GET' &&
    MADE_UP_PATHS.includes(exchange.path) &&
    !ANY_REQUEST.includes(exchange.status)
  )
    record('malformed id', exchange.status, seen);
  const operation = operationOf(exchange);
  const values = valuesSent(exchange, operation);
  if (values && ![404, 409, 410, ...NOT_A_PARAMETER, ...ANY_REQUEST].includes(exchange.status))
    record('input value', { operation: operation!, values, taken: false, status: exchange.status }, seen);
  const required = operation && REQUIRED[operation];
  if (!required || NOT_A_PARAMETER.includes(exchange.status)) return;
  const sent = sentOf(exchange);
  if (new Set(required.map((field) => sent.includes(field))).size > 1)
    record('missing parameter', exchange.status, seen);
}

onExchange((exchange) => {
  if (!config.profileOut || !exchange.path.startsWith('/v1/')) return;
  if (exchange.method === 'DELETE' && is2xx(exchange) && recordRoute.test(exchange.path))
    deletedPaths.add(exchange.path);
  if (is2xx(exchange)) observeSuccess(exchange);
  else if (is4xx(exchange)) observeRefusal(exchange);
});

/** After a walk of a list: the next-page mechanism it settled on, if it needed one. */
export function observePaging(path: string): void {
  if (!config.profileOut) return;
  const found = pagingOf(config.baseUrl, path);
  if (found === undefined) return;
  record('paging', { path, paging: found?.paging ?? null }, found ? seenOf(found.exchange) : '');
}
