import { is2xx, type Exchange } from './http';
import type { Paging } from './server-profile';

/**
 * Lists without knowing how the server pages. The document shows `has_more` and `data` but not
 * the next-page parameter (4.1 rule 3), so a walk tries the mechanisms it knows, keeps the first
 * one that gives a next page sharing no item with the first, and otherwise says it found none.
 * The contract kit walks with it (its requests, through its own client) and so does the account
 * recorder of the mock (through fetch): a `PageSource` is who sends.
 */
export type Json = Record<string, unknown>;
/** A list's own query (its filter): the walk adds its page size and paging to it. */
export type Query = Record<string, string | number | boolean | undefined>;

/** Where the pages come from: a server's root and a way to GET a path of it. */
export interface PageSource {
  baseUrl: string;
  get(path: string, query?: Record<string, string>): Promise<Exchange>;
  /** Told what the walk found out (the paging mechanism), for a report. */
  observe?(what: string, value: string): void;
  /**
   * Whether the list can have moved from `from` to `to` (ms) by writes the source knows of (its
   * own): items repeated or skipped at a page boundary then are no flaw of the server's paging.
   * Without it, a list is taken to have held still.
   */
  heldStill?(from: number, to: number): boolean;
}

export interface Page {
  exchange: Exchange;
  has_more: boolean;
  data: Json[];
  /** When it was asked for (ms), when fetchPage asked. */
  askedAt?: number;
}

export function asPage(exchange: Exchange): Page | undefined {
  const body = exchange.body as Json | undefined;
  if (!is2xx(exchange) || !body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  if (!Array.isArray(body.data) || typeof body.has_more !== 'boolean') return undefined;
  return { exchange, has_more: body.has_more, data: body.data as Json[] };
}

export const idOf = (item: Json): string => String(item.id);

/** Where a walk stands: all a next-page mechanism reads, so that a walk need not keep its pages. */
interface Trail {
  last: Page;
  /** Pages so far, the last one included. */
  pages: number;
  /** Items of those pages, repeated ones included. */
  listed: number;
}

type Mechanism = {
  name: string;
  /**
   * The mechanism as the server profile states it (server-profile.ts): its kind and parameter, and
   * for a token or URL in the body the key it was read from on `page` (the page before the next).
   */
  paging(page: Page): Paging;
  /** The query (or whole path) of the page after the trail's last one. */
  next(
    path: string,
    query: Record<string, string>,
    trail: Trail,
  ): { path: string; query?: Record<string, string> } | undefined;
};

export const BODY_TOKENS = ['next_cursor', 'next_page_token', 'nextCursor', 'next_page', 'next', 'cursor'];
export const BODY_PREV_TOKENS = [
  'prev_cursor',
  'prev_page_token',
  'previous_page_token',
  'prevCursor',
  'previous',
  'prev',
];
const TOKEN_PARAMS = ['cursor', 'page_token', 'next', 'starting_after', 'after'];

export function bodyToken(page: Page, keys = BODY_TOKENS, link = 'next'): unknown {
  const body = page.exchange.body as Json;
  for (const key of keys) if (body[key] !== undefined && body[key] !== null) return body[key];
  const links = body.links as Json | undefined;
  return links && typeof links === 'object' ? links[link] : undefined;
}

/** Where bodyToken found the next page's token or URL: its key, `links.next` when nested. */
function bodyTokenKey(page: Page): string {
  const body = page.exchange.body as Json;
  return BODY_TOKENS.find((key) => body[key] !== undefined && body[key] !== null) ?? 'links.next';
}

/** The targets of an RFC 8288 `Link` header's relation, as the header writes them. */
export function linkTargets(header: string | undefined, rel: 'next' | 'prev'): string[] {
  const targets: string[] = [];
  for (const part of (header ?? '').split(/,(?=\s*<)/)) {
    const match = /<([^>]*)>\s*;(.*)/.exec(part.trim());
    if (!match) continue;
    const rels = /rel\s*=\s*"?([^";]+)"?/i.exec(match[2]!)?.[1]?.toLowerCase().split(/\s+/) ?? [];
    if (rels.includes(rel) || (rel === 'prev' && rels.includes('previous'))) targets.push(match[1]!);
  }
  return targets;
}

