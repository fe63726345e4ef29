import type { OwnField, OwnFields } from '../../common/server-profile';
import type { Exchange } from '../http/http';
import type { Observations } from '../http/observations';
import type { RecordLine } from '../http/records';
import { CONTACT_FIELDS, MESSAGE_FIELDS, senderOf } from '../rules/resources';
import { isObject, splitPath } from './shapes';

/**
 * The fields a server adds to what the document lists (`object: "contact"`, `links.self`, a page's
 * `total_count`, an error's `source.parameter`), and how each can be explained. Each answer tells,
 * for each such field (a leaf: `links.self`, not `links`), which explanations it is consistent
 * with (observe.ts records them); the bin keeps, for each field, the one explanation that every
 * answer bears out (ownFieldsOf), else the value seen as an example.
 */
type Json = Record<string, unknown>;
export type Where = keyof OwnFields;
type Seen = Observations['own field'];

const CONTACT = Object.keys(CONTACT_FIELDS);
const MESSAGE = Object.keys(MESSAGE_FIELDS);
const SENDER = senderOf(CONTACT_FIELDS);
/** A list's own parameters: with only these, a page is a first page. */
const FIRST_PAGE = ['limit', 'active', 'conversation_id'];
/** A value kept whole in a record: longer ones are examples, not constants. */
const MAX_CONSTANT = 200;

/** The leaves of `value` below `at`: objects are walked, arrays by their first item. */
function leaves(value: unknown, at: string, into: [string, unknown][]): [string, unknown][] {
  if (isObject(value) && Object.keys(value).length > 0)
    for (const [key, inner] of Object.entries(value)) leaves(inner, at ? `${at}.${key}` : key, into);
  else if (Array.isArray(value) && isObject(value[0])) leaves(value[0], `${at}.0`, into);
  else into.push([at, value]);
  return into;
}

const constant = (value: unknown): string[] => {
  const text = JSON.stringify(value);
  return text !== undefined && text.length <= MAX_CONSTANT ? [`const:${text}`] : [];
};

/** A record's field explained by the record: a copy of a documented field, or its own URL. */
function recordExplains(
  record: Json,
  value: unknown,
  documented: readonly string[],
  origin: string,
): string[] {
  const found = constant(value);
  if (value === null || typeof value === 'boolean') return found;
  for (const key of documented) if (record[key] === value) found.push(`copy:${key}`);
  const id = record.id;
  if (typeof value === 'string' && (typeof id === 'string' || typeof id === 'number') && String(id) !== '') {
    const at = value.lastIndexOf(String(id));
    if (at !== -1) {
      let template = `${value.slice(0, at)}{id}${value.slice(at + String(id).length)}`;
      if (template.startsWith(`${origin}/`)) template = `{origin}${template.slice(origin.length)}`;
      if (template.startsWith('{origin}/') || template.startsWith('/')) found.push(`self:${template}`);
    }
  }
  return found;
}

/** The undocumented fields of one record, with what explains each. */
function ofRecord(where: 'contact' | 'message', record: Json, origin: string): Seen[] {
  const documented = where === 'contact' ? CONTACT : MESSAGE;
  const found: Seen[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (documented.includes(key)) continue;
    for (const [path, leaf] of leaves(value, key, []))
      found.push({ where, path, explains: recordExplains(record, leaf, documented, origin), sample: leaf });
  }
  const sender = where === 'message' ? record.contact : undefined;
  if (isObject(sender))
    for (const [key, value] of Object.entries(sender)) {
      if (SENDER.includes(key)) continue;
      for (const [path, leaf] of leaves(value, `contact.${key}`, []))
        found.push({ where, path, explains: recordExplains(sender, leaf, SENDER, origin), sample: leaf });
    }
  return found;
}

/** The fields of a list's page besides `has_more` and `data`, with what explains each. */
function ofPage(exchange: Exchange, body: Json): Seen[] {
  const { query } = splitPath(exchange.path);
  const items = Array.isArray(body.data) ? body.data.length : 0;
  const first = [...query.keys()].every((key) => FIRST_PAGE.includes(key));
  const found: Seen[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key === 'has_more' || key === 'data') continue;
    for (const [path, leaf] of leaves(value, key, [])) {
      const explains = constant(leaf);
      for (const [param, sent] of query)
        if (leaf === sent || (typeof leaf === 'number' && String(leaf) === sent))
          explains.push(`param:${param}`);
      // The page's size: the items of a page that has more, or a limit cut to the largest.
      const asked = Number(query.get('limit'));
      if (typeof leaf === 'number' && body.has_more === true && leaf === items) explains.push('size');
      if (typeof leaf === 'number' && leaf >= items && leaf < asked) explains.push('cut');
      if (typeof leaf === 'number' && Number.isInteger(leaf)) {
        if (first && body.has_more === false && leaf === items) explains.push('count');
        else if (body.has_more === true ? leaf > items : leaf >= items) explains.push('count?');
      }
      if (first) explains.push('first');
      if (leaf === null) explains.push('null');
      if (typeof leaf === 'string' && leaf !== '') explains.push('string');
      found.push({ where: 'page', path, explains, sample: leaf, sent: [...new Set(query.keys())].sort() });
    }
  }
  return found;
}

