import { errors } from '../errors';
import type { Params } from '../input/params';
import * as fields from '../input/operations';
import type { World } from '../store/world';
import { json, type CoreAnswer } from '../core/answer';
import { MOCK_PAGING, type Conventions, type Kind, type Paging } from './profile';
import { LIMITS } from '../input/limits';
import { fillOwn, setPath } from './fields';

/**
 * A list as the twin's server pages and orders it: the whole list read from the world in the
 * mock's order (newest first), ordered by the profile's field, then cut at the page its paging
 * parameter asks for. Other paging parameters are ignored, as a server with one mechanism does.
 */

type Item = Readonly<Record<string, unknown>> & { id: string };

export function twinList(c: Conventions, kind: Kind, world: World, params: Params, url: string): CoreAnswer {
  const paging = c.paging ?? MOCK_PAGING;
  const rest = new Map(params);
  const cursorParam = paging.param ?? 'cursor';
  const cursor = rest.get(cursorParam);
  for (const name of ['limit', cursorParam, 'starting_after', 'ending_before']) rest.delete(name);
  const limit = limitOf(c, params.get('limit'));
  const page = { limit: 100, ending_before: undefined };
  let all: Item[];
  if (kind === 'contacts') {
    const query = fields.contactList(rest);
    all = everyItem((after) => world.listContacts({ ...query, ...page, starting_after: after }));
  } else {
    const query = fields.messageList(rest);
    all = everyItem((after) => world.listMessages({ ...query, ...page, starting_after: after }));
  }
  const ordered = orderOf(c, kind, all);
  const start = startOf(paging, cursorParam, cursor, ordered, limit);
  const data = ordered.slice(start, start + limit);
  const hasMore = start + limit < ordered.length;
  const body: Record<string, unknown> = { has_more: hasMore, data };
  const headers: Record<string, string> = {};
  if (paging.kind === 'body-token' || paging.kind === 'body-url' || paging.kind === 'link-header') {
    const next = hasMore ? token(start + limit) : null;
    const nextUrl = next === null ? null : withParam(`${c.pathPrefix}${url}`, cursorParam, next);
    if (paging.kind === 'body-token') setPath(body, paging.bodyKey!, next);
    else if (paging.kind === 'body-url') setPath(body, paging.bodyKey!, nextUrl);
    else if (nextUrl !== null) headers.Link = `<${nextUrl}>; rel="next"`;
  }
  if (c.ownFields) {
    // The previous page as the next one is given: a token, or a URL with it.
    const before = start === 0 ? null : token(Math.max(0, start - limit));
    const prev =
      before === null || (paging.kind !== 'body-url' && paging.kind !== 'link-header')
        ? before
        : withParam(`${c.pathPrefix}${url}`, cursorParam, before);
    const param = (name: string) => (name === 'limit' ? limit : params.get(name));
    fillOwn(c.ownFields.page, body, { origin: '', param, count: ordered.length, prev });
  }
  const answer = json(c.successStatus[`${kind}.list`] ?? 200, body);
  Object.assign(answer.headers, headers);
  return answer;
}

function limitOf(c: Conventions, raw: unknown): number {
  const fallback = c.limit?.default ?? LIMITS.pageSizeDefault;
  if (raw === undefined) return fallback;
  const max = c.limit?.max ?? LIMITS.pageSizeMax;
  const n =
    typeof raw === 'string' && /^[0-9]{1,9}$/.test(raw) ? Number(raw) : typeof raw === 'number' ? raw : NaN;
  if (!Number.isInteger(n) || n < 1)
    throw errors.invalid('limit', `must be a whole number from 1 to ${max}.`);
  if (n > max) {
    if (c.limit?.overMax === 'clamp') return max;
    throw errors.invalid('limit', `must be a whole number from 1 to ${max}.`);
  }
  return n;
}