/** The target of an RFC 8288 `Link` header's relation, as a path on the base URL. */
export function linkHeader(page: Page, rel: 'next' | 'prev', baseUrl: string): string | undefined {
  const target = linkTargets(page.exchange.headers.link, rel)[0];
  return target === undefined ? undefined : toPath(target, baseUrl);
}

/** The path of a base URL such as `https://host/api` (`/api`), or ''. */
function prefixOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/**
 * An opaque token may start with "/" (base64 does): only this API's paths (under the base URL's
 * own path, if it has one) and http(s) URLs are URLs.
 */
export function looksLikeUrl(token: string, baseUrl: string): boolean {
  const apis = new Set([`${prefixOf(baseUrl)}/v1`, '/v1']);
  return (
    /^https?:\/\//.test(token) ||
    [...apis].some((api) => token.startsWith(`${api}/`) || token.startsWith(`${api}?`))
  );
}

/**
 * A next-page URL given by the server, as a path the kit can send (on the base URL); undefined
 * when it is elsewhere. A path that starts with the base URL's own path (`/api/v1/…` on
 * `https://host/api`) is that path on the base URL.
 */
export function toPath(target: string, baseUrl: string): string | undefined {
  const prefix = prefixOf(baseUrl);
  if (target.startsWith('/'))
    return prefix && target.startsWith(`${prefix}/`) ? target.slice(prefix.length) : target;
  if (target.startsWith(baseUrl)) return target.slice(baseUrl.length);
  try {
    const url = new URL(target, `${baseUrl}/`);
    const base = new URL(baseUrl);
    if (url.origin !== base.origin) return undefined;
    const path = `${url.pathname}${url.search}`;
    return prefix && path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
  } catch {
    return undefined;
  }
}

function mechanisms(baseUrl: string): Mechanism[] {
  const list: Mechanism[] = [];
  list.push({
    name: 'a `Link: <…>; rel="next"` header',
    paging: () => ({ kind: 'link-header' }),
    next: (_path, _query, { last }) => {
      const target = linkHeader(last, 'next', baseUrl);
      return target ? { path: target } : undefined;
    },
  });
  // A next-page token or URL in the body.
  list.push({
    name: 'a next-page URL in the body',
    paging: (page) => ({ kind: 'body-url', bodyKey: bodyTokenKey(page) }),
    next: (_path, _query, { last }) => {
      const token = bodyToken(last);
      if (typeof token !== 'string' || !looksLikeUrl(token, baseUrl)) return undefined;
      const target = toPath(token, baseUrl);
      return target ? { path: target } : undefined;
    },
  });
  for (const param of TOKEN_PARAMS) {
    list.push({
      name: `\`${param}=<next token from the body>\``,
      paging: (page) => ({ kind: 'body-token', param, bodyKey: bodyTokenKey(page) }),
      next: (path, query, { last }) => {
        const token = bodyToken(last);
        if (typeof token !== 'string' && typeof token !== 'number') return undefined;
        if (typeof token === 'string' && looksLikeUrl(token, baseUrl)) return undefined;
        return { path, query: { ...query, [param]: String(token) } };
      },
    });
  }
  for (const param of ['starting_after', 'after', 'cursor', 'since_id']) {
    list.push({
      name: `\`${param}=<last id>\``,
      paging: () => ({ kind: 'after-id', param }),
      next: (path, query, trail) => {
        const last = trail.last.data.at(-1);
        return last ? { path, query: { ...query, [param]: idOf(last) } } : undefined;
      },
    });
  }
  list.push({
    name: '`page=<n>`',
    paging: () => ({ kind: 'page', param: 'page' }),
    next: (path, query, { pages }) => ({ path, query: { ...query, page: String(pages + 1) } }),
  });
  list.push({
    name: '`offset=<items so far>`',
    paging: () => ({ kind: 'offset', param: 'offset' }),
    next: (path, query, { listed }) => ({ path, query: { ...query, offset: String(listed) } }),
  });
  return list;
}

