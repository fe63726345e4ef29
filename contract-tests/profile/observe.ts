import { pagingOf } from '../../common/paging';
import { config } from '../http/config';
import { ANY_REQUEST } from '../http/exchange';
import { is2xx, is4xx, onExchange, type Exchange } from '../http/http';
import { writeRecord } from '../http/records';
import { CONTACT_FIELDS, MESSAGE_FIELDS, requiredOf } from '../rules/resources';
import type { Observations, ProfileKey, ProfileRecord } from '../http/observations';
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
  splitPath,
  unitOf,
} from './shapes';

/**
 * The server profile of `--profile-out`, observed from the kit's ordinary exchanges in every
 * process of the run (the bin and jest's workers), as ledger records that the bin reads back
 * (build.ts). Only when the run writes a profile: otherwise nothing is recorded. Each process
 * records a value once, with the first exchange that showed it.
 */
const recorded = new Set<string>();

export function record<K extends ProfileKey>(key: K, value: Observations[K], seen: string): void {
  if (!config.profileOut) return;
  // Per run: a process that runs the kit twice records each run's own.
  const id = `${config.resultsDir} ${key} ${JSON.stringify(value)}`;
  if (recorded.has(id)) return;
  recorded.add(id);
  writeRecord({ kind: 'profile', key, value, seen } as ProfileRecord);
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

function observeSuccess(exchange: Exchange): void {
  const operation = operationOf(exchange);
  const seen = seenOf(exchange);
  const type = contentTypeOf(exchange);
  if (exchange.body !== undefined && type) record('content type', type, seen);
  if (!operation) return;
  record('success status', { operation, status: exchange.status }, seen);
  const [list, name] = operation.split('.') as ['contacts' | 'messages', string];
  const body = exchange.body;
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
  if (name === 'list' && isObject(body) && Array.isArray(body.data)) {
    const { query } = splitPath(exchange.path);
    const keys = [...query.keys()];
    const items = body.data.filter(isObject);
    if (!keys.some((key) => FILTERS.includes(key)) && items.length >= 3)
      record('list order', { list, ...pageOrder(list, items) }, seen);
    if (body.has_more === true && keys.every((key) => FILTERS.includes(key)))
      record('default limit', body.data.length, seen);
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

function observeRefusal(exchange: Exchange): void {
  const seen = seenOf(exchange);
  if (exchange.text.trim() !== '')
    record('error body', { status: exchange.status, shape: errorShapeOf(exchange) ?? null }, seen);
  // A refusal of the token or of the rate says nothing of the id.
  if (exchange.method === 'GET' && deletedPaths.has(exchange.path) && !ANY_REQUEST.includes(exchange.status))
    record('deleted id', exchange.status, seen);
  const operation = operationOf(exchange);
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