const COMPARE: Record<string, (a: Item, b: Item) => number> = {
  created_at: (a, b) => (a.created_at as number) - (b.created_at as number),
};

function orderOf(c: Conventions, kind: Kind, items: Item[]): Item[] {
  const order = c.order[kind];
  if (!order) return items;
  if (order.field === null) {
    // An order no field explains, the same on every read: by a hash of the id.
    const hashed = new Map(items.map((item) => [item.id, hash(String(item.id))]));
    return [...items].sort((a, b) => hashed.get(a.id)! - hashed.get(b.id)!);
  }
  const { field, direction } = order;
  if (field === 'created_at') {
    // The mock's own order is created_at descending, ties latest first: ascending is its reverse.
    const ordered = direction === 'desc' ? items : [...items].reverse();
    const natural = direction === 'desc' ? 'newer-first' : 'older-first';
    return order.ties === undefined || order.ties === natural ? ordered : tiesTurned(ordered);
  }
  const compare =
    COMPARE[field] ??
    ((a: Item, b: Item) => {
      const x = String(a[field] ?? a.username ?? '');
      const y = String(b[field] ?? b.username ?? '');
      return x < y ? -1 : x > y ? 1 : 0;
    });
  const sign = direction === 'desc' ? -1 : 1;
  // Array.prototype.sort is stable: ties keep the mock's order.
  return [...items].sort((a, b) => sign * compare(a, b));
}

/** The same list with each run of records of one created_at the other way round. */
function tiesTurned(items: Item[]): Item[] {
  const out: Item[] = [];
  for (let i = 0; i < items.length;) {
    let j = i + 1;
    while (j < items.length && items[j]!.created_at === items[i]!.created_at) j++;
    out.push(...items.slice(i, j).reverse());
    i = j;
  }
  return out;
}

function startOf(paging: Paging, param: string, cursor: unknown, items: Item[], limit: number): number {
  if (cursor === undefined) return 0;
  if (typeof cursor !== 'string' || cursor === '') throw errors.invalid(param, 'must be a non-empty string.');
  switch (paging.kind) {
    case 'after-id': {
      const at = items.findIndex((item) => String(item.id) === cursor);
      if (at === -1) throw errors.invalid(param, `names no item of this list: ${cursor}.`);
      return at + 1;
    }
    case 'page': {
      if (!/^[1-9][0-9]{0,8}$/.test(cursor)) throw errors.invalid(param, 'must be a page number from 1.');
      return (Number(cursor) - 1) * limit;
    }
    case 'offset': {
      if (!/^[0-9]{1,9}$/.test(cursor)) throw errors.invalid(param, 'must be a whole number from 0.');
      return Number(cursor);
    }
    default: {
      const offset = untoken(cursor);
      if (offset === undefined) throw errors.invalid(param, 'is not a token this server gave.');
      return offset;
    }
  }
}

/** FNV-1a of a text: 32 bits. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** An opaque next-page token: the offset of the next page, base64url. */
function token(offset: number): string {
  return btoa(`o:${offset}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function untoken(text: string): number | undefined {
  try {
    const match = /^o:([0-9]{1,9})$/.exec(atob(text.replace(/-/g, '+').replace(/_/g, '/')));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The request's path and query with `name` set to `value`. */
function withParam(url: string, name: string, value: string): string {
  const at = url.indexOf('?');
  const query = new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
  query.set(name, value);
  return `${at === -1 ? url : url.slice(0, at)}?${query.toString()}`;
}

/** Every item of a list of the world, read a page after another (`after` the last id read). */
function everyItem(
  pageAfter: (after: string | undefined) => { has_more: boolean; data: readonly { id: string }[] },
): Item[] {
  const all: Item[] = [];
  for (let after: string | undefined; ;) {
    const page = pageAfter(after);
    all.push(...(page.data as unknown as Item[]));
    if (!page.has_more || page.data.length === 0) return all;
    after = page.data.at(-1)!.id;
  }
}