/**
 * The mechanism found per server and list path, so that one discovery serves the whole file (and a
 * process that walks two servers, as the recorder's tests do, finds each one's own).
 */
const found = new Map<string, Mechanism | null>();
/** The mechanism found, as data, with the exchange of the next page that showed it works. */
const described = new Map<string, { paging: Paging; exchange: Exchange }>();
const foundKey = (baseUrl: string, path: string) => `${baseUrl} ${path}`;

export async function fetchPage(
  source: PageSource,
  path: string,
  query?: Record<string, string>,
): Promise<Page | undefined> {
  const askedAt = Date.now();
  const page = asPage(await source.get(path, query));
  return page && { ...page, askedAt };
}

/**
 * The mechanisms to try on a list, those this server was seen to page other lists with first: once
 * the kit knows how a server pages, an empty page after has_more true is that list's answer, not a
 * sign that the mechanism does not apply.
 */
function inOrderOfUse(baseUrl: string, path: string): { mechanism: Mechanism; known: boolean }[] {
  const knownNames = new Set(
    [...found.entries()]
      .filter(([key, m]) => m && key !== foundKey(baseUrl, path) && key.startsWith(`${baseUrl} `))
      .map(([, m]) => m!.name),
  );
  const all = mechanisms(baseUrl).map((mechanism) => ({ mechanism, known: knownNames.has(mechanism.name) }));
  return [...all.filter((m) => m.known), ...all.filter((m) => !m.known)];
}

/** What a discovery found: a mechanism and its next page, an empty next page, or nothing. */
type Discovered =
  | { mechanism: Mechanism; page: Page }
  | { mechanism?: undefined; emptyOnly: true }
  | { mechanism?: undefined; moving: true }
  | undefined;

/** Discovery starts again from a fresh first page this often when the list moved under it. */
const MOVING_ATTEMPTS = 3;

/** The list moved (by the source's own writes) since `first` was asked for. */
const moved = (source: PageSource, first: Page) =>
  source.heldStill !== undefined &&
  first.askedAt !== undefined &&
  !source.heldStill(first.askedAt, Date.now());

/**
 * The mechanism of a list's next page. A next page that repeats items of the first may be the
 * list moving under the kit's own writes: then the search starts again from the first page as it
 * is now, and a list that never holds still leaves the question open.
 */
async function discover(
  source: PageSource,
  path: string,
  query: Record<string, string>,
  first: Page,
): Promise<Discovered> {
  for (let attempt = 1; ; attempt++) {
    const found = await tryMechanisms(source, path, query, first);
    if (found !== 'moved') return found;
    const fresh = attempt < MOVING_ATTEMPTS ? await fetchPage(source, path, query) : undefined;
    if (!fresh) return { moving: true };
    first = fresh;
  }
}

async function tryMechanisms(
  source: PageSource,
  path: string,
  query: Record<string, string>,
  first: Page,
): Promise<Discovered | 'moved'> {
  const seen = new Set(first.data.map(idOf));
  // A mechanism whose next page moves forward but repeats items of the page before: paging that
  // almost works, used (so that the walk goes on) and reported as flawed, never taken for none.
  let almost: { mechanism: Mechanism; page: Page } | undefined;
  let empty = false;
  for (const { mechanism, known } of inOrderOfUse(source.baseUrl, path)) {
    const target = mechanism.next(path, query, { last: first, pages: 1, listed: first.data.length });
    if (!target) continue;
    const page = await fetchPage(source, target.path, target.query);
    if (page && page.data.length === 0) {
      // The way this server pages its other lists, answering an empty page: that is the next page.
      if (known) return { mechanism, page };
      empty = true;
    }
    if (!page || page.data.length === 0) continue;
    const again = page.data.filter((item) => seen.has(idOf(item)));
    // A page that shows every item of the page before (of several) again is that page once more,
    // the parameter ignored, with what the list gained since (a write that shows late): never a
    // next page (judge/pages.ts samePageAgain reads pages the same way).
    if (seen.size > 1 && again.length === seen.size) continue;
    if (again.length > 0) {
      if (moved(source, first)) return 'moved';
      if (!almost && again.length < page.data.length) {
        almost = { mechanism, page };
        flaws.set(
          foundKey(source.baseUrl, path),
          `the next page by ${mechanism.name} moves forward but shows again ${again.map(idOf).join(', ')} of the page before`,
        );
      }
      continue;
    }
    flaws.delete(foundKey(source.baseUrl, path));
    return { mechanism, page };
  }
  return almost ?? (empty ? { emptyOnly: true } : undefined);
}

