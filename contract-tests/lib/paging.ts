import { config } from './config';
import { is2xx, send, type Exchange, type Query } from './http';
import { observe } from './recorder';
import type { Json } from './data';

/**
 * Lists without knowing how the server pages. The document shows `has_more` and `data` but not
 * the next-page parameter (4.1 rule 3), so the kit tries the mechanisms it knows, keeps the first
 * one that gives a next page sharing no item with the first, and otherwise says it found none.
 */
export interface Page {
  exchange: Exchange;
  has_more: boolean;
  data: Json[];
}

export function asPage(exchange: Exchange): Page | undefined {
  const body = exchange.body as Json | undefined;
  if (!is2xx(exchange) || !body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  if (!Array.isArray(body.data) || typeof body.has_more !== 'boolean') return undefined;
  return { exchange, has_more: body.has_more, data: body.data as Json[] };
}

export const idOf = (item: Json): string => String(item.id);

type Mechanism = {
  name: string;
  /** The query (or whole path) of the page after `page`, given the pages so far. */
  next(
    path: string,
    query: Record<string, string>,
    pages: Page[],
  ): { path: string; query?: Record<string, string> } | undefined;
};

const BODY_TOKENS = ['next_cursor', 'next_page_token', 'nextCursor', 'next_page', 'next', 'cursor'];
const TOKEN_PARAMS = ['cursor', 'page_token', 'next', 'starting_after', 'after'];

function bodyToken(page: Page): unknown {
  const body = page.exchange.body as Json;
  for (const key of BODY_TOKENS) if (body[key] !== undefined && body[key] !== null) return body[key];
  const links = body.links as Json | undefined;
  return links && typeof links === 'object' ? links.next : undefined;
}

function mechanisms(): Mechanism[] {
  const list: Mechanism[] = [];
  // A next-page token or URL in the body.
  list.push({
    name: 'a next-page URL in the body',
    next: (_path, _query, pages) => {
      const token = bodyToken(pages[pages.length - 1]!);
      if (typeof token !== 'string') return undefined;
      if (token.startsWith('/')) return { path: token };
      if (token.startsWith(config.baseUrl)) return { path: token.slice(config.baseUrl.length) };
      return undefined;
    },
  });
  for (const param of TOKEN_PARAMS) {
    list.push({
      name: `\`${param}=<next token from the body>\``,
      next: (path, query, pages) => {
        const token = bodyToken(pages[pages.length - 1]!);
        if (typeof token !== 'string' && typeof token !== 'number') return undefined;
        if (typeof token === 'string' && (token.startsWith('/') || token.startsWith('http')))
          return undefined;
        return { path, query: { ...query, [param]: String(token) } };
      },
    });
  }
  for (const param of ['starting_after', 'after', 'cursor', 'since_id']) {
    list.push({
      name: `\`${param}=<last id>\``,
      next: (path, query, pages) => {
        const last = pages[pages.length - 1]!.data.at(-1);
        return last ? { path, query: { ...query, [param]: idOf(last) } } : undefined;
      },
    });
  }
  list.push({
    name: '`page=<n>`',
    next: (path, query, pages) => ({ path, query: { ...query, page: String(pages.length + 1) } }),
  });
  list.push({
    name: '`offset=<items so far>`',
    next: (path, query, pages) => ({
      path,
      query: { ...query, offset: String(pages.reduce((n, p) => n + p.data.length, 0)) },
    }),
  });
  return list;
}

/** The mechanism found per list path, so that one discovery serves the whole file. */
const found = new Map<string, Mechanism | null>();

async function fetchPage(path: string, query?: Record<string, string>): Promise<Page | undefined> {
  return asPage(await send('GET', path, { query }));
}

async function discover(
  path: string,
  query: Record<string, string>,
  first: Page,
): Promise<{ mechanism: Mechanism; page: Page } | undefined> {
  const seen = new Set(first.data.map(idOf));
  for (const mechanism of mechanisms()) {
    const target = mechanism.next(path, query, [first]);
    if (!target) continue;
    const page = await fetchPage(target.path, target.query);
    if (!page || page.data.length === 0) continue;
    if (page.data.some((item) => seen.has(idOf(item)))) continue;
    return { mechanism, page };
  }
  return undefined;
}

export interface Walk {
  pages: Page[];
  items: Json[];
  /** True when the walk reached a page with has_more false. */
  complete: boolean;
  /** Why the walk stopped early, when it did. */
  reason?: string;
}

export interface WalkOptions {
  /** Stop as soon as this holds for the items so far. */
  until?: (items: Json[]) => boolean;
  maxPages?: number;
  /** Ask for this page size first (falls back to none when refused). */
  limit?: number;
}

/**
 * Walks a list from its first page, as far as `until` needs or to the end. Never fails a rule by
 * itself: a list that does not answer pages, or cannot be paged, ends the walk with a reason.
 */
export async function walk(path: string, baseQuery: Query = {}, options: WalkOptions = {}): Promise<Walk> {
  const maxPages = options.maxPages ?? 60;
  let query = Object.fromEntries(
    Object.entries(baseQuery as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
  );
  let first: Page | undefined;
  if (options.limit !== undefined) {
    first = await fetchPage(path, { ...query, limit: String(options.limit) });
    if (first) query = { ...query, limit: String(options.limit) };
  }
  first ??= await fetchPage(path, query);
  if (!first)
    return { pages: [], items: [], complete: false, reason: `GET ${path} did not answer a page of results` };
  const pages = [first];
  const items = [...first.data];
  const done = () => options.until?.(items) === true;
  let mechanism = found.get(path);
  while (pages[pages.length - 1]!.has_more && !done()) {
    if (pages.length >= maxPages)
      return { pages, items, complete: false, reason: `stopped after ${maxPages} pages` };
    let page: Page | undefined;
    if (mechanism === undefined) {
      const discovered = await discover(path, query, pages[pages.length - 1]!);
      mechanism = discovered?.mechanism ?? null;
      found.set(path, mechanism);
      observe('paging parameter', mechanism ? mechanism.name : 'none found');
      page = discovered?.page;
    } else if (mechanism !== null) {
      const target = mechanism.next(path, query, pages);
      page = target && (await fetchPage(target.path, target.query));
    }
    if (mechanism === null) {
      return {
        pages,
        items,
        complete: false,
        reason:
          'the server offers no next-page mechanism the kit knows (tried a next token or URL in the body, starting_after/after/cursor/since_id=<last id>, page=<n>, offset=<n>)',
      };
    }
    if (!page)
      return {
        pages,
        items,
        complete: false,
        reason: `the next page (${mechanism.name}) did not answer a page of results`,
      };
    if (page.data.length === 0) break;
    pages.push(page);
    items.push(...page.data);
  }
  const last = pages[pages.length - 1]!;
  return { pages, items, complete: !last.has_more || last.data.length === 0 };
}

/** The next-page mechanism the kit settled on for a path, if any. */
export function mechanismOf(path: string): string | undefined {
  return found.get(path)?.name;
}