/**
 * The fields of a refusal besides its message and code, with what explains each: a parameter
 * the request sent or left out (`source.parameter`), or a constant.
 */
export function ofRefusal(exchange: Exchange, skip: readonly string[], names: readonly string[]): Seen[] {
  if (!isObject(exchange.body)) return [];
  return leaves(exchange.body, '', [])
    .filter(([path]) => path !== '' && !skip.includes(path))
    .map(([path, leaf]) => {
      const explains = constant(leaf);
      if (typeof leaf === 'string' && names.includes(leaf)) explains.push('param');
      if (leaf === exchange.status || leaf === String(exchange.status)) explains.push('status');
      return { where: 'error' as const, path, explains, sample: leaf };
    });
}

/** The undocumented fields of a successful answer of the API: its records' and its page's. */
export function ofSuccess(exchange: Exchange, list: 'contacts' | 'messages', origin: string): Seen[] {
  const body = exchange.body;
  if (!isObject(body)) return [];
  const where = list === 'contacts' ? 'contact' : 'message';
  if (Array.isArray(body.data))
    return [
      ...ofPage(exchange, body),
      ...body.data.filter(isObject).flatMap((item) => ofRecord(where, item, origin)),
    ];
  return 'id' in body ? ofRecord(where, body, origin) : [];
}

/** The one explanation every observation of one field bears out, else its example. */
function explained(seen: Seen[], exclude: readonly string[]): OwnField | undefined {
  const { where, path } = seen[0]!;
  if (exclude.includes(path)) return undefined;
  const all = (test: (s: Seen) => boolean) => seen.every(test);
  const has = (s: Seen, what: string) => s.explains.includes(what);
  const shared = seen[0]!.explains.filter((what) => all((s) => has(s, what)));
  const distinct = new Set(seen.map((s) => JSON.stringify(s.sample))).size;
  const derived = shared.find((what) => what.startsWith('self:') || what.startsWith('copy:'));
  if (derived && distinct > 1) {
    const [as, rest] = [derived.slice(0, 4), derived.slice(5)];
    return as === 'self' ? { path, as: 'self', template: rest } : { path, as: 'copy', of: rest };
  }
  if (where === 'page') {
    // The request's parameter where it was sent, one value where it was not.
    const params = new Set(seen.flatMap((s) => s.explains.filter((w) => w.startsWith('param:'))));
    for (const name of [...params].map((w) => w.slice('param:'.length))) {
      const sent = seen.filter((s) => s.sent?.includes(name));
      const unsent = seen.filter((s) => !s.sent?.includes(name));
      const exact = (s: Seen) => has(s, `param:${name}`);
      const takes = (s: Seen) => exact(s) || (name === 'limit' && (has(s, 'size') || has(s, 'cut')));
      const absent = new Set(unsent.map((s) => JSON.stringify(s.sample)));
      if (sent.some(exact) && sent.every(takes) && absent.size <= 1)
        return { path, as: 'param', param: name, absent: unsent[0]?.sample ?? null };
    }
    if (distinct > 1 && all((s) => has(s, 'count') || has(s, 'count?')) && seen.some((s) => has(s, 'count')))
      return { path, as: 'count' };
    // Null on a first page, a token or a URL on some page after it, never one on a first page.
    const later = (s: Seen) => !has(s, 'first') && has(s, 'string');
    if (
      all((s) => has(s, 'null') || has(s, 'string')) &&
      seen.some((s) => has(s, 'first') && has(s, 'null')) &&
      seen.some(later) &&
      !seen.some((s) => has(s, 'first') && has(s, 'string'))
    )
      return { path, as: 'prev' };
  }
  if (where === 'error' && all((s) => has(s, 'param'))) return { path, as: 'param-refused' };
  if (where === 'error' && distinct > 1 && all((s) => has(s, 'status'))) return { path, as: 'status' };
  const one = shared.find((what) => what.startsWith('const:'));
  if (one !== undefined)
    return { path, as: 'constant', value: JSON.parse(one.slice('const:'.length)) as unknown };
  return { path, as: 'example', value: seen[0]!.sample };
}

/**
 * The fields each kind of answer carries beyond the document, each explained (ownFieldsOf):
 * `exclude` names what the profile says elsewhere (the next-page key, the error's message).
 */
export function ownFieldsOf(
  records: RecordLine[],
  exclude: Partial<Record<Where, readonly string[]>>,
): OwnFields {
  const seen = records
    .filter((r) => r.kind === 'profile' && r.key === 'own field')
    .map((r) => (r as { value: Seen }).value);
  const fields: OwnFields = { contact: [], message: [], page: [], error: [] };
  const byField = new Map<string, Seen[]>();
  for (const s of seen) {
    const key = `${s.where} ${s.path}`;
    byField.set(key, [...(byField.get(key) ?? []), s]);
  }
  for (const group of byField.values()) {
    const field = explained(group, exclude[group[0]!.where] ?? []);
    if (field) fields[group[0]!.where].push(field);
  }
  for (const where of Object.keys(fields) as Where[])
    fields[where].sort((a, b) => a.path.localeCompare(b.path));
  return fields;
}