/** Why the mechanism found for a list is flawed, when it is (see discover). */
const flaws = new Map<string, string>();

export interface Walk {
  pages: Page[];
  items: Json[];
  /** Items that a later page showed again (by id). */
  repeated: Json[];
  /** True when the walk reached a page with has_more false. */
  complete: boolean;
  /** Why the walk stopped early, when it did. */
  reason?: string;
  /** How the paging mechanism is flawed: it repeats items at the boundary of pages. */
  flaw?: string;
  /**
   * The empty page that came after a page saying has_more true, by the mechanism the server pages
   * with: has_more said more items lay beyond, and none did.
   */
  emptyAfterMore?: Page;
  /**
   * False when the list may have moved during the walk (PageSource.heldStill): what it shows at
   * page boundaries (an item twice, one missing) is then not the server's paging.
   */
  still?: boolean;
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
export async function walk(
  source: PageSource,
  path: string,
  baseQuery: Query = {},
  options: WalkOptions = {},
): Promise<Walk> {
  const pages: Page[] = [];
  const items: Json[] = [];
  const repeated: Json[] = [];
  const end = await walkPages(source, path, baseQuery, options, (step) => {
    pages.push(step.page);
    items.push(...step.items);
    repeated.push(...step.repeated);
    return options.until?.(items) === true;
  });
  const { complete, reason, emptyAfterMore } = end;
  const flaw = flaws.get(foundKey(source.baseUrl, path));
  const from = pages[0]?.askedAt;
  const still = source.heldStill && from !== undefined ? source.heldStill(from, Date.now()) : undefined;
  return {
    pages,
    items,
    repeated,
    complete,
    ...(reason === undefined ? {} : { reason }),
    ...(flaw === undefined || pages.length < 2 ? {} : { flaw }),
    ...(emptyAfterMore === undefined ? {} : { emptyAfterMore }),
    ...(still === undefined ? {} : { still }),
  };
}

/** One page of a walk, as it comes. */
export interface PageStep {
  page: Page;
  /** The page's items that no earlier page of the walk showed (by id), in its order. */
  items: Json[];
  /** The page's items that an earlier page showed. */
  repeated: Json[];
}

/** How a walk of pages ended: its counts, not its items. */
export interface WalkEnd {
  pages: number;
  items: number;
  repeated: number;
  complete: boolean;
  reason?: string;
  /** See Walk. */
  emptyAfterMore?: Page;
}

/**
 * The walk of `walk`, page by page: each page goes to `onPage` as it comes and is not kept, so
 * that a list of any length costs the ids met so far (to tell a repeated item) and one page.
 * `onPage` returns true to stop there.
 */
export async function walkPages(
  source: PageSource,
  path: string,
  baseQuery: Query,
  options: Pick<WalkOptions, 'maxPages' | 'limit'>,
  onPage: (step: PageStep) => boolean | void | Promise<boolean | void>,
): Promise<WalkEnd> {
  const maxPages = options.maxPages ?? 60;
  let query = Object.fromEntries(Object.entries(baseQuery).map(([k, v]) => [k, String(v)]));
  let first: Page | undefined;
  // The maximum `limit` is not shown: the largest page the server takes, down to its default.
  for (const limit of options.limit === undefined ? [] : largeLimits(options.limit)) {
    first = await fetchPage(source, path, { ...query, limit: String(limit) });
    if (first) {
      query = { ...query, limit: String(limit) };
      break;
    }
  }
  first ??= await fetchPage(source, path, query);
  if (!first)
    return {
      pages: 0,
      items: 0,
      repeated: 0,
      complete: false,
      reason: `GET ${path} did not answer a page of results`,
    };
  const trail: Trail = { last: first, pages: 1, listed: first.data.length };
  const seen = new Set(first.data.map(idOf));
  let items = first.data.length;
  let repeated = 0;
  const end = (complete: boolean, reason?: string): WalkEnd =>
    reason === undefined
      ? { pages: trail.pages, items, repeated, complete }
      : { pages: trail.pages, items, repeated, complete, reason };
  let stop = (await onPage({ page: first, items: first.data, repeated: [] })) === true;
  let mechanism = found.get(foundKey(source.baseUrl, path));
  while (trail.last.has_more && !stop) {
    if (trail.pages >= maxPages) return end(false, `stopped after ${maxPages} pages`);
    let page: Page | undefined;
    if (mechanism === undefined) {
      const discovered = await discover(source, path, query, trail.last);
      if (discovered && 'moving' in discovered)
        // Not known: a later walk of this list looks again.
        return end(
          false,
          `the list kept changing (the kit's own writes) while the kit looked for its next-page mechanism, ${MOVING_ATTEMPTS} times`,
        );
      if (discovered && !discovered.mechanism)
        // Every way tried gave an empty page: has_more was wrong, or the way is not among them.
        // Not known either way, so a later walk of this list looks again.
        return end(
          false,
          'has_more was true, but every next-page mechanism the kit tried answered an empty page',
        );
      mechanism = discovered?.mechanism ?? null;
      found.set(foundKey(source.baseUrl, path), mechanism);
      if (discovered?.mechanism && discovered.page.data.length > 0)
        described.set(foundKey(source.baseUrl, path), {
          paging: discovered.mechanism.paging(trail.last),
          exchange: discovered.page.exchange,
        });
      source.observe?.('paging parameter', mechanism ? mechanism.name : 'none found');
      page = discovered?.page;
    } else if (mechanism !== null) {
      const target = mechanism.next(path, query, trail);
      page = target && (await fetchPage(source, target.path, target.query));
    }
    if (mechanism === null)
      return end(
        false,
        'the server offers no next-page mechanism the kit knows (tried a Link header, a next token or URL in the body, starting_after/after/cursor/since_id=<last id>, page=<n>, offset=<n>)',
      );
    if (!page) return end(false, `the next page (${mechanism.name}) did not answer a page of results`);
    if (page.data.length === 0)
      return {
        ...end(false, `has_more was true, but the next page (${mechanism.name}) was empty`),
        emptyAfterMore: page,
      };
    trail.last = page;
    trail.pages += 1;
    trail.listed += page.data.length;
    const step: PageStep = { page, items: [], repeated: [] };
    for (const item of page.data) {
      if (seen.has(idOf(item))) step.repeated.push(item);
      else {
        seen.add(idOf(item));
        step.items.push(item);
      }
    }
    items += step.items.length;
    repeated += step.repeated.length;
    stop = (await onPage(step)) === true;
  }
  return end(!trail.last.has_more || trail.last.data.length === 0);
}

/** `limit` values to try for a large page, largest first: the maximum is not shown. */
function largeLimits(wanted: number): number[] {
  return [wanted, 50, 20].filter((limit, i, all) => limit <= wanted && all.indexOf(limit) === i);
}

/** The next-page mechanism the kit settled on for a path of this server, if any. */
export function mechanismOf(baseUrl: string, path: string): string | undefined {
  return found.get(foundKey(baseUrl, path))?.name;
}

/**
 * The same mechanism as data (server-profile.ts `Paging`), with the exchange of the next page that
 * showed it works; null when the walk found none, undefined while no walk of the path needed one.
 */
export function pagingOf(
  baseUrl: string,
  path: string,
): { paging: Paging; exchange: Exchange } | null | undefined {
  const mechanism = found.get(foundKey(baseUrl, path));
  return mechanism === null ? null : described.get(foundKey(baseUrl, path));
}
